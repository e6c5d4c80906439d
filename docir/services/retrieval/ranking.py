"""Ranking for `docir context`: lexical and vector rankings, fused, then expanded along the graph.

1. Lexical (retrieval/lexical.py): every heading section by bm25, a document taking its best
   section's place; and the task's adjacent words close together (NEAR). Visible documents only.
2. Vector: cosine of the query with every document and section vector; each
   document keeps its best candidate *before* fusion, and remembers which section won.
3. Fusion (retrieval/fusion.py): each ranking's raw scores become z-scores over its own
   candidates, lexical ones weighted by the share of the task's terms a document contains,
   and the fused score is their sum (adr-78d1238b4ae2). `similarity` is the winning raw
   cosine, the one number with absolute meaning. `matched_section` is the section of the side
   that contributed more: the best-matching section lexically, or the winning section vector.
4. One visibility predicate filters every ranking and the expansion.
5. Expansion follows outgoing edges and incoming successor edges, successors
   first, so a decision's replacement comes along with it.
6. Lending (retrieval/lending.py): a candidate that the best candidates build on (depends-on,
   implements, resolves) gains a share of their fused scores (adr-4716947e3ea9).
7. With several queries, pooling decides each document's numbers and the
   queries take turns at the head of the order.

Reference chunks join the same fusion: their own bm25 ranking (a separate
FTS table) and the shared vector ranking, where cosines are comparable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from docir.documents.visible import Visible
from docir.index.fts import query_terms
from docir.index.records import Listing, SectionHit, VectorSet
from docir.index.ref_records import StoredRefChunk
from docir.index.vectors import cosine
from docir.services.indexing.session import Session
from docir.services.retrieval import background, fusion, lending, lexical
from docir.services.retrieval.lending import Loan
from docir.services.retrieval.lexical import CANDIDATES, LexicalCandidate, Standing
from docir.services.retrieval.results import (
    ContextHit,
    ContextResult,
    ContextRow,
    ExplainedHit,
    ReferenceHit,
    Size,
    Via,
)
from docir.services.retrieval.skeleton import cost, skeleton
from docir.services.retrieval.visibility import Visibility
from docir.services.vectors.query_source import QuerySource

Key = tuple[str, int]  # ("doc", rowid) or ("ref", chunk rowid)


@dataclass
class Candidate:
    """One document's (or reference chunk's) standing for one query."""

    key: Key
    listing: Listing | None = None
    ref: StoredRefChunk | None = None
    lexical: LexicalCandidate | None = None  # a document's lexical rankings
    ref_lexical: Standing | None = None  # a reference chunk's bm25 ranking
    ref_coverage: float = 1.0
    vector: Standing | None = None
    ordinal: int | None = None  # winning chunk of a document; -1 = its document vector
    loan: Loan | None = None  # what the candidates that build on this document lend it

    @property
    def similarity(self) -> float | None:
        return None if self.vector is None else self.vector.raw

    @property
    def lexical_part(self) -> float:
        if self.lexical is not None:
            return self.lexical.score
        if self.ref_lexical is not None:
            return fusion.lexical_part(fusion.SECTION_WEIGHT, self.ref_coverage, self.ref_lexical.z)
        return 0.0

    @property
    def vector_part(self) -> float:
        return 0.0 if self.vector is None else fusion.VECTOR_WEIGHT * self.vector.z

    @property
    def loan_part(self) -> float:
        return 0.0 if self.loan is None else self.loan.amount

    @property
    def score(self) -> float:
        return self.lexical_part + self.vector_part + self.loan_part


@dataclass
class _Vectors:
    docs: VectorSet
    refs: VectorSet | None
    _rows_of: dict[int, list[int]] | None = None

    def rows_of(self, rowid: int) -> list[int]:
        """Matrix rows of one document (its document vector and sections), indexed once per matrix."""
        if self._rows_of is None:
            self._rows_of = defaultdict(list)
            for position, doc in enumerate(self.docs.rowids):
                self._rows_of[doc].append(position)
        return self._rows_of.get(rowid, [])


def context(session: Session, queries: list[str], source: QuerySource, *, limit: int = 8, expand: bool = True,
            explain: bool = False, include_inactive: bool = False, mode: str = "fused",
            refs: bool = True) -> ContextResult:
    """The few documents that matter for the task(s), as skeletons; see the module docstring."""
    visibility = Visibility.from_schema(session.schema, include_inactive)
    vectors: _Vectors | None = None
    embedded: Callable[[], np.ndarray] | None = None
    query_vectors = None
    pending = sections_pending = 0
    if mode != "lexical" and source.model_id is not None:
        # The model embeds the tasks while SQLite ranks them by their words: both let go of the GIL.
        embedded = background.start(source.embed, queries)
        vectors = _cached_vectors(session, source.model_id, refs)
        # Fused with whatever vectors exist: a document whose sections are still due ranks by its document vector.
        pending, sections_pending = session.catalog.vectors.waiting(source.model_id)
    lexical_sides: list[tuple[list[LexicalCandidate], list[Candidate]]] = [
        (lexical.rank_documents(session, text, visibility), _ref_lexical(session, text) if refs else [])
        if mode != "vector" else ([], []) for text in queries]
    if embedded is not None:
        query_vectors = embedded()
    per_query: list[list[Candidate]] = []
    for index, (docs, references) in enumerate(lexical_sides):
        vector = (_vector_ranking(session, vectors, query_vectors[index], visibility)
                  if vectors is not None and query_vectors is not None else [])
        fused = fuse(docs, references, vector)
        # The single-side modes measure one ranking each (benchmarks/quality); lending is fusion's.
        per_query.append(_with_loans(session, fused) if mode == "fused" else fused)
    ordered = _take_turns(per_query, limit)
    # Full listings only for what is shown: candidates needed no more than their visibility.
    listings = session.catalog.docs.listings_by_rowid(c.key[1] for c in ordered if c.key[0] == "doc")
    for cand in ordered:
        if cand.key[0] == "doc":
            cand.listing = listings[cand.key[1]]
    results = [_entry(session, cand, explain, queries) for cand in ordered]
    if expand:
        seeds = [c for c in ordered if c.listing is not None]
        results.extend(_expand(session, seeds, visibility, vectors, query_vectors, limit))
    return ContextResult(results, source.status, queries, pending=pending, sections_pending=sections_pending)


def fuse(docs: list[LexicalCandidate], references: list[Candidate], vector: list[Candidate]) -> list[Candidate]:
    """The sum of each ranking's z-scores (fusion.py); ties keep the lexical, then the vector order."""
    by_key: dict[Key, Candidate] = {}
    order: dict[Key, int] = {}
    for position, lex in enumerate(docs):
        key = ("doc", lex.rowid)
        by_key[key] = Candidate(key, lexical=lex)
        order[key] = position
    for cand in references:
        by_key[cand.key] = cand
        order.setdefault(cand.key, len(order))
    for cand in vector:
        mine = by_key.setdefault(cand.key, cand)
        mine.ref = mine.ref or cand.ref
        mine.vector, mine.ordinal = cand.vector, cand.ordinal
        order.setdefault(cand.key, len(order))
    return sorted(by_key.values(), key=lambda c: (-c.score, order[c.key]))


