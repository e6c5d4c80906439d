"""The lexical side of ranking: every heading section by bm25, and the task's word pairs close together.

Both `docir search` and `docir context` rank with it (adr-78d1238b4ae2). A long
document is as strong as its best section, so the one section that answers is not
diluted by thirty others; the proximity ranking rewards documents where adjacent
words of the task ("priority fee") stand together. Each ranking's raw scores are
turned into z-scores over its own candidates (fusion.zscores), so a ranking whose
top stands far above the rest speaks louder, and each document's lexical evidence
counts in proportion to the share of the task's terms it contains (coverage).
Pure Python: `docir search` never loads numpy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from docir.index.changes import Kept
from docir.index.fts import (
    CANDIDATES,
    GATE_FROM_SECTIONS,
    SECTION_GATE,
    SECTIONS_PER_DOCUMENT,
    match_expression,
    near_expression,
    query_terms,
)
from docir.index.records import Hit, SectionHit
from docir.index.search import DocumentCounts
from docir.services.indexing.session import Session
from docir.services.retrieval import fusion
from docir.services.retrieval.visibility import Visibility

# Every document's visibility, in a long-lived process: one read per change of the index, not one per ranking.
_VISIBILITY: Kept[dict[int, tuple[str, str, bool]]] = Kept()
# And the document counts of the task words seen so far, which tell the weightless ones.
_COUNTS: Kept[DocumentCounts] = Kept()


class Standing(NamedTuple):
    """One ranking's view of one document (or reference chunk)."""

    rank: int
    raw: float  # the ranking's own number: negated bm25 (higher is better) or a cosine
    z: float = 0.0  # how far above this ranking's candidates it stands, in standard deviations (floored at 0)


class LexicalCandidate:
    """A document's lexical rankings, filled in as they are read.

    A plain class, not a dataclass: a cold search must not pay for importing dataclasses (docir/request_options.py).
    """

    __slots__ = ("rowid", "section", "near", "best_section", "coverage")

    def __init__(self, rowid: int, section: Standing | None = None, near: Standing | None = None,
                 best_section: SectionHit | None = None, coverage: float = 1.0) -> None:
        self.rowid = rowid
        self.section = section
        self.near = near
        self.best_section = best_section
        self.coverage = coverage  # share of the task's terms the document contains

    def __repr__(self) -> str:
        return (f"LexicalCandidate(rowid={self.rowid}, section={self.section}, near={self.near}, "
                f"coverage={self.coverage})")

    @property
    def section_part(self) -> float:
        return fusion.lexical_part(fusion.SECTION_WEIGHT, self.coverage, self.section.z if self.section else 0.0)

    @property
    def near_part(self) -> float:
        return fusion.lexical_part(fusion.NEAR_WEIGHT, self.coverage, self.near.z if self.near else 0.0)

    @property
    def score(self) -> float:
        return self.section_part + self.near_part

    @property
    def fts_score(self) -> float:
        """The negated bm25 of the best-matching section (or of the closest word pairs, if no section matched)."""
        standing = self.section or self.near
        return standing.raw if standing is not None else 0.0


def rank_documents(session: Session, text: str, visibility: Visibility,
                   limit: int = CANDIDATES) -> list[LexicalCandidate]:
    """Visible documents by their lexical evidence, best first (at most about 2 x `limit`)."""
    form = LexicalLists(session, text, visibility, limit)
    return form.ranked(session, form.sections(session), form.pairs(session)) if form.searchable else []


Sections = tuple[list[tuple[int, float]], dict[int, SectionHit]]  # (rowid, raw) best first; each one's best section


