"""Ranking for `docir context`: lexical and vector rankings, fused, then expanded along the graph.

1. Lexical: FTS5 bm25 (column-weighted), visible documents only.
2. Vector: cosine of the query with every document and section vector; each
   document keeps its best candidate *before* fusion, and remembers which
   section won (`matched_section`).
3. Reciprocal rank fusion of the two. `score` is that rank-derived number;
   `similarity` is the winning raw cosine, the one number with absolute meaning.
4. One visibility predicate filters both rankings and the expansion.
5. Expansion follows outgoing edges and incoming successor edges, successors
   first, so a decision's replacement comes along with it.
6. With several queries, pooling decides each document's numbers and the
   queries take turns at the head of the order.

Reference chunks join the same fusion: their own bm25 ranking (a separate
FTS table) and the shared vector ranking, where cosines are comparable.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

import numpy as np

from docir.index.fts import match_expression, query_terms
from docir.index.records import Listing, StoredRefChunk, VectorSet
from docir.index.vectors import cosine
from docir.services.indexing.session import Session
from docir.services.retrieval import fusion
from docir.services.retrieval.reads import visible_hits
from docir.services.retrieval.results import ContextHit, ContextResult, ContextRow, ExplainedHit, ReferenceHit, Via
from docir.services.retrieval.skeleton import cost, skeleton
from docir.services.retrieval.visibility import Visibility
from docir.services.vectors.query_source import QuerySource

CANDIDATES = 60  # per ranking; past this a rank adds under 1/70 (k=10): not worth fetching

Key = tuple[str, int]  # ("doc", rowid) or ("ref", chunk rowid)


@dataclass
class Candidate:
    """One document's (or reference chunk's) standing for one query."""

    key: Key
    listing: Listing | None = None
    ref: StoredRefChunk | None = None
    lexical_rank: int | None = None
    vector_rank: int | None = None
    bm25: float | None = None
    coverage: float = 1.0  # share of the task's terms it contains (lexical candidates)
    similarity: float | None = None
    ordinal: int | None = None  # winning chunk of a document; -1 = its document vector
    score: float = 0.0


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
    query_vectors = None
    pending = sections_pending = 0
    if mode != "lexical" and source.model_id is not None:
        vectors = _cached_vectors(session, source.model_id, refs)
        query_vectors = source.embed(queries)
        # Fused with whatever vectors exist: a document whose sections are still due ranks by its document vector.
        sections_pending = session.catalog.vectors.sections_due(source.model_id)
        pending = session.catalog.vectors.queue_counts(source.model_id)[0] - sections_pending
    per_query: list[list[Candidate]] = []
    for index, text in enumerate(queries):
        lexical: list[Candidate] = []
        if mode != "vector":
            lexical = [Candidate(("doc", h.rowid), bm25=h.bm25)
                       for h in visible_hits(session, text, visibility, CANDIDATES)]
            per_kind = [_with_coverage(session, text, lexical, "documents_fts")]
            if refs:
                per_kind.append(_with_coverage(session, text, _ref_lexical(session, text), "ref_fts"))
        else:
            per_kind = []
        vector = (_vector_ranking(session, vectors, query_vectors[index], visibility)
                  if vectors is not None and query_vectors is not None else [])
        per_query.append(fuse(per_kind, vector))
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
    return ContextResult(results, source.status, queries, pending, sections_pending)


def fuse(lexical_rankings: list[list[Candidate]], vector_ranking: list[Candidate]) -> list[Candidate]:
    """Reciprocal rank fusion: every ranking gives weight/(k + rank); a lexical rank counts in
    proportion to coverage**3, so matching one incidental word of the task is worth little."""
    by_key: dict[Key, Candidate] = {}
    for ranking in lexical_rankings:
        for rank, cand in enumerate(ranking, start=1):
            mine = by_key.setdefault(cand.key, cand)
            mine.lexical_rank, mine.bm25, mine.coverage = rank, cand.bm25, cand.coverage
            mine.score += fusion.rank_score(rank, fusion.LEXICAL_WEIGHT * cand.coverage ** fusion.COVERAGE_POWER)
    for rank, cand in enumerate(vector_ranking, start=1):
        mine = by_key.setdefault(cand.key, cand)
        mine.listing, mine.ref = mine.listing or cand.listing, mine.ref or cand.ref
        mine.vector_rank, mine.similarity, mine.ordinal = rank, cand.similarity, cand.ordinal
        mine.score += fusion.rank_score(rank, fusion.VECTOR_WEIGHT)
    return sorted(by_key.values(), key=lambda c: -c.score)


def _with_coverage(session: Session, text: str, ranked: list[Candidate], table: str) -> list[Candidate]:
    """Give each lexical candidate the share of the task's terms it contains."""
    terms = query_terms(text)
    if not ranked or len(terms) < 2:
        return ranked
    matches = session.catalog.search.term_rowids(terms, [c.key[1] for c in ranked], table)
    for cand in ranked:
        cand.coverage = sum(1 for rows in matches if cand.key[1] in rows) / len(terms)
    return ranked


