"""docir agents [--write]"""

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.services.integrations import agents
from docir.store import open_store


def command(
    write: Annotated[
        bool, typer.Option("--write", help="Create or refresh the block in AGENTS.md at the store root."),
    ] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Print (or write into AGENTS.md) the short instructions that teach an agent to use docir."""
    if not write:
        print(agents.render_block(), end="")
        return 0
    path = open_store(root).root / "AGENTS.md"
    action = agents.write_block(path)
    if render.wants_json(json_out):
        render.emit_json({"path": str(path), "action": action})
    else:
        print(f"AGENTS.md: {action}")
    return 0