def _with_loans(session: Session, ranked: list[Candidate]) -> list[Candidate]:
    """The fused ranking with each document's loan from the candidates that build on it, reordered."""
    owed = lending.loans(session, [(c.key[1], c.score) for c in ranked if c.key[0] == "doc"])
    if not owed:
        return ranked
    for cand in ranked:
        if cand.key[0] == "doc":
            cand.loan = owed.get(cand.key[1])
    order = {c.key: position for position, c in enumerate(ranked)}
    return sorted(ranked, key=lambda c: (-c.score, order[c.key]))


def _ref_lexical(session: Session, text: str) -> list[Candidate]:
    ranked = lexical.rank_references(session, text)
    chunks = {c.rowid: c for c in session.catalog.refs.chunks(rowids=[h.rowid for h, _, _ in ranked])}
    return [Candidate(("ref", h.rowid), ref=chunks[h.rowid], ref_lexical=standing, ref_coverage=coverage)
            for h, standing, coverage in ranked if h.rowid in chunks]


def _vector_ranking(session: Session, vectors: _Vectors, query: np.ndarray, visibility: Visibility) -> list[Candidate]:
    """Visible documents by their best cosine (document or section vector), with reference chunks on the same scale."""
    found: list[tuple[Candidate, float]] = []
    sims = cosine(vectors.docs.matrix, query)
    best: dict[int, tuple[float, int]] = {}  # each document's best candidate, kept before fusion
    for index in np.argsort(-sims)[: CANDIDATES * 8]:
        rowid = vectors.docs.rowids[index]
        if rowid not in best:
            best[rowid] = (float(sims[index]), vectors.docs.ordinals[index])
    for rowid in lexical.visible_in_order(session, list(best), visibility, CANDIDATES):
        sim, ordinal = best[rowid]
        found.append((Candidate(("doc", rowid), ordinal=ordinal), sim))
    if vectors.refs is not None and vectors.refs.rowids:
        ref_sims = cosine(vectors.refs.matrix, query)
        top = [int(i) for i in np.argsort(-ref_sims)[:CANDIDATES]]
        chunks = {c.rowid: c for c in session.catalog.refs.chunks(rowids=[vectors.refs.rowids[i] for i in top])}
        for i in top:
            rowid = vectors.refs.rowids[i]
            if rowid in chunks:
                found.append((Candidate(("ref", rowid), ref=chunks[rowid]), float(ref_sims[i])))
    found.sort(key=lambda pair: -pair[1])
    found = found[:CANDIDATES]
    zs = fusion.zscores([sim for _, sim in found])
    for rank, ((cand, sim), z) in enumerate(zip(found, zs, strict=True), start=1):
        cand.vector = Standing(rank, sim, z)
    return [cand for cand, _ in found]


