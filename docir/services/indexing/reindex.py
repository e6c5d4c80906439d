"""Maintenance: reindex."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docir.embed.resolve import resolve
from docir.services.indexing import references as reference_corpora
from docir.services.indexing.session import Session


def reindex(session: Session, *, full: bool = False, wait: Callable[[], int] | None = None,
            refs: bool = True) -> dict[str, Any]:
    """Sync the index with the files; with `full`, from nothing. Returns the counts.

    Vectors are left to the worker (`embeddings_due`); `wait` computes them here and
    returns how many documents it embedded (`embeddings_recomputed`).
    """
    if full:
        with session.locked(), session.catalog.transaction():
            session.catalog.clear_all()
    report = session.refresh()
    out = report.as_dict()
    out["references"] = [r.as_dict() for r in reference_corpora.sync_all(session)] if refs else []
    out["embeddings_recomputed"] = wait() if wait is not None else 0
    choice = resolve(session.schema.model_path, session.store.root)
    out["embeddings_due"] = session.catalog.vectors.queue_counts(choice.model_id if choice.available else None)[0]
    return out
