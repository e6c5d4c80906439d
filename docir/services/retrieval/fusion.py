"""The numbers of fusion, one home for search's score and context's (adr-78d1238b4ae2).

Each ranking (heading sections by bm25, word pairs close together, vectors) turns its
raw scores into z-scores over its own candidates: how many standard deviations a
document stands above the others in that ranking. A ranking whose top stands far
above the rest therefore speaks louder than one where everything scores alike, which
fixed rank-based weights cannot express. Lexical evidence counts in proportion to the
share of the task's terms a document contains. The fused score is the sum.

Kept free of numpy so that `docir search`, which never loads vectors, can import it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SECTION_WEIGHT = 1.0  # best heading section by bm25
NEAR_WEIGHT = 1.0  # adjacent task words within NEAR_DISTANCE tokens (index/fts.py)
VECTOR_WEIGHT = 1.0  # best cosine of the document vector and its section vectors
COVERAGE_POWER = 1.0  # lexical evidence x coverage**power
# A candidate that the task's best candidates build on (retrieval/lending.py) gains this share of
# each one's fused score; only the first LEND_FROM candidates lend.
LEND_SHARE = 0.25
LEND_FROM = 20
# `score` in search and context output is rank-derived: only the order means anything.
RANK_K = 10


def zscores(raw: Sequence[float]) -> list[float]:
    """(x - mean) / sd of each score over the ranking's places, floored at 0 (below average says nothing)."""
    if len(raw) < 2:
        return [1.0 for _ in raw]  # a lone match: nothing to stand above, so one unit of evidence
    mean = sum(raw) / len(raw)
    sd = math.sqrt(sum((v - mean) ** 2 for v in raw) / len(raw))
    if sd == 0:
        return [0.0 for _ in raw]
    return [max(0.0, (x - mean) / sd) for x in raw]


def lexical_part(weight: float, coverage: float, z: float) -> float:
    """What one lexical ranking adds to a fused score: its z-score, counted in proportion to the
    share of the task's terms the document contains (matching one incidental word is worth little)."""
    return weight * math.pow(coverage, COVERAGE_POWER) * z


def rank_score(rank: int) -> float:
    """What a place in a list is shown as: 1 / (k + rank), rank counted from 1."""
    return 1.0 / (RANK_K + rank)
