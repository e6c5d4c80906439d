"""docir add TYPE --title T --description D [...]"""

from __future__ import annotations

import shlex

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
        root = invocation.store_root()
        shown = [render.shown_path(root, path, invocation.cwd) for path in result["files"]]
        invocation.print(f"{result['id']} {shown[0]}")
        invocation.print(next_step(result["id"], shown, bool(request.body.strip())))
        render.superseded(result["superseded"], result["id"], invocation)
    return 0


def next_step(doc_id: str, files: list[str], has_body: bool) -> str:
    """What a person at a terminal does next with the document just created, and every file its write
    changed (a document it superseded too): staging the new one alone would commit half the change.
    JSON callers need no advice; they have `files`."""
    named = " ".join(shlex.quote(path) for path in files)
    if not has_body:
        return (f"next: write its body in {files[0]} (or: docir update {doc_id} --replace-body @FILE), "
                f"then: docir lint {named} && git add {named}")
    return f"next: docir lint {named} && git add {named}"


DECLARED = Declared(writes.AddRequest, serve=writes.add, show=show)