class LexicalLists:
    """One text's two lexical lists, each read on its own, then joined (`ranked`): the same documents in the
    same order as read one after the other. `sections` and `pairs` may run at once on two sessions of one
    index (their own connections), so that the lists of several forms share the cores
    (local_ranking._lexical_sides).

    `leave_common`: in a big index, the text's common words (LexicalSearch.common) are left out of both
    lists and of the coverage, unless every word is common; a pair is kept while one of its words is not
    common. A sketch's lists are read so (adr-1d4f30c33f26)."""

    def __init__(self, session: Session, text: str, visibility: Visibility, limit: int = CANDIDATES, *,
                 leave_common: bool = False) -> None:
        self.text, self.visibility = text, visibility
        self.wanted = max(limit, CANDIDATES)
        terms = query_terms(text)
        # Only a big index pays for finding the weightless words: in a small one the lean queries
        # seldom fill their lists, and each then runs twice.
        self.big = bool(terms) and session.catalog.search.section_count() > GATE_FROM_SECTIONS
        self.common: frozenset[str] = frozenset()
        self._weightless: frozenset[str] | None = None
        if leave_common and self.big:  # the weightless words too, from the same counts: both lists need them
            self.common, self._weightless = session.catalog.search.common_and_weightless(
                terms, _COUNTS.get(session.catalog.stamp(), DocumentCounts))
        self.words = terms  # every word of the text, those its NEAR pairs are made of too
        self.terms = [term for term in terms if term not in self.common]  # those the lists and coverage count
        self.match = match_expression(text, self.common)
        self.searchable = self.match is not None
        self._finding = threading.Lock()  # both lists need the weightless words: they are read once

    def weightless(self, session: Session) -> frozenset[str]:
        """The task's words bm25 gives no weight in documents_fts, in a big index (none in a small one).
        The task's terms hold every word its NEAR pairs are made of."""
        with self._finding:
            if self._weightless is None:
                counts = _COUNTS.get(session.catalog.stamp(), DocumentCounts) if self.big else None
                self._weightless = session.catalog.search.weightless(self.words, counts) if self.big else frozenset()
            return self._weightless

    def sections(self, session: Session) -> Sections:
        """Every document's best section by bm25, visible documents only, best first (in a big index, of the
        documents the gate lets through)."""
        if self.match is None:
            return [], {}
        lean = match_expression(self.text, self.common | self.weightless(session)) if self.big else None
        gate = _gate(session, self.match, lean, self.visibility, self.wanted) if self.big else None
        search = session.catalog.search
        best = {hit.doc: hit for hit in search.best_sections(self.match, self.wanted * SECTIONS_PER_DOCUMENT, gate)}
        order = visible_in_order(session, list(best), self.visibility, self.wanted)
        return [(rowid, -best[rowid].bm25) for rowid in order], best

    def pairs(self, session: Session) -> list[tuple[int, float]]:
        """The documents where the task's adjacent words stand close together, visible ones only, best first."""
        near = near_expression(self.text, weightless=self.common)
        if near is None:
            return []
        # Leaving common words out, a pair of a weightless word and a common one still weighs: no lean list.
        lean = near if self.common else near_expression(self.text, weightless=self.weightless(session))
        hits = _filled(session.catalog.search.near_hits, lean, near, self.wanted * 2)
        bm25 = {h.rowid: h.bm25 for h in hits}
        order = visible_in_order(session, [h.rowid for h in hits], self.visibility, self.wanted)
        return [(rowid, -bm25[rowid]) for rowid in order]

    def ranked(self, session: Session, sections: Sections, pairs: list[tuple[int, float]]) -> list[LexicalCandidate]:
        """Both lists as one candidate a document, each counted by its coverage of the task's terms."""
        found, best = sections
        by_doc = candidates(found, pairs)
        for rowid, _ in found:
            by_doc[rowid].best_section = best[rowid]
        coverage = term_coverage(session, self.terms, list(by_doc), "documents_fts")
        for cand in by_doc.values():
            cand.coverage = coverage.get(cand.rowid, 1.0)
        return in_order(by_doc.values())


def candidates(sections: Sequence[tuple[int, float]],
               pairs: Sequence[tuple[int, float]]) -> dict[int, LexicalCandidate]:
    """The two lexical lists of a store, each (key, raw score) visible and best first, as one candidate a
    document: each list's raw scores become z-scores over its own candidates. The local index's lists
    and the organisation store's meet here, so both rank a document by the same rule (adr-78d1238b4ae2);
    each store then sets the coverage it counted."""
    by_key: dict[int, LexicalCandidate] = {}
    for rank, key, z in _standings([raw for _, raw in sections], [key for key, _ in sections]):
        by_key[key] = LexicalCandidate(key, section=Standing(rank, sections[rank - 1][1], z))
    for rank, key, z in _standings([raw for _, raw in pairs], [key for key, _ in pairs]):
        by_key.setdefault(key, LexicalCandidate(key)).near = Standing(rank, pairs[rank - 1][1], z)
    return by_key


