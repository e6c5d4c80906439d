"""Tier 2 lint (`--deep`): near-duplicate documents by document-vector similarity.

Document vectors only: section vectors would answer "do these share a
section", not "are these the same document". Pairs already linked by any
edge are related on purpose and are not reported.
"""

from __future__ import annotations

import numpy as np

from docir.index.vectors import stack
from docir.services import embedding
from docir.services.lint import Finding, LintReport
from docir.services.semantic import LocalModel, QuerySource
from docir.services.session import Session
from docir.services.visibility import Visibility

BLOCK = 2048  # rows per block of the similarity matrix, so 10,000 documents never need 400 MB at once


def near_duplicates(session: Session, source: QuerySource, report: LintReport, paths: list[str] | None) -> None:
    """Add DOC030 findings to `report`; say in `report.semantic` when there is no model."""
    report.semantic = source.status
    severity = session.schema.lint.severity.get("DOC030", "warning")
    if source.model_id is None or severity == "off":
        return
    if isinstance(source, LocalModel):
        # Staged documents not yet embedded are embedded for the check.
        embedding.drain(session.catalog, source.embedder)
    rowids, blobs = session.catalog.document_vectors(source.model_id)
    listings = session.catalog.listings_by_rowid(rowids)
    visible = Visibility.from_schema(session.schema)
    keep = [i for i, r in enumerate(rowids) if r in listings and visible.allows(listings[r].type, listings[r].status, listings[r].archived)]
    if len(keep) < 2:
        return
    dim = len(blobs[0]) // 4
    ids = [listings[rowids[i]].id for i in keep]
    docs = [listings[rowids[i]] for i in keep]
    matrix = stack([blobs[i] for i in keep], dim)
    linked = {frozenset((d.id, target)) for d in docs for _, target in d.related}
    wanted = None if paths is None else set(paths)
    threshold = session.schema.lint.near_duplicate_threshold
    for start in range(0, len(keep), BLOCK):
        sims = matrix[start : start + BLOCK] @ matrix.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist()):
            i = start + r
            if c <= i or frozenset((ids[i], ids[c])) in linked:
                continue
            similarity = float(sims[r, c])
            for me, other in ((docs[i], docs[c]), (docs[c], docs[i])):
                if wanted is None or me.path in wanted:
                    report.findings.append(Finding(
                        me.path, 1, 1, "DOC030",
                        f"near-duplicate of {other.id} ({other.path}), cosine {similarity:.3f}", severity))
