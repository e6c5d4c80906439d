"""docir embed [--flush] [--status]"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.embed.protocol import Embedder
from docir.embed.resolve import resolve
from docir.errors import DocirError
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
        due, total = s.catalog.queue_counts(model_id)
        out.update({"due": due, "total": total})
        return out

    result = session.run(root, action, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        render.key_values("embeddings", result)
    return 0


def flush_store(s: Session) -> dict[str, Any]:
    """Compute every due vector now (reindex --wait-embeddings)."""
    return _flush(s, json_out=True)


def after_write(s: Session, wait: bool) -> None:
    """A write scheduled vectors: wait for them (--wait-embeddings), or let the worker make them."""
    if wait:
        try:
            _flush(s, json_out=True)
        except DocirError as exc:
            render.warn(f"{exc.message}; the document is saved and found lexically")
    else:
        query_source.ensure_worker(s.store.root)


def _flush(s: Session, json_out: bool) -> dict[str, Any]:
    progress = None if render.wants_json(json_out) else render.progress_bar("embedding")

    from docir.services.vectors import embedding  # numpy: only when vectors are really computed

    def drain_here(embedder: Embedder) -> dict[str, object]:
        report = embedding.drain(s.catalog, embedder, progress=progress)
        return {"documents": report.documents, "texts_embedded": report.texts_embedded,
                "texts_reused": report.texts_reused}

    try:
        return dict(query_source.flush(s.schema.model_path, s.store.root, drain_here))
    except query_source.ModelOff as exc:
        raise DocirError(f"cannot compute vectors: semantic layer is {exc}") from None
