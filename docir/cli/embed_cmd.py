"""docir embed [--flush] [--status]"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.embed.resolve import resolve
from docir.services.indexing import session
from docir.services.indexing.session import Session
from docir.services.vectors import query_source


def command(
    flush: Annotated[
        bool, typer.Option("--flush", help="Compute every due vector now and wait (in the warm worker if one runs)."),
    ] = False,
    status: Annotated[bool, typer.Option("--status", help="Show the queue (the default).")] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Show or drain the embedding queue: documents whose vectors are due."""

    def action(s: Session) -> dict[str, Any]:
        choice = resolve(s.schema.model_path, s.store.root)
        model_id = choice.model_id if choice.available else None
        out: dict[str, Any] = {"semantic": "on" if choice.available else choice.source, "model": model_id}
        if flush:
            out.update(_flush(s, json_out))
        due, total = s.catalog.vectors.queue_counts(model_id)
        out.update({"due": due, "total": total})
        if not flush:
            # While a drain runs: texts done and due, rate and time left (null when none runs).
            out["drain"] = query_source.drain_status(s.store.root) if model_id else None
        return out

    result = session.run(root, action, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        if result.get("drain"):
            result["drain"] = render.drain_line(result["drain"])
        render.key_values("embeddings", {k: ("-" if v is None else v) for k, v in result.items()})
    return 0


def _flush(s: Session, json_out: bool) -> query_source.FlushReport:
    bar = None if render.wants_json(json_out) else render.progress_bar("embedding")
    try:
        return query_source.flush_session(s, bar)
    finally:
        if bar is not None:
            bar.close()
