"""`context` over this repository's index: its candidate lists for the one ranking rule (ranking.py), and
its rows.

1. Lexical (retrieval/lexical.py): every heading section by bm25, a document taking its best
   section's place; and the task's adjacent words close together (NEAR). Visible documents only.
2. Vector: cosine of the query with every document and section vector; each document keeps its
   best candidate *before* fusion, and remembers which section won. Its background is every
   document's best cosine.
3. Reference chunks join the same lists: their own bm25 ranking (a separate FTS table) and the
   shared vector ranking, where cosines are comparable.
4. `matched_section` is the section of the side that contributed more: the best-matching section
   lexically, or the winning section vector (ranking.matched_side).
5. Expansion follows outgoing edges and incoming successor edges, successors first, so a
   decision's replacement comes along with it. One visibility predicate filters every list and
   the expansion.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from docir import background
from docir.documents.reader_view import Visible
from docir.embed.model_ids import answers_with
from docir.index.changes import Kept
from docir.index.fts import CANDIDATES, query_terms
from docir.index.records import Listing, SectionHit, VectorSet
from docir.index.vectors import cosine
from docir.services.indexing.session import Session
from docir.services.retrieval import lending, lexical, lexical_pieces, passage
from docir.services.retrieval.expansion import Hop, hops_of, one_hop
from docir.services.retrieval.fusion import Background
from docir.services.retrieval.lexical import LexicalCandidate
from docir.services.retrieval.need import BY_VECTOR, FORMS, LEAVES_COMMON, TASK, Need, embedded_texts, needs_of
from docir.services.retrieval.ranking import (
    Candidate,
    FormLists,
    Fused,
    contributions,
    forms_explained,
    matched_side,
    part_name,
    rank,
    ranks_explained,
    standing_explained,
    standings,
)
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
from docir.services.vectors.query_source import ModelFailed, QuerySource


@dataclass
class _Vectors:
    docs: VectorSet
    refs: VectorSet | None
    _rows_of: dict[int, list[int]] | None = None
    _doc_of_row: np.ndarray | None = None  # each matrix row's document rowid, as an array

    def rows_of(self, rowid: int) -> list[int]:
        """Matrix rows of one document (its document vector and sections), indexed once per matrix."""
        if self._rows_of is None:
            self._rows_of = defaultdict(list)
            for position, doc in enumerate(self.docs.rowids):
                self._rows_of[doc].append(position)
        return self._rows_of.get(rowid, [])

    def background(self, sims: np.ndarray) -> Background:
        """The store's background for one query (`sims`, a cosine per matrix row): every document's best cosine."""
        if self._doc_of_row is None:
            self._doc_of_row = np.fromiter(self.docs.rowids, dtype=np.int64, count=len(self.docs.rowids))
        if not len(sims):
            return Background(0.0, 0.0, 0)
        best = np.full(int(self._doc_of_row.max()) + 1, -np.inf, dtype=np.float64)
        np.maximum.at(best, self._doc_of_row, sims)
        best = best[np.isfinite(best)]
        return Background(float(best.sum()), float(np.square(best).sum()), len(best))


def context(session: Session, queries: Sequence[Need | str], source: QuerySource, *, limit: int = 8,
            expand: bool = True, explain: bool = False, include_inactive: bool = False, mode: str = "fused",
            refs: bool = True) -> ContextResult:
    """The few documents that matter for the need(s), as skeletons; see the module docstring. A plain
    string is a need with a task alone."""
    needs = needs_of(list(queries))
    visibility = Visibility.from_schema(session.schema, include_inactive)
    vectors: _Vectors | None = None
    embedded: Callable[[], np.ndarray] | None = None
    wanted = embedded_texts(needs)
    query_vectors: dict[tuple[int, str], np.ndarray] = {}
    all_vectors: np.ndarray | None = None
    pending = sections_pending = 0
    if mode != "lexical" and source.model_id is not None:
        # The model embeds the forms while SQLite ranks them by their words: both let go of the GIL.
        embedded = background.start(source.embed, [text for _, _, text in wanted])
        vectors = _cached_vectors(session, source.model_id, refs)
        # Fused with whatever vectors exist: a document whose sections are still due ranks by its document vector.
        pending, sections_pending = _waiting(session, source.model_id)
    forms = [(index, form, text) for index, need in enumerate(needs) for form, text in need.forms()]
    lexical_sides = (_lexical_sides(session, forms, visibility, refs) if mode != "vector"
                     else {(index, form): ([], []) for index, form, _ in forms})
    if embedded is not None:
        try:
            all_vectors = embedded()
        except ModelFailed:  # a model loading beside this ranking did not load: ranked by words, as with none
            vectors, pending, sections_pending = None, 0, 0
        else:
            query_vectors = {(index, form): all_vectors[row] for row, (index, form, _) in enumerate(wanted)}
    lists = _IndexLists(session, visibility, lexical_sides, vectors, query_vectors)
    ordered = rank(lists, needs, query_vectors, limit, matched_only=mode == "fused")
    # Full listings only for what is shown: candidates needed no more than their visibility.
    listings = session.catalog.docs.listings_by_rowid(c.key[1] for c in ordered if c.key[0] == "doc")
    for cand in ordered:
        if cand.key[0] == "doc":
            cand.listing = listings[cand.key[1]]
    texts = [text for need in needs for _, text in need.forms()]
    words = passage.words_of(texts)  # the words every matched passage is chosen by, found once
    results = [_entry(session, cand, explain, texts, words) for cand in ordered]
    if expand:
        seeds = [c for c in ordered if c.listing is not None]
        results.extend(_expand(session, seeds, visibility, vectors, all_vectors, limit))
    return ContextResult(results, source.status, needs, pending=pending, sections_pending=sections_pending)


LexicalSides = dict[tuple[int, str], tuple[list[LexicalCandidate], list[Candidate]]]
# At most one command of a process ranks forms on a thread beside it at a time, as with the query
# vectors (background.ONE_AT_A_TIME): with more commands at once the cores are busy anyway.
_FORMS_AT_A_TIME = threading.BoundedSemaphore(1)


def _lexical_sides(session: Session, forms: list[tuple[int, str, str]], visibility: Visibility,
                   refs: bool) -> LexicalSides:
    """Each form's lexical lists (documents, reference chunks), by need index and form.

    A sketch's many terms make its lists the longest part of a warm `context --sketch`, and SQLite
    lets go of the GIL: with two forms or more, a thread beside this one, on a connection of its
    own (Session.beside), shares out their lists with it (lexical_pieces.py).
    """
    lists = {(index, form): lexical.LexicalLists(session, text, visibility, leave_common=form in LEAVES_COMMON)
             for index, form, text in forms}
    pieces = lexical_pieces.Pieces(lists, _ref_lexical if refs else None)
    here = threading.get_ident()

    def beside(_: None) -> None:
        other = session.beside() if threading.get_ident() != here else None  # here: the limit was taken
        if other is None:
            return  # this thread reads every piece
        try:
            pieces.work(other)
        finally:
            other.close()

    later = background.start(beside, None, limit=_FORMS_AT_A_TIME) if len(forms) > 1 else background.already(None)
    pieces.work(session)
    later()
    return pieces.sides()


def _ref_lexical(session: Session, text: str) -> list[Candidate]:
    ranked = lexical.rank_references(session, text)
    chunks = {c.rowid: c for c in session.catalog.refs.chunks(rowids=[h.rowid for h, _, _ in ranked])}
    return [Candidate(("ref", h.rowid), ref=chunks[h.rowid], ref_lexical=standing, ref_coverage=coverage)
            for h, standing, coverage in ranked if h.rowid in chunks]


class _IndexLists:
    """The index's candidate lists for ranking.rank: the lexical sides ranked before the query vectors
    came (`lexical_sides`, by need index and form), the vector list of each form that is ranked by vector."""

    def __init__(self, session: Session, visibility: Visibility,
                 lexical_sides: LexicalSides,
                 vectors: _Vectors | None, query_vectors: dict[tuple[int, str], np.ndarray]) -> None:
        self.session, self.visibility, self.vectors = session, visibility, vectors
        self.lexical_sides, self.query_vectors = lexical_sides, query_vectors

    def form_lists(self, need: int, form: str, text: str) -> FormLists:
        docs, references = self.lexical_sides[(need, form)]
        query = self.query_vectors.get((need, form)) if form in BY_VECTOR else None
        vector = (_vector_ranking(self.session, self.vectors, query, self.visibility)
                  if self.vectors is not None and query is not None else [])
        return FormLists(docs, references, vector)

    def building_edges(self) -> lending.Edges:
        return lending.local_edges(self.session)


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
    # A document stands out of the others (its own cosine is no part of its background); a reference
    # chunk, of the store's documents.
    return standings([(cand, sim, sim if cand.ref is None else None) for cand, sim in found[:CANDIDATES]],
                     vectors.background(sims))


# Long-lived processes (the worker, the MCP server) keep the vector matrix until it changes.
_VECTOR_CACHE: dict[tuple[str, str, bool], tuple[int, _Vectors]] = {}


def _cached_vectors(session: Session, model_id: str, refs: bool) -> _Vectors:
    key = (str(session.store.index_path), model_id, refs)
    generation = session.catalog.vectors.generation()
    cached = _VECTOR_CACHE.get(key)
    if cached is not None and cached[0] == generation:
        return cached[1]
    models = answers_with(model_id)  # an earlier build's vectors answer until they are made again
    vectors = _Vectors(session.catalog.vectors.vector_set(models),
                       session.catalog.refs.vector_set(models) if refs else None)
    _VECTOR_CACHE[key] = (generation, vectors)
    return vectors


# What is still due, in a long-lived process: read again only when the index changed (index/changes.py).
_WAITING: Kept[tuple[str, tuple[int, int]]] = Kept()


def _waiting(session: Session, model_id: str) -> tuple[int, int]:
    catalog = session.catalog
    return _WAITING.get(catalog.stamp(), lambda: (model_id, catalog.vectors.waiting(model_id)),
                        lambda held: held[0] == model_id)[1]


def _matched(session: Session, listing: Listing, span: tuple[int, int],
             wanted: frozenset[str]) -> tuple[Size, str | None]:
    """What `get --section` of the matched span costs (and how much of it is comments), and the sentence of it
    that says most of the task: from one reading of the body, scanned for comments only when it has some."""
    body = session.catalog.docs.body_of(listing.rowid)
    start, end = span
    if not listing.hidden:
        return cost(end - start), passage.quote(body[start:end], wanted)
    seen = Visible.of(body)
    return cost(end - start, seen.hidden_bytes(start, end)), passage.quote(seen.slice(start, end), wanted)


def _entry(session: Session, cand: Fused, explain: bool, texts: list[str], wanted: frozenset[str]) -> ContextRow:
    if cand.ref is not None:
        return _ref_entry(cand, explain, texts)
    assert cand.listing is not None
    similarity = None if cand.similarity is None else round(cand.similarity, 4)
    lead = cand.lead
    chunk = None
    if lead.ordinal not in (None, -1):
        chunk = session.catalog.vectors.chunk_rows(cand.listing.rowid).get(lead.ordinal)
    best = lead.lexical.best_section if lead.lexical is not None else None
    section: str | None = None
    size: Size | None = None
    span: tuple[int, int] | None = None
    side = matched_side(lead, bool(chunk is not None and chunk.section), bool(best is not None and best.path))
    if side == "vector" and chunk is not None:
        section, span = chunk.section, (chunk.start, chunk.end)
    elif side == "lexical" and best is not None:
        section, span = best.path[-1], (best.start, best.end)
    quoted: str | None = None
    if span is not None:
        size, quoted = _matched(session, cand.listing, span, wanted)
    entry: ContextHit = {
        **skeleton(cand.listing, session.schema, session.today),
        "kind": "document",
        "score": round(cand.score, 4),
        "similarity": similarity,
        "matched_section": section,
        "matched_section_size": size,
        "matched_passage": quoted,
        "via": None,
    }
    if explain:
        text = ""
        if chunk is not None:
            text = session.catalog.docs.body_of(cand.listing.rowid)[chunk.start : chunk.end].strip()
        return ExplainedHit(
            **entry,
            explain={
                **ranks_explained(cand),
                "matched_terms": _matched_terms(session, cand.listing.rowid, texts),
                "rankings": _rankings(session, cand),
                "contributions": contributions(cand),
                **forms_explained(cand),
                "chunk": {"heading": chunk.heading, "continuation": chunk.continuation, "text": text[:600]}
                if chunk is not None
                else ({"heading": None, "text": "(document vector)"} if lead.ordinal == -1 else None),
            },
        )
    return entry


def _rankings(session: Session, cand: Fused) -> dict[str, Any]:
    """Each form's rankings' view of a document: its place, its raw score and how far it stood above the
    rest, and the section its vector matched; and which candidates lent it part of their score."""
    out: dict[str, Any] = {}
    assert cand.listing is not None
    chunks = session.catalog.vectors.chunk_rows(cand.listing.rowid)
    for form in FORMS:
        found = cand.forms.get(form)
        if found is None:
            continue
        lex = found.lexical
        if lex is not None and lex.section is not None:
            out[part_name(form, "sections")] = {**standing_explained(lex.section, "bm25"),
                                             "section": _section_name(lex.best_section)}
        if lex is not None and lex.near is not None:
            out[part_name(form, "near")] = standing_explained(lex.near, "bm25")
        if found.ref_lexical is not None:
            out[part_name(form, "sections")] = standing_explained(found.ref_lexical, "bm25")
        if found.vector is not None:
            chunk = chunks.get(found.ordinal) if found.ordinal is not None else None
            out[part_name(form, "vector")] = {**standing_explained(found.vector, "cosine"),
                                           "section": chunk.section if chunk is not None else None}
    if cand.loan is not None:
        lenders = session.catalog.docs.listings_by_rowid(cand.loan.lenders)
        out["lent_by"] = [lenders[rowid].id for rowid in cand.loan.lenders if rowid in lenders]
    return out


def _section_name(hit: SectionHit | None) -> str | None:
    return " > ".join(hit.path) if hit is not None and hit.path else None


def _ref_entry(cand: Fused, explain: bool, texts: list[str]) -> ReferenceHit:
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
        terms = list(dict.fromkeys(t for text in texts for t in query_terms(text)))
        lowered = chunk.text.lower()
        first = cand.forms.get(TASK, cand.lead)
        lex, vec = first.ref_lexical, first.vector
        entry["explain"] = {
            "lexical_rank": lex.rank if lex else None,
            "vector_rank": vec.rank if vec else None,
            "fts_score": round(lex.raw, 4) if lex else None,
            "contributions": contributions(cand),
            **forms_explained(cand),
            "similarity": similarity,
            "matched_terms": [t for t in terms if t in lowered],
            "chunk": {"heading": " > ".join(chunk.heading_path), "text": chunk.text[:600]},
        }
    return entry


def _matched_terms(session: Session, rowid: int, texts: list[str]) -> list[str]:
    terms = list(dict.fromkeys(t for text in texts for t in query_terms(text)))
    return [t for t in terms if session.catalog.search.term_matches(rowid, t)]


def _expand(
    session: Session,
    seeds: list[Fused],
    visibility: Visibility,
    vectors: _Vectors | None,
    query_vectors: np.ndarray | None,
    limit: int,
) -> list[ContextHit]:
    """One hop from each seed (expansion.one_hop): incoming successor edges first, then its own (hops_of)."""
    successor_kinds = session.schema.successor_kinds
    docs = session.catalog.docs

    def hops(seed: Fused) -> list[Hop]:
        assert seed.listing is not None
        return hops_of(docs.edges_to(seed.listing.id, successor_kinds), docs.edges_from(seed.listing.id),
                       successor_kinds)

    def visible(ids: set[str]) -> dict[str, Listing]:
        return {doc_id: item for doc_id, item in docs.listings_by_ids(ids).items()
                if visibility.allows(item.type, item.status, item.archived)}

    out: list[ContextHit] = []
    seen = [c.listing.id for c in seeds if c.listing is not None]
    for seed, hop, item in one_hop(seeds, hops, visible, seen=seen, limit=limit):
        assert seed.listing is not None
        similarity = None
        rows = vectors.rows_of(item.rowid) if vectors is not None and query_vectors is not None else []
        if rows and query_vectors is not None and vectors is not None:
            similarity = round(float(np.max(vectors.docs.matrix[rows] @ query_vectors.T)), 4)
        out.append({
            **skeleton(item, session.schema, session.today),
            "kind": "document",
            "score": None,
            "similarity": similarity,
            "matched_section": None,
            "matched_section_size": None,
            "matched_passage": None,
            "via": Via(id=seed.listing.id, kind=hop.kind, direction=hop.direction),
        })
    return out
