"""docir add TYPE --title T --description D [...]"""

from __future__ import annotations

from docir.cli import render
from docir.cli.route import Declared
from docir.invocation import Invocation
from docir.services.writing import writes
from docir.services.writing.store_writes import AddResult


def show(request: writes.AddRequest, result: AddResult, invocation: Invocation) -> int:
    """Create a document; prints its new id and path.

    A document it supersedes (--related supersedes:ID) is marked superseded in the same write,
    unless --keep-status."""
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        invocation.print(f"{result['id']} {result['path']}")
        invocation.print(next_step(result["id"], result["path"], bool(request.body.strip())))
        render.superseded(result["superseded"], result["id"], invocation)
    return 0


def next_step(doc_id: str, path: str, has_body: bool) -> str:
    """What a person at a terminal does next with the document just created (JSON callers need no advice)."""
    if not has_body:
        return (f"next: write its body in {path} (or: docir update {doc_id} --replace-body @FILE), "
                f"then: docir lint {path}")
    return f"next: docir lint {path} && git add {path}"


DECLARED = Declared(writes.AddRequest, serve=writes.add, show=show)