def _ref_lexical(session: Session, text: str) -> list[Candidate]:
    match = match_expression(text)
    if match is None:
        return []
    hits = session.catalog.search.ref_lexical_hits(match, CANDIDATES)
    chunks = {c.rowid: c for c in session.catalog.refs.chunks(rowids=[h.rowid for h in hits])}
    return [Candidate(("ref", h.rowid), ref=chunks[h.rowid], bm25=h.bm25) for h in hits if h.rowid in chunks]


def _vector_ranking(session: Session, vectors: _Vectors, query: np.ndarray, visibility: Visibility) -> list[Candidate]:
    """Visible documents by their best cosine (document or section vector), with reference chunks on the same scale."""
    found: list[Candidate] = []
    sims = cosine(vectors.docs.matrix, query)
    best: dict[int, tuple[float, int]] = {}  # each document's best candidate, kept before fusion
    for index in np.argsort(-sims)[: CANDIDATES * 8]:
        rowid = vectors.docs.rowids[index]
        if rowid not in best:
            best[rowid] = (float(sims[index]), vectors.docs.ordinals[index])
    order = list(best)
    for start in range(0, len(order), CANDIDATES):
        seen = session.catalog.docs.visibility_rows(order[start : start + CANDIDATES])
        for rowid in order[start : start + CANDIDATES]:
            row = seen.get(rowid)
            if row is not None and visibility.allows(*row):
                sim, ordinal = best[rowid]
                found.append(Candidate(("doc", rowid), similarity=sim, ordinal=ordinal))
        if len(found) >= CANDIDATES:
            break
    if vectors.refs is not None and vectors.refs.rowids:
        ref_sims = cosine(vectors.refs.matrix, query)
        top = [int(i) for i in np.argsort(-ref_sims)[:CANDIDATES]]
        chunks = {c.rowid: c for c in session.catalog.refs.chunks(rowids=[vectors.refs.rowids[i] for i in top])}
        for i in top:
            rowid = vectors.refs.rowids[i]
            if rowid in chunks:
                found.append(Candidate(("ref", rowid), ref=chunks[rowid], similarity=float(ref_sims[i])))
    found.sort(key=lambda c: -(c.similarity or 0.0))
    return found[:CANDIDATES]


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
    """Pool each candidate's numbers over all queries; order by the queries taking turns."""
    pooled: dict[Key, Candidate] = {}
    for ranking in per_query:
        for cand in ranking:
            seen = pooled.get(cand.key)
            if seen is None:
                pooled[cand.key] = Candidate(**cand.__dict__)
                continue
            seen.score = max(seen.score, cand.score)
            if cand.similarity is not None and (seen.similarity is None or cand.similarity > seen.similarity):
                seen.similarity, seen.ordinal, seen.vector_rank = cand.similarity, cand.ordinal, cand.vector_rank
            if cand.lexical_rank is not None and (seen.lexical_rank is None or cand.lexical_rank < seen.lexical_rank):
                seen.lexical_rank, seen.bm25 = cand.lexical_rank, cand.bm25
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


def _entry(session: Session, cand: Candidate, explain: bool, queries: list[str]) -> ContextRow:
    if cand.ref is not None:
        return _ref_entry(cand, explain, queries)
    assert cand.listing is not None
    similarity = None if cand.similarity is None else round(cand.similarity, 4)
    chunk = None
    if cand.ordinal not in (None, -1):
        chunk = session.catalog.vectors.chunk_rows(cand.listing.rowid).get(cand.ordinal)
    section = chunk.section if chunk is not None and chunk.section else None
    entry: ContextHit = {
        **skeleton(cand.listing, session.schema, session.today),
        "kind": "document",
        "score": round(cand.score, 6),
        "similarity": similarity,
        "matched_section": section,
        "matched_section_size": cost(chunk.end - chunk.start) if section and chunk else None,
        "via": None,
    }
    if explain:
        text = ""
        if chunk is not None:
            text = session.catalog.docs.body_of(cand.listing.rowid)[chunk.start : chunk.end].strip()
        return ExplainedHit(
            **entry,
            explain={
                "lexical_rank": cand.lexical_rank,
                "vector_rank": cand.vector_rank,
                "fts_score": None if cand.bm25 is None else round(-cand.bm25, 4),
                "coverage": round(cand.coverage, 3) if cand.lexical_rank is not None else None,
                "similarity": similarity,
                "matched_terms": _matched_terms(session, cand.listing.rowid, queries),
                "chunk": {"heading": chunk.heading, "continuation": chunk.continuation, "text": text[:600]}
                if chunk is not None
                else ({"heading": None, "text": "(document vector)"} if cand.ordinal == -1 else None),
            },
        )
    return entry


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
        "score": round(cand.score, 6),
        "similarity": similarity,
        "via": None,
    }
    if explain:
        terms = list(dict.fromkeys(t for q in queries for t in query_terms(q)))
        lowered = chunk.text.lower()
        entry["explain"] = {
            "lexical_rank": cand.lexical_rank,
            "vector_rank": cand.vector_rank,
            "fts_score": None if cand.bm25 is None else round(-cand.bm25, 4),
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
