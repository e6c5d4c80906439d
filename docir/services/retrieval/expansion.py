"""One hop along the successor links from the ranked documents: the one walk both stores take.

From each seed, in the seeds' order: the documents that succeed it first (a superseded decision
brings its successor), then those it replaces (seen with --include-inactive); each document once,
at most `limit` of them. Other links (relates-to, depends-on, ...) are not walked: measured on the
judged corpora, their documents were judged relevant 1 time in 100 and cost a third of what an
agent read (adr-34771fbec225); `get` shows every link of a document.
What a store holds is the caller's (the local index: edges and listings of visible documents;
the organisation store: published edges and listings); the order, the dedup and the cut are here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, NamedTuple, TypeVar

S = TypeVar("S")  # a seed
T = TypeVar("T")  # a document found one hop away

Direction = Literal["successor", "outgoing"]


class Hop(NamedTuple):
    kind: str  # the link's kind
    target: str  # the id it leads to
    direction: Direction  # "successor": the target succeeds the seed; "outgoing": the seed links to it


def hops_of(successors: Iterable[tuple[str, str]], related: Iterable[tuple[str, str]],
            successor_kinds: Iterable[str]) -> list[Hop]:
    """A seed's hops: its successors' (kind, source) first, then the (kind, target) of its own links of a
    successor kind (what it replaces); links of other kinds are not walked (see above)."""
    kinds = frozenset(successor_kinds)
    return [*(Hop(kind, source, "successor") for kind, source in successors),
            *(Hop(kind, target, "outgoing") for kind, target in related if kind in kinds)]


def one_hop(seeds: Sequence[S], hops: Callable[[S], list[Hop]],
            found: Callable[[set[str]], Mapping[str, T]], *, seen: Iterable[str] = (),
            limit: int) -> list[tuple[S, Hop, T]]:
    """(seed, hop, document) for each document one hop from the seeds, in order, each once: `hops(seed)`
    names a seed's links, successors first; `found(ids)` gives the documents the store shows among
    them (a missing one is passed over); ids in `seen` are never returned."""
    walked = [(seed, hops(seed)) for seed in seeds]
    shown = found({hop.target for _, mine in walked for hop in mine})
    taken = set(seen)
    out: list[tuple[S, Hop, T]] = []
    for seed, mine in walked:
        for hop in mine:
            item = shown.get(hop.target)
            if item is None or hop.target in taken:
                continue
            taken.add(hop.target)
            out.append((seed, hop, item))
            if len(out) >= limit:
                return out
    return out
