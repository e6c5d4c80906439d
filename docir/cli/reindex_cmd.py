"""docir reindex [--full]"""

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.services.indexing import reindex, session
from docir.services.indexing.session import Session
from docir.services.vectors.drainer import ensure_worker
from docir.services.vectors.flush import flush_session


def command(
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
    def action(s: Session) -> reindex.ReindexReport:
        wait = (lambda: flush_session(s)["documents"]) if wait_embeddings else None
        result = reindex.reindex(s, full=full, wait=wait)
        if result["embeddings_due"]:
            ensure_worker(s.store.root)  # new text: the worker makes its vectors
        return result

    report = session.run(root, action, refresh=False, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(report)
    else:
        render.key_values("reindex", {k: (len(v) if isinstance(v, list) else v) for k, v in report.items()})
    return 0
