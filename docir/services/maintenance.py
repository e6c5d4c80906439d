"""Maintenance: reindex."""

from __future__ import annotations

from typing import Any

from docir.services.session import Session


def reindex(session: Session, *, full: bool = False) -> dict[str, Any]:
    """Sync the index with the files; with `full`, from nothing. Returns the counts."""
    if full:
        with session.locked(), session.catalog.transaction():
            session.catalog.clear_all()
    report = session.refresh()
    out = report.as_dict()
    out["embeddings_recomputed"] = 0
    return out
