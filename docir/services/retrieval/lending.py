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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from docir.services.indexing.session import Session
from docir.services.retrieval import fusion

# (lenders, candidates) -> the (source, target) building edges from lenders to candidates, by key.
Edges = Callable[[Sequence[int], Sequence[int]], Iterable[tuple[int, int]]]


@dataclass(frozen=True)
class Loan:
    amount: float
    lenders: tuple[int, ...]  # keys of the candidates that build on this one, best first


def local_edges(session: Session) -> Edges:
    """The store's building edges among rowids (its own schema's `building_kinds`)."""
    kinds = session.schema.building_kinds

    def edges(sources: Sequence[int], targets: Sequence[int]) -> list[tuple[int, int]]:
        return session.catalog.docs.edges_among(sources, targets, kinds) if kinds else []

    return edges


def loans(ranked: Sequence[tuple[int, float]], edges: Edges) -> dict[int, Loan]:
    """Each borrowing candidate's loan, by key; `ranked` is (key, fused score), best first. The keys
    are whatever `edges` names documents by: a local rowid, or a published document's place."""
    lenders = [(key, score) for key, score in ranked[: fusion.LEND_FROM] if score > 0]
    if not lenders:
        return {}
    score_of = dict(lenders)
    place = {key: index for index, (key, _) in enumerate(lenders)}
    owed: dict[int, list[int]] = {}
    for src, dst in edges([k for k, _ in lenders], [k for k, _ in ranked]):
        if src != dst and src in score_of and src not in owed.get(dst, []):
            owed.setdefault(dst, []).append(src)
    return {
        dst: Loan(fusion.LEND_SHARE * sum(score_of[src] for src in srcs), tuple(sorted(srcs, key=place.__getitem__)))
        for dst, srcs in owed.items()
    }
