"""docir init"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import JsonOption
from docir.services.init import init_store


def command(
    root: Annotated[Optional[Path], typer.Option("--root", help="Folder to make a store (default: the current folder).", show_default=False, file_okay=False)] = None,
    json_out: JsonOption = False,
) -> int:
    """Make this folder a docir store: docs/, docs-schema.yaml, .docir/. Safe to run again."""
    home = (root or Path.cwd()).expanduser().resolve()
    created = init_store(home)
    if render.wants_json(json_out):
        render.emit_json({"root": str(home), "created": created})
    elif created:
        print(f"docir store ready in {home}: created {', '.join(created)}")
    else:
        print(f"docir store already set up in {home}; nothing to do")
    return 0