# Long-lived processes (the worker, the MCP server) keep the vector matrix until it changes.
_VECTOR_CACHE: dict[tuple[str, str, bool], tuple[int, _Vectors]] = {}


def _cached_vectors(session: Session, model_id: str, refs: bool) -> _Vectors:
    key = (str(session.store.index_path), model_id, refs)
    generation = session.catalog.vectors.generation()
    cached = _VECTOR_CACHE.get(key)
    if cached is not None and cached[0] == generation:
        return cached[1]
    vectors = _Vectors(session.catalog.vectors.vector_set(model_id),
                       session.catalog.refs.vector_set(model_id) if refs else None)
    _VECTOR_CACHE[key] = (generation, vectors)
    return vectors


def _take_turns(per_query: list[list[Candidate]], limit: int) -> list[Candidate]:
    """Pool each candidate's numbers over all queries (its strongest evidence from each side);
    order by the queries taking turns."""
    if len(per_query) == 1:  # nothing to pool: one ranking, in its own order
        return per_query[0][:limit]
    pooled: dict[Key, Candidate] = {}
    for ranking in per_query:
        for cand in ranking:
            seen = pooled.get(cand.key)
            if seen is None:
                pooled[cand.key] = replace(cand)
                continue
            if cand.vector_part > seen.vector_part or (seen.vector is None and cand.vector is not None):
                seen.vector, seen.ordinal = cand.vector, cand.ordinal
            if cand.lexical_part > seen.lexical_part:
                seen.lexical, seen.ref_lexical, seen.ref_coverage = cand.lexical, cand.ref_lexical, cand.ref_coverage
            if cand.loan_part > seen.loan_part:
                seen.loan = cand.loan
    order: list[Candidate] = []
    taken: set[Key] = set()
    cursors = [0] * len(per_query)
    while len(order) < limit and any(c < len(r) for c, r in zip(cursors, per_query, strict=True)):
        for q, ranking in enumerate(per_query):
            while cursors[q] < len(ranking) and ranking[cursors[q]].key in taken:
                cursors[q] += 1
            if cursors[q] < len(ranking) and len(order) < limit:
                key = ranking[cursors[q]].key
                taken.add(key)
                order.append(pooled[key])
    return order


