"""The near-duplicate rule's arithmetic: which pairs of document vectors nearly agree.

Document vectors only: section vectors would answer "do these share a section", not "are these
the same document". Pairs already linked by any edge are related on purpose and are not reported.
numpy is imported here, and this module only by a lint that compares vectors (`--deep`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from docir.index.records import Listing
from docir.index.vectors import Matrix

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
