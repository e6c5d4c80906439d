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
from typing import NamedTuple

SECTION_WEIGHT = 1.0  # best heading section by bm25
NEAR_WEIGHT = 1.0  # adjacent task words within NEAR_DISTANCE tokens (index/fts.py)
NEAR_MARGIN = 1.0  # how far the pairs may count above the other lists' best (near_capped)
VECTOR_WEIGHT = 1.0  # best cosine of the document vector and its section vectors
COVERAGE_POWER = 1.0  # lexical evidence x coverage**power
# A candidate that the task's best candidates build on (retrieval/lending.py) gains this share of
# each one's fused score; only the first LEND_FROM candidates lend.
LEND_SHARE = 0.25
LEND_FROM = 20
# A need's sketch and its terms (need.py) each count beside the task with their base weight
# times three ramps (adr-2b7e51c4d9a0), each 0 at its first number and 1 at its second:
# - agreement: the share of the form's first AGREEMENT_OF candidates that are among the task's
#   first AGREEMENT_AMONG (out of fewer when either found fewer): a sketch of something else
#   points at other documents;
# - relatedness: the cosine of the task's and the form's query vectors (1 without a model);
# - the task's confidence, which takes up to CONFIDENT_CUT of the weight away: how far the task's
#   own first candidate stands above its second, as a share of its score. A strong task match is
#   not buried by a sketch that guessed wrong.
SKETCH_WEIGHT = 1.0
AGREEMENT_OF, AGREEMENT_AMONG = 10, 30
AGREEMENT_RAMP = (0.0, 0.4)
RELATEDNESS_RAMP = (0.1, 0.3)
CONFIDENCE_RAMP = (0.1, 0.6)
CONFIDENT_CUT = 0.5
TERMS_WEIGHT = 1.0  # exact terms: ranked by their words; their vector only weighs them
# What `context` returns is what the need matched: by its words (any lexical candidate), or by a
# meaning that stands out of the store's background, a best cosine more than BACKGROUND_SD standard
# deviations above the mean of the other documents' best cosines for the query. Below that line a
# document is to the query what any document of the store is, and fusion gave it nothing: a store of
# six documents returned all six, those the task was not about with score 0 (adr-0daadecdbef2).
BACKGROUND_SD = 1.0
# `score` in search output is rank-derived (rank_score): only the order means anything. In context
# output it is the fused sum of z-scores, comparable within one result list only (adr-78d1238b4ae2).
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


class Background(NamedTuple):
    """A store's background for one query: the sum, the sum of squares and the count of its documents'
    best cosines (every document's locally; a sample's in a big organisation store, org/ranking_sql.py)."""

    total: float
    squares: float
    documents: int

    def stands_out(self, similarity: float, own: float | None) -> bool:
        """Whether a candidate's cosine is above the line of the others: `own`, its own best cosine when
        the background counted it, is taken out first (a document is no part of its own background)."""
        if own is None:
            return similarity > background_line(self.total, self.squares, self.documents)
        return similarity > background_line(self.total - own, self.squares - own * own, self.documents - 1)


def background_line(total: float, squares: float, count: int) -> float:
    """The cosine that stands out of a background of `count` cosines (given by their sum and their sum of
    squares): BACKGROUND_SD standard deviations above their mean. -inf below two, which have no spread to
    measure: there every cosine counts, as a lone match is one unit of evidence in zscores."""
    if count < 2:
        return -math.inf
    mean = total / count
    return mean + BACKGROUND_SD * math.sqrt(max(0.0, squares / count - mean * mean))


def lexical_part(weight: float, coverage: float, z: float) -> float:
    """What one lexical ranking adds to a fused score: its z-score, counted in proportion to the
    share of the task's terms the document contains (matching one incidental word is worth little)."""
    return weight * math.pow(coverage, COVERAGE_POWER) * z


def near_capped(near: float, section: float, vector: float) -> float:
    """What the word-pairs ranking adds to a fused score: its part, but never more than NEAR_MARGIN above the
    larger of the sections' and the vector's parts. Pairs close together confirm what the other lists find;
    alone, a frequent pair ("sidecar container") outvoted the document the sections and the vectors agreed
    on (adr-46cf44a170d6). The lexical list's own order (and `search`'s) keeps the pairs whole."""
    return min(near, max(section, vector) + NEAR_MARGIN)


def form_weight(base: float, agreement: float, relatedness: float | None, confidence: float) -> float:
    """How much a sketch (or the terms) counts beside its task (see the constants above)."""
    weight = base * _ramp(agreement, *AGREEMENT_RAMP)
    weight *= 1.0 - CONFIDENT_CUT * _ramp(confidence, *CONFIDENCE_RAMP)
    return weight if relatedness is None else weight * _ramp(relatedness, *RELATEDNESS_RAMP)


def _ramp(x: float, low: float, high: float) -> float:
    """0 at or below `low`, 1 at or above `high`, linear between."""
    return min(1.0, max(0.0, (x - low) / (high - low)))


def rank_score(rank: int) -> float:
    """What a place in a list is shown as: 1 / (k + rank), rank counted from 1."""
    return 1.0 / (RANK_K + rank)
