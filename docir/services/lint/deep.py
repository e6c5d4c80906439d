"""Tier 2 lint (`--deep`): near-duplicate documents by document-vector similarity, the vector side
of the near-duplicate rule (DOC030, declared in docir/services/lint/rules/duplicates.py).

Document vectors only: section vectors would answer "do these share a
section", not "are these the same document". Pairs already linked by any
edge are related on purpose and are not reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from docir.index.records import Listing
from docir.index.vectors import Matrix, unpack
from docir.services.indexing.session import Session
from docir.services.lint.checks import LintReport
from docir.services.lint.rules.duplicates import near_duplicate
from docir.services.retrieval.visibility import Visibility
from docir.services.vectors.flush import drain_due
from docir.services.vectors.query_source import LocalModel, QuerySource

BLOCK = 2048  # rows per block of the similarity matrix, so 10,000 documents never need 400 MB at once


class DocumentVector(NamedTuple):
    """An active document and its document vector: the only thing the near-duplicate check compares."""

    listing: Listing
    vector: Matrix


def near_duplicate_pairs(docs: Sequence[DocumentVector],
                         threshold: float) -> list[tuple[DocumentVector, DocumentVector, float]]:
    """Pairs closer than `threshold`, skipping pairs already linked by any edge (either way)."""
    if len(docs) < 2:
        return []
    matrix = np.vstack([d.vector for d in docs]).astype(np.float32)
    linked = {frozenset((d.listing.id, target)) for d in docs for _, target in d.listing.related}
    pairs = []
    for start in range(0, len(docs), BLOCK):
        sims = matrix[start : start + BLOCK] @ matrix.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c > i and frozenset((docs[i].listing.id, docs[c].listing.id)) not in linked:
                pairs.append((docs[i], docs[c], float(sims[r, c])))
    return pairs


def near_duplicates(session: Session, source: QuerySource, report: LintReport, paths: list[str] | None) -> None:
    """Add the near-duplicate rule's findings (DOC030) to `report`; say in `report.semantic` when there is
    no model."""
    report.semantic = source.status
    severity = near_duplicate.severity_in(session.schema.lint.severity)
    if source.model_id is None or severity == "off":
        return
    if isinstance(source, LocalModel):
        # Staged documents not yet embedded are embedded for the check (by the worker's drain, in the worker).
        drain_due(session, source.embedder)
    rowids, blobs = session.catalog.vectors.document_vectors(source.model_id)
    listings = session.catalog.docs.listings_by_rowid(rowids)
    visible = Visibility.from_schema(session.schema)
    docs = [DocumentVector(listings[r], unpack(blob, len(blob) // 4)) for r, blob in zip(rowids, blobs, strict=True)
            if r in listings and visible.allows(listings[r].type, listings[r].status, listings[r].archived)]
    wanted = None if paths is None else set(paths)
    report.findings.extend(near_duplicate.findings(severity, docs, session.schema.lint.near_duplicate_threshold,
                                                   wanted))
