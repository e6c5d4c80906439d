"""docir agents [--write]"""

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.edge import invocation_of
from docir.cli.options import JsonOption, RootOption
from docir.services.integrations import agents


def command(
    ctx: typer.Context,
    write: Annotated[
        bool, typer.Option("--write", help="Create or refresh the block in AGENTS.md at the store root."),
    ] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Print (or write into AGENTS.md) the short instructions that teach an agent to use docir."""
    invocation = invocation_of(ctx, root, json_out)
    if not write:
        invocation.stdout.write(agents.render_block())
        return 0
    path = invocation.store_root() / "AGENTS.md"
    action = agents.write_block(path)
    if invocation.wants_json():
        render.emit_json({"path": str(path), "action": action}, invocation)
    else:
        invocation.print(f"AGENTS.md: {action}")
    return 0