def _section_cost(session: Session, listing: Listing, start: int, end: int) -> Size:
    """What `get --section` of this span costs, and how much of it is comments (only a document
    with comments is read again to count them)."""
    if not listing.hidden:
        return cost(end - start)
    return cost(end - start, Visible.of(session.catalog.docs.body_of(listing.rowid)).hidden_bytes(start, end))


def _entry(session: Session, cand: Candidate, explain: bool, queries: list[str]) -> ContextRow:
    if cand.ref is not None:
        return _ref_entry(cand, explain, queries)
    assert cand.listing is not None
    similarity = None if cand.similarity is None else round(cand.similarity, 4)
    chunk = None
    if cand.ordinal not in (None, -1):
        chunk = session.catalog.vectors.chunk_rows(cand.listing.rowid).get(cand.ordinal)
    best = cand.lexical.best_section if cand.lexical is not None else None
    section: str | None = None
    size: Size | None = None
    lexical_section = cand.lexical.section_part if cand.lexical is not None else 0.0
    span: tuple[int, int] | None = None
    if chunk is not None and chunk.section and (cand.vector_part >= lexical_section or best is None or not best.path):
        section, span = chunk.section, (chunk.start, chunk.end)
    elif best is not None and best.path:
        section, span = best.path[-1], (best.start, best.end)
    if span is not None:
        size = _section_cost(session, cand.listing, *span)
    entry: ContextHit = {
        **skeleton(cand.listing, session.schema, session.today),
        "kind": "document",
        "score": round(cand.score, 4),
        "similarity": similarity,
        "matched_section": section,
        "matched_section_size": size,
        "via": None,
    }
    if explain:
        text = ""
        if chunk is not None:
            text = session.catalog.docs.body_of(cand.listing.rowid)[chunk.start : chunk.end].strip()
        lex = cand.lexical
        return ExplainedHit(
            **entry,
            explain={
                "lexical_rank": lex.section.rank if lex is not None and lex.section is not None else None,
                "vector_rank": cand.vector.rank if cand.vector is not None else None,
                "fts_score": round(lex.section.raw, 4) if lex is not None and lex.section is not None else None,
                "coverage": round(lex.coverage, 3) if lex is not None else None,
                "similarity": similarity,
                "matched_terms": _matched_terms(session, cand.listing.rowid, queries),
                "rankings": _rankings(session, cand, chunk.section if chunk is not None else None),
                "contributions": {
                    "sections": round(lex.section_part, 4) if lex is not None else 0.0,
                    "near": round(lex.near_part, 4) if lex is not None else 0.0,
                    "vector": round(cand.vector_part, 4),
                    "lent": round(cand.loan_part, 4),
                },
                "chunk": {"heading": chunk.heading, "continuation": chunk.continuation, "text": text[:600]}
                if chunk is not None
                else ({"heading": None, "text": "(document vector)"} if cand.ordinal == -1 else None),
            },
        )
    return entry


def _rankings(session: Session, cand: Candidate, vector_section: str | None) -> dict[str, Any]:
    """Each ranking's view of a document: its place, its raw score and how far it stood above the rest;
    and which candidates lent it part of their score."""
    out: dict[str, Any] = {}
    lex = cand.lexical
    if lex is not None and lex.section is not None:
        out["sections"] = {**_standing(lex.section, "bm25"), "section": _section_name(lex.best_section)}
    if lex is not None and lex.near is not None:
        out["near"] = _standing(lex.near, "bm25")
    if cand.vector is not None:
        out["vector"] = {**_standing(cand.vector, "cosine"), "section": vector_section}
    if cand.loan is not None:
        lenders = session.catalog.docs.listings_by_rowid(cand.loan.lenders)
        out["lent_by"] = [lenders[rowid].id for rowid in cand.loan.lenders if rowid in lenders]
    return out


