"""docir update ID [--title] [--status] [--append-section H --body B] [...]"""

from __future__ import annotations

from docir.cli import render
from docir.cli.route import Declared
from docir.invocation import Invocation
from docir.services.writing import writes
from docir.services.writing.store_writes import UpdateResult


def show(request: writes.UpdateRequest, result: UpdateResult, invocation: Invocation) -> int:
    """Change a document in place: only the lines of what changed are rewritten.

    A document it comes to supersede (--add-related supersedes:ID) is marked superseded in the same
    write, unless --keep-status."""
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        what = ", ".join(result["changed"]) or "nothing (already so)"
        invocation.print(f"{result['id']} {result['path']}: {what}")
        render.superseded(result["superseded"], result["id"], invocation)
    return 0


# writes.changes: a usage error before the store is even opened.
DECLARED = Declared(writes.UpdateRequest, serve=writes.update, show=show, check=writes.changes)
