"""docir archive ID"""

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.requests import help_of
from docir.services.indexing import session
from docir.services.writing import commands
from docir.services.writing.commands import ArchiveRequest as R


def command(
    doc_id: Annotated[str, typer.Argument(metavar="ID", help=help_of(R, "id"), show_default=False)],
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Move a document to docs/archive/: out of search, similarity and the graph; 'get' still returns it."""
    result = session.run(root, lambda s: commands.archive(s, R(id=doc_id), render.warn), warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        print(f"{result['id']} {'archived to' if result['moved'] else 'already archived at'} {result['path']}")
    return 0
