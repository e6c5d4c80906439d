"""docir reindex [--full]"""

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.edge import in_store, invocation_of
from docir.cli.options import JsonOption, RootOption
from docir.services.indexing import reindex
from docir.services.indexing.session import Session
from docir.services.vectors.drainer import ensure_worker
from docir.services.vectors.flush import flush_session


def command(
    ctx: typer.Context,
    full: Annotated[bool, typer.Option("--full", help="Forget the index and rebuild it from every file.")] = False,
    wait_embeddings: Annotated[
        bool, typer.Option("--wait-embeddings", help="Also compute every due vector before returning."),
    ] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Bring the index in line with the files: added, changed, moved and removed documents.

    Unchanged files (same size and mtime) are not even opened.
    """
    invocation = invocation_of(ctx, root, json_out)

    def action(s: Session) -> reindex.ReindexReport:
        wait = (lambda: flush_session(s)["documents"]) if wait_embeddings else None
        result = reindex.reindex(s, full=full, wait=wait)
        if result["embeddings_due"]:
            ensure_worker(s.caller, s.store.root)  # new text: the worker makes its vectors
        return result

    report = in_store(invocation, action, refresh=False)
    if invocation.wants_json():
        render.emit_json(report, invocation)
    else:
        render.key_values("reindex", {k: (len(v) if isinstance(v, list) else v) for k, v in report.items()}, invocation)
    return 0
