"""What a task's best candidates lend the documents they build on (adr-4716947e3ea9).

Follow-up proposals, implementations and fixes link to the decision they rest on (depends-on,
implements, resolves: every directed relation kind that is not a successor edge, see
`Schema.building_kinds`). When several of a task's strongest candidates build on another candidate,
that one is the foundation the task rests on, and usually the one to read first; alone, its text can
rank below theirs, because each of them restates the part of it it extends. So each of the first
`fusion.LEND_FROM` candidates lends `fusion.LEND_SHARE` of its fused score to every candidate it
builds on. Only candidates lend and borrow: the links decide an order among documents the task
already found, never bring in one it did not (expansion does that, after ranking).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docir.services.indexing.session import Session
from docir.services.retrieval import fusion


@dataclass(frozen=True)
class Loan:
    amount: float
    lenders: tuple[int, ...]  # rowids of the candidates that build on this one, best first


def loans(session: Session, ranked: Sequence[tuple[int, float]]) -> dict[int, Loan]:
    """Each borrowing candidate's loan, by rowid; `ranked` is (rowid, fused score), best first."""
    lenders = [(rowid, score) for rowid, score in ranked[: fusion.LEND_FROM] if score > 0]
    kinds = session.schema.building_kinds
    if not lenders or not kinds:
        return {}
    score_of = dict(lenders)
    place = {rowid: index for index, (rowid, _) in enumerate(lenders)}
    owed: dict[int, list[int]] = {}
    edges = session.catalog.docs.edges_among([r for r, _ in lenders], [r for r, _ in ranked], kinds)
    for src, dst in edges:
        if src != dst and src not in owed.get(dst, []):
            owed.setdefault(dst, []).append(src)
    return {
        dst: Loan(fusion.LEND_SHARE * sum(score_of[src] for src in srcs), tuple(sorted(srcs, key=place.__getitem__)))
        for dst, srcs in owed.items()
    }
