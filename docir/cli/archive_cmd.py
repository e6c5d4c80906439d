"""docir archive ID"""

from __future__ import annotations

from docir.cli import render
from docir.cli.route import Declared
from docir.invocation import Invocation
from docir.services.writing import writes
from docir.services.writing.store_writes import ArchiveResult


def show(request: writes.ArchiveRequest, result: ArchiveResult, invocation: Invocation) -> int:
    """Move a document to docs/archive/: out of search, similarity and the graph; 'get' still returns it."""
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        where = "archived to" if result["moved"] else "already archived at"
        invocation.print(f"{result['id']} {where} {result['path']}")
    return 0


DECLARED = Declared(writes.ArchiveRequest, serve=writes.archive, show=show)
