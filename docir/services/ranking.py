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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from docir.index.fts import query_terms
from docir.index.records import Listing, VectorSet
from docir.index.vectors import cosine
from docir.services.reads import RRF_K, lexical_ranking
from docir.services.semantic import QuerySource
from docir.services.session import Session
from docir.services.skeleton import skeleton
from docir.services.visibility import Visibility

CANDIDATES = 200  # ranks past this add under 1/(60+200) each: not worth fetching
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0


@dataclass
class Candidate:
    """One document's standing for one query."""

    listing: Listing
    lexical_rank: int | None = None
    vector_rank: int | None = None
    bm25: float | None = None
    similarity: float | None = None
    ordinal: int | None = None  # winning chunk; -1 = document vector
    score: float = 0.0


@dataclass
class ContextResult:
    results: list[dict[str, Any]]
    semantic: str  # "on" or "off: <reason>"
    queries: list[str] = field(default_factory=list)
    pending: int = 0  # documents whose vectors are not computed yet: found lexically meanwhile


def lexical(session: Session, text: str, visibility: Visibility) -> list[tuple[Listing, float]]:
    return lexical_ranking(session, text, visibility, CANDIDATES)


def vector_ranking(session: Session, vectors: VectorSet, query: np.ndarray, visibility: Visibility) -> list[tuple[Listing, float, int]]:
    """Visible documents by their best cosine (document or section vector): (listing, similarity, ordinal)."""
    sims = cosine(vectors.matrix, query)
    if sims.size == 0:
        return []
    best: dict[int, tuple[float, int]] = {}
    for index in np.argsort(-sims):
        rowid = vectors.rowids[index]
        if rowid not in best:
            best[rowid] = (float(sims[index]), vectors.ordinals[index])
            if len(best) >= CANDIDATES * 2:
                break
    listings = session.catalog.listings_by_rowid(best)
    ranked = []
    for rowid, (sim, ordinal) in best.items():
        item = listings.get(rowid)
        if item is not None and visibility.allows(item.type, item.status, item.archived):
            ranked.append((item, sim, ordinal))
            if len(ranked) >= CANDIDATES:
                break
    return ranked


def fuse(lexical_ranked: list[tuple[Listing, float]], vector_ranked: list[tuple[Listing, float, int]]) -> list[Candidate]:
    """Reciprocal rank fusion: each ranking gives 1/(k + rank); ties keep lexical order."""
    by_doc: dict[int, Candidate] = {}
    for rank, (item, bm25) in enumerate(lexical_ranked, start=1):
        cand = by_doc.setdefault(item.rowid, Candidate(item))
        cand.lexical_rank, cand.bm25 = rank, bm25
        cand.score += LEXICAL_WEIGHT / (RRF_K + rank)
    for rank, (item, sim, ordinal) in enumerate(vector_ranked, start=1):
        cand = by_doc.setdefault(item.rowid, Candidate(item))
        cand.vector_rank, cand.similarity, cand.ordinal = rank, sim, ordinal
        cand.score += VECTOR_WEIGHT / (RRF_K + rank)
    return sorted(by_doc.values(), key=lambda c: -c.score)


def context(session: Session, queries: list[str], source: QuerySource, *, limit: int = 8, expand: bool = True,
            explain: bool = False, include_inactive: bool = False, mode: str = "fused") -> ContextResult:
    """The few documents that matter for the task(s), as skeletons; see the module docstring."""
    visibility = Visibility.from_schema(session.schema, include_inactive)
    semantic = source.status
    vectors: VectorSet | None = None
    query_vectors = None
    pending = 0
    if mode != "lexical" and source.model_id is not None:
        vectors = session.catalog.vector_set(source.model_id)
        query_vectors = source.embed(queries)
        pending = session.catalog.queue_counts(source.model_id)[0]
    per_query: list[list[Candidate]] = []
    for index, text in enumerate(queries):
        lex = lexical(session, text, visibility) if mode != "vector" else []
        vec = (vector_ranking(session, vectors, query_vectors[index], visibility)
               if vectors is not None and query_vectors is not None else [])
        per_query.append(fuse(lex, vec))
    ordered = _take_turns(per_query, limit)
    results = [_entry(session, cand, explain, queries) for cand in ordered]
    if expand:
        results.extend(_expand(session, ordered, visibility, vectors, query_vectors, limit))
    return ContextResult(results, semantic, queries, pending)