def in_order(found: Iterable[LexicalCandidate]) -> list[LexicalCandidate]:
    """Candidates best first; ties (all zero z: every candidate scored alike) keep the sections list's order."""
    return sorted(found, key=_order)


def _gate(session: Session, whole: str, lean: str | None, visibility: Visibility, wanted: int) -> list[int]:
    """In a big index, the documents whose sections are scored: the best by whole-document bm25 (the
    `whole` task's terms, or the `lean` ones without its weightless words, see `_filled`)."""
    size = max(wanted * 2, SECTION_GATE)
    hits = _filled(session.catalog.search.lexical_hits, lean, whole, 2 * size)
    return visible_in_order(session, [h.rowid for h in hits], visibility, size)


def _filled(query: Callable[[str, int], list[Hit]], lean: str | None, whole: str, limit: int) -> list[Hit]:
    """`query`'s first `limit` hits, read without the task's weightless words when that fills them.

    A word in half the documents or more weighs nothing in bm25 (`LexicalSearch.weightless`), so when
    `limit` documents match another word, they are the whole query's first `limit`, in the same order,
    and the weightless words' doclists (most of the work where a store's vocabulary is small) are never
    read. With fewer, documents that match only weightless words fill the list, and z-scores tell even
    their tiny scores apart (fusion.zscores), so the whole query runs.
    """
    if lean is not None and lean != whole:
        hits = query(lean, limit)
        if len(hits) >= limit:
            return hits
    return query(whole, limit)


def rank_references(session: Session, text: str, limit: int = CANDIDATES) -> list[tuple[Hit, Standing, float]]:
    """Reference chunks by bm25, each with its standing and its coverage of the task's terms."""
    match = match_expression(text)
    if match is None:
        return []
    hits = session.catalog.search.ref_lexical_hits(match, max(limit, CANDIDATES))
    coverage = term_coverage(session, query_terms(text), [h.rowid for h in hits], "ref_fts")
    return [(hits[rank - 1], Standing(rank, -hits[rank - 1].bm25, z), coverage.get(rowid, 1.0))
            for rank, rowid, z in _standings([-h.bm25 for h in hits], [h.rowid for h in hits])]


def term_coverage(session: Session, terms: list[str], rowids: list[int], table: str) -> dict[int, float]:
    """Each row's share of the task's terms (`query_terms`; 1.0 for every row of a one-term task)."""
    if not rowids or len(terms) < 2:
        return {}
    matches = session.catalog.search.term_rowids(terms, rowids, table)
    return {rowid: sum(1 for rows in matches if rowid in rows) / len(terms) for rowid in rowids}


def _standings(raw: Sequence[float], keys: Sequence[int]) -> list[tuple[int, int, float]]:
    """(rank, key, z) for a ranking's candidates in order."""
    return [(rank, key, z) for rank, (key, z) in enumerate(zip(keys, fusion.zscores(raw), strict=True), start=1)]


def visible_in_order(session: Session, rowids: list[int], visibility: Visibility, limit: int) -> list[int]:
    """The first `limit` of `rowids` (in order) that the visibility predicate lets through; every
    ranking filters its candidates here. Read in batches: most candidates are visible. A long-lived
    process reads every document's once per change of the index (index/changes.py)."""
    out: list[int] = []
    catalog = session.catalog
    now = catalog.stamp() if rowids else None
    every = _VISIBILITY.get(now, catalog.docs.every_visibility) if now is not None else None
    for start in range(0, len(rowids), limit):
        batch = rowids[start : start + limit]
        seen = every if every is not None else catalog.docs.visibility_rows(batch)
        for rowid in batch:
            row = seen.get(rowid)
            if row is not None and visibility.allows(*row):
                out.append(rowid)
                if len(out) >= limit:
                    return out
    return out


def _order(cand: LexicalCandidate) -> tuple[float, int]:
    # Ties (all zero z: every candidate scored alike) keep the section ranking's order.
    return (-cand.score, cand.section.rank if cand.section else 10**9)

