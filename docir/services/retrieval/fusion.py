"""The numbers of reciprocal rank fusion, one home for search's score and context's (adr-f80ff7c7eacd).

Kept free of numpy so that `docir search`, which never loads vectors, can import it.
"""

from __future__ import annotations

# Measured on benchmarks/quality (89 judged queries, a third paraphrases): textbook RRF (k=60)
# scored 0.859 nDCG@10, below the vector ranking alone (0.885), because OR-matched bm25 puts
# documents that share one incidental word with the task in both lists. Scaling each lexical
# contribution by coverage**3 (the share of the task's terms a document contains) with k=10
# scored 0.910: fusion then beats both rankings on every query group.
FUSION_K = 10
COVERAGE_POWER = 3.0
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0


def rank_score(rank: int, weight: float = 1.0) -> float:
    """What a place in one ranking is worth: weight / (k + rank), rank counted from 1."""
    return weight / (FUSION_K + rank)
