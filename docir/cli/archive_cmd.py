"""docir archive ID"""

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.services.indexing import session
from docir.services.writing import writes


def command(
    doc_id: Annotated[str, typer.Argument(metavar="ID", help="The document to archive.", show_default=False)],
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Move a document to docs/archive/: out of search, similarity and the graph; 'get' still returns it."""
    result = session.run(root, lambda s: writes.archive(s, doc_id), warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        print(f"{result['id']} {'archived to' if result['moved'] else 'already archived at'} {result['path']}")
    return 0