def _take_turns(per_query: list[list[Candidate]], limit: int) -> list[Candidate]:
    """Pool each document's numbers over all queries; order by the queries taking turns."""
    pooled: dict[int, Candidate] = {}
    for ranking in per_query:
        for cand in ranking:
            seen = pooled.get(cand.listing.rowid)
            if seen is None:
                pooled[cand.listing.rowid] = Candidate(**cand.__dict__)
                continue
            seen.score = max(seen.score, cand.score)
            if cand.similarity is not None and (seen.similarity is None or cand.similarity > seen.similarity):
                seen.similarity, seen.ordinal, seen.vector_rank = cand.similarity, cand.ordinal, cand.vector_rank
            if cand.lexical_rank is not None and (seen.lexical_rank is None or cand.lexical_rank < seen.lexical_rank):
                seen.lexical_rank, seen.bm25 = cand.lexical_rank, cand.bm25
    order: list[Candidate] = []
    taken: set[int] = set()
    cursors = [0] * len(per_query)
    while len(order) < limit and any(c < len(r) for c, r in zip(cursors, per_query)):
        for q, ranking in enumerate(per_query):
            while cursors[q] < len(ranking) and ranking[cursors[q]].listing.rowid in taken:
                cursors[q] += 1
            if cursors[q] < len(ranking) and len(order) < limit:
                rowid = ranking[cursors[q]].listing.rowid
                taken.add(rowid)
                order.append(pooled[rowid])
    return order


def _entry(session: Session, cand: Candidate, explain: bool, queries: list[str]) -> dict[str, Any]:
    entry = skeleton(cand.listing, session.schema, session.today)
    entry["score"] = round(cand.score, 6)
    entry["similarity"] = None if cand.similarity is None else round(cand.similarity, 4)
    chunk = session.catalog.chunk_rows(cand.listing.rowid).get(cand.ordinal) if cand.ordinal not in (None, -1) else None
    entry["matched_section"] = chunk.section if chunk is not None and chunk.section else None
    entry["via"] = None
    if explain:
        text = ""
        if chunk is not None:
            text = session.catalog.body_of(cand.listing.rowid)[chunk.start : chunk.end].strip()
        entry["explain"] = {
            "lexical_rank": cand.lexical_rank,
            "vector_rank": cand.vector_rank,
            "fts_score": None if cand.bm25 is None else round(-cand.bm25, 4),
            "similarity": entry["similarity"],
            "matched_terms": _matched_terms(session, cand.listing.rowid, queries),
            "chunk": {"heading": chunk.heading, "continuation": chunk.continuation, "text": text[:600]}
            if chunk is not None else ({"heading": None, "text": "(document vector)"} if cand.ordinal == -1 else None),
        }
    return entry


def _matched_terms(session: Session, rowid: int, queries: list[str]) -> list[str]:
    terms = list(dict.fromkeys(t for q in queries for t in query_terms(q)))
    return [t for t in terms if session.catalog.term_matches(rowid, t)]


def _expand(session: Session, seeds: list[Candidate], visibility: Visibility, vectors: VectorSet | None,
            query_vectors: np.ndarray | None, limit: int) -> list[dict[str, Any]]:
    """One hop from each seed: incoming successor edges first, then outgoing edges."""
    seen = {c.listing.id for c in seeds}
    successor_kinds = session.schema.successor_kinds
    out: list[dict[str, Any]] = []
    for seed in seeds:
        hops = [(kind, src, "successor") for kind, src in session.catalog.edges_to(seed.listing.id, successor_kinds)]
        hops += [(kind, dst, "outgoing") for kind, dst in session.catalog.edges_from(seed.listing.id)]
        targets = session.catalog.listings_by_ids(doc_id for _, doc_id, _ in hops)
        for kind, doc_id, direction in hops:
            item = targets.get(doc_id)
            if item is None or doc_id in seen or not visibility.allows(item.type, item.status, item.archived):
                continue
            seen.add(doc_id)
            entry = skeleton(item, session.schema, session.today)
            entry["score"] = None
            entry["similarity"] = _similarity(session, item.rowid, vectors, query_vectors)
            entry["matched_section"] = None
            entry["via"] = {"id": seed.listing.id, "kind": kind, "direction": direction}
            out.append(entry)
            if len(out) >= limit:
                return out
    return out


def _similarity(session: Session, rowid: int, vectors: VectorSet | None, query_vectors: np.ndarray | None) -> float | None:
    if vectors is None or query_vectors is None:
        return None
    rows = [i for i, r in enumerate(vectors.rowids) if r == rowid]
    if not rows:
        return None
    sims = vectors.matrix[rows] @ query_vectors.T
    return round(float(np.max(sims)), 4)
