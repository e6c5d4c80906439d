"""Maintenance: reindex."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from docir.embed.resolve import resolve
from docir.services.indexing import references as reference_corpora
from docir.services.indexing.session import Session


class ReindexReport(TypedDict):
    added: int
    updated: int
    moved: int
    removed: int
    unchanged: int
    skipped: list[reference_corpora.Skip]
    references: list[reference_corpora.IngestJSON]
    embeddings_recomputed: int  # documents embedded here (--wait-embeddings)
    embeddings_due: int  # documents the worker still has to embed


def reindex(session: Session, *, full: bool = False, wait: Callable[[], int] | None = None,
            refs: bool = True) -> ReindexReport:
    """Sync the index with the files; with `full`, from nothing. Returns the counts.

    Vectors are left to the worker (`embeddings_due`); `wait` computes them here and
    returns how many documents it embedded (`embeddings_recomputed`).
    """
    if full:
        with session.locked(), session.catalog.transaction():
            session.catalog.clear_all()
    report = session.refresh()
    references = [r.as_dict() for r in reference_corpora.sync_all(session)] if refs else []
    recomputed = wait() if wait is not None else 0
    choice = resolve(session.caller.settings, session.schema.model_path, session.store.root)
    due = session.catalog.vectors.queue_counts(choice.model_id if choice.available else None)[0]
    return {"added": report.added, "updated": report.updated, "moved": report.moved, "removed": report.removed,
            "unchanged": report.unchanged, "skipped": [{"path": p, "reason": r} for p, r in report.skipped],
            "references": references, "embeddings_recomputed": recomputed, "embeddings_due": due}