def _standing(standing: Standing, raw: str) -> dict[str, Any]:
    return {"rank": standing.rank, raw: round(standing.raw, 4), "z": round(standing.z, 3)}


def _section_name(hit: SectionHit | None) -> str | None:
    return " > ".join(hit.path) if hit is not None and hit.path else None


def _ref_entry(cand: Candidate, explain: bool, queries: list[str]) -> ReferenceHit:
    assert cand.ref is not None
    chunk = cand.ref.chunk
    similarity = None if cand.similarity is None else round(cand.similarity, 4)
    entry: ReferenceHit = {
        "kind": "reference",
        "id": chunk.id,
        "ref": cand.ref.ref,
        "title": chunk.heading_path[-1],
        "heading_path": list(chunk.heading_path),
        "source_uri": cand.ref.source_uri,
        "continuation": chunk.continuation,
        "size": cost(len(chunk.text.encode("utf-8"))),
        "score": round(cand.score, 4),
        "similarity": similarity,
        "via": None,
    }
    if explain:
        terms = list(dict.fromkeys(t for q in queries for t in query_terms(q)))
        lowered = chunk.text.lower()
        lex, vec = cand.ref_lexical, cand.vector
        entry["explain"] = {
            "lexical_rank": lex.rank if lex else None,
            "vector_rank": vec.rank if vec else None,
            "fts_score": round(lex.raw, 4) if lex else None,
            "contributions": {"sections": round(cand.lexical_part, 4), "vector": round(cand.vector_part, 4)},
            "similarity": similarity,
            "matched_terms": [t for t in terms if t in lowered],
            "chunk": {"heading": " > ".join(chunk.heading_path), "text": chunk.text[:600]},
        }
    return entry


def _matched_terms(session: Session, rowid: int, queries: list[str]) -> list[str]:
    terms = list(dict.fromkeys(t for q in queries for t in query_terms(q)))
    return [t for t in terms if session.catalog.search.term_matches(rowid, t)]


def _expand(
    session: Session,
    seeds: list[Candidate],
    visibility: Visibility,
    vectors: _Vectors | None,
    query_vectors: np.ndarray | None,
    limit: int,
) -> list[ContextHit]:
    """One hop from each seed: incoming successor edges first, then outgoing edges."""
    seen = {c.listing.id for c in seeds if c.listing is not None}
    successor_kinds = session.schema.successor_kinds
    out: list[ContextHit] = []
    for seed in seeds:
        assert seed.listing is not None
        hops: list[tuple[str, str, Literal["successor", "outgoing"]]] = [
            (kind, src, "successor") for kind, src in session.catalog.docs.edges_to(seed.listing.id, successor_kinds)
        ]
        hops += [(kind, dst, "outgoing") for kind, dst in session.catalog.docs.edges_from(seed.listing.id)]
        targets = session.catalog.docs.listings_by_ids(doc_id for _, doc_id, _ in hops)
        for kind, doc_id, direction in hops:
            item = targets.get(doc_id)
            if item is None or doc_id in seen or not visibility.allows(item.type, item.status, item.archived):
                continue
            seen.add(doc_id)
            similarity = None
            rows = vectors.rows_of(item.rowid) if vectors is not None and query_vectors is not None else []
            if rows and query_vectors is not None and vectors is not None:
                similarity = round(float(np.max(vectors.docs.matrix[rows] @ query_vectors.T)), 4)
            out.append(
                {
                    **skeleton(item, session.schema, session.today),
                    "kind": "document",
                    "score": None,
                    "similarity": similarity,
                    "matched_section": None,
                    "matched_section_size": None,
                    "via": Via(id=seed.listing.id, kind=kind, direction=direction),
                }
            )
            if len(out) >= limit:
                return out
    return out
