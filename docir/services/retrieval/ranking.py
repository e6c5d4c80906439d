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
4. One visibility predicate filters every ranking and the expansion. What the need matched
   neither by its words nor by a meaning that stands out of the store's background is not
   returned (adr-0daadecdbef2).
5. Expansion follows outgoing edges and incoming successor edges, successors
   first, so a decision's replacement comes along with it.
6. Lending (retrieval/lending.py): a candidate that the best candidates build on (depends-on,
   implements, resolves) gains a share of their fused scores (adr-4716947e3ea9).
7. One need may come in three forms (need.py: the task, a sketch of the answer, exact terms):
   each form is ranked by steps 1-3 on its own, and a document's evidence is the weighted sum
   of its forms' fused scores (adr-2b7e51c4d9a0). The sketch's weight is its agreement with
   the task, so a sketch about something else cannot bury what the task found.
8. With several needs (`--also`), pooling decides each document's numbers and the
   needs take turns at the head of the order.

Reference chunks join the same fusion: their own bm25 ranking (a separate
FTS table) and the shared vector ranking, where cosines are comparable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from docir.documents.reader_view import Visible
from docir.embed.model_ids import answers_with
from docir.index.changes import Kept
from docir.index.fts import CANDIDATES, query_terms
from docir.index.records import Listing, SectionHit, VectorSet
from docir.index.ref_records import StoredRefChunk
from docir.index.vectors import cosine
from docir.services.indexing.session import Session
from docir.services.retrieval import background, fusion, lending, lexical, passage
from docir.services.retrieval.expansion import Hop, one_hop
from docir.services.retrieval.lending import Loan
from docir.services.retrieval.lexical import LexicalCandidate, Standing
from docir.services.retrieval.need import BY_VECTOR, FORMS, SKETCH, TASK, TERMS, Need, embedded_texts, needs_of
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
    ref: StoredRefChunk | None = None
    lexical: LexicalCandidate | None = None  # a document's lexical rankings
    ref_lexical: Standing | None = None  # a reference chunk's bm25 ranking
    ref_coverage: float = 1.0
    vector: Standing | None = None
    ordinal: int | None = None  # winning chunk of a document; -1 = its document vector
    stands_out: bool = False  # its cosine is above the store's background (fusion.background_line)

    @property
    def similarity(self) -> float | None:
        return None if self.vector is None else self.vector.raw

    @property
    def matched(self) -> bool:
        """Found by the form's words, or by a meaning that stands out of the store's background."""
        return self.lexical is not None or self.ref_lexical is not None or self.stands_out

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
    def score(self) -> float:
        return self.lexical_part + self.vector_part


@dataclass
class Fused:
    """One document's (or reference chunk's) standing for one need: each form's evidence, weighted."""

    key: Key
    forms: dict[str, Candidate]  # by form (need.FORMS), the forms that found it
    gates: dict[str, Gate]  # the weights of the need's forms beside the task, and their reasons
    listing: Listing | None = None
    ref: StoredRefChunk | None = None
    loan: Loan | None = None  # what the candidates that build on this document lend it
    evidence: float = 0.0  # the weighted sum of its forms' scores, once they are all in (`combine`)

    def weight(self, form: str) -> float:
        """The task counts in full; each other form with its gate's weight."""
        return 1.0 if form == TASK else self.gates[form].weight

    def part(self, form: str) -> float:
        found = self.forms.get(form)
        return 0.0 if found is None else self.weight(form) * found.score

    @property
    def loan_part(self) -> float:
        return 0.0 if self.loan is None else self.loan.amount

    @property
    def score(self) -> float:
        return self.evidence + self.loan_part

    @property
    def similarity(self) -> float | None:
        """The best cosine of any form's query vector: the one number comparable across stores."""
        found = [c.similarity for c in self.forms.values() if c.similarity is not None]
        return max(found) if found else None

    @property
    def lead(self) -> Candidate:
        """The form that contributed most: its winning section is the one shown."""
        return self.forms[max(self.forms, key=self.part)]

    @property
    def matched(self) -> bool:
        """A form that counts (the task, or a sketch or terms with some weight) matched it."""
        return any(found.matched and self.weight(form) > 0 for form, found in self.forms.items())


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

    def background(self, sims: np.ndarray) -> tuple[float, float, int]:
        """The store's background for one query (`sims`, a cosine per matrix row): the sum, the sum of
        squares and the count of every document's best cosine, what fusion.background_line reads."""
        if self._doc_of_row is None:
            self._doc_of_row = np.fromiter(self.docs.rowids, dtype=np.int64, count=len(self.docs.rowids))
        if not len(sims):
            return 0.0, 0.0, 0
        best = np.full(int(self._doc_of_row.max()) + 1, -np.inf, dtype=np.float64)
        np.maximum.at(best, self._doc_of_row, sims)
        best = best[np.isfinite(best)]
        return float(best.sum()), float(np.square(best).sum()), len(best)


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
    lexical_sides = {
        (index, form): (lexical.rank_documents(session, text, visibility), _ref_lexical(session, text) if refs else [])
        if mode != "vector" else ([], [])
        for index, need in enumerate(needs) for form, text in need.forms()}
    if embedded is not None:
        all_vectors = embedded()
        query_vectors = {(index, form): all_vectors[row] for row, (index, form, _) in enumerate(wanted)}
    per_need: list[list[Fused]] = []
    for index, need in enumerate(needs):
        by_form: dict[str, list[Candidate]] = {}
        for form, _ in need.forms():
            docs, references = lexical_sides[(index, form)]
            query = query_vectors.get((index, form)) if form in BY_VECTOR else None
            vector = (_vector_ranking(session, vectors, query, visibility)
                      if vectors is not None and query is not None else [])
            by_form[form] = fuse(docs, references, vector)
        gates = form_gates(by_form, {form: vector for (at, form), vector in query_vectors.items() if at == index})
        combined = combine(by_form, gates)
        # The single-side modes measure one ranking each (benchmarks/quality); what matched and what
        # lends are fusion's. A document that matched nothing is neither returned nor lends (adr-0daadecdbef2).
        if mode == "fused":
            combined = with_loans([c for c in combined if c.matched], lending.local_edges(session))
        per_need.append(combined)
    ordered = pool_needs(per_need, limit)
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


def fuse(docs: list[LexicalCandidate], references: list[Candidate], vector: list[Candidate]) -> list[Candidate]:
    """One form's rankings as the sum of their z-scores (fusion.py); ties keep the lexical, then the vector order."""
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


class Gate(NamedTuple):
    """How much a form beside the task (the sketch, the terms) counts, and why (fusion.form_weight)."""

    weight: float
    agreement: float  # share of the form's first candidates that are among the task's first
    relatedness: float | None  # cosine of the task's and the form's query vectors; None without two vectors
    confidence: float  # how far the task's first candidate stands above its second, as a share of its score


def form_gates(by_form: dict[str, list[Candidate]], vectors: dict[str, np.ndarray]) -> dict[str, Gate]:
    """The weight of every form beside the task: full when it and the task point at the same documents
    (in the same words' neighbourhood), little when it describes something else (a wrong guess,
    another task's sketch or terms)."""
    found = by_form.get(TASK)
    gates: dict[str, Gate] = {}
    for form, base in ((SKETCH, fusion.SKETCH_WEIGHT), (TERMS, fusion.TERMS_WEIGHT)):
        if form not in by_form:
            continue
        if not found:  # the task found nothing at all: this form is all there is to go on
            gates[form] = Gate(base, 0.0, None, 0.0)
            continue
        among = {c.key for c in found[: fusion.AGREEMENT_AMONG]}
        picked = by_form[form][: fusion.AGREEMENT_OF]
        # Out of as many as both could name: a task that matched three documents by its words (no model
        # yet) agrees fully with a sketch whose first ten hold all three.
        agreement = sum(c.key in among for c in picked) / max(1, min(len(picked), len(among)))
        task, mine = vectors.get(TASK), vectors.get(form)
        relatedness = None if task is None or mine is None else float(cosine(mine[None, :], task)[0])
        first, second = found[0].score, found[1].score if len(found) > 1 else 0.0
        confidence = (first - second) / first if first > 0 else 0.0
        gates[form] = Gate(fusion.form_weight(base, agreement, relatedness, confidence), agreement, relatedness,
                           confidence)
    return gates


def combine(by_form: dict[str, list[Candidate]], gates: dict[str, Gate]) -> list[Fused]:
    """One ranking of a need: each candidate's forms, weighted; ties keep the task's order, then the others'."""
    fused: dict[Key, Fused] = {}
    order: dict[Key, int] = {}
    for form in FORMS:
        for cand in by_form.get(form, ()):
            mine = fused.get(cand.key)
            if mine is None:
                mine = fused[cand.key] = Fused(cand.key, {}, gates, ref=cand.ref)
                order[cand.key] = len(order)
            mine.forms[form] = cand
    for mine in fused.values():  # summed once: sorting and lending read it many times
        mine.evidence = sum(mine.part(form) for form in mine.forms)
    return sorted(fused.values(), key=lambda c: (-c.score, order[c.key]))


def with_loans(ranked: list[Fused], edges: lending.Edges) -> list[Fused]:
    """The fused ranking with each document's loan from the candidates that build on it, reordered."""
    owed = lending.loans([(c.key[1], c.score) for c in ranked if c.key[0] == "doc"], edges)
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
    total, squares, count = vectors.background(sims)
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
        # A document stands out of the others (its own cosine is no part of its background); a reference
        # chunk, of the store's documents.
        others = (total - sim, squares - sim * sim, count - 1) if cand.ref is None else (total, squares, count)
        cand.stands_out = sim > fusion.background_line(*others)
    return [cand for cand, _ in found]


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


def pool_needs(per_need: list[list[Fused]], limit: int) -> list[Fused]:
    """Each candidate as the need that found the strongest evidence for it; ordered by the needs taking turns."""
    if len(per_need) == 1:  # nothing to pool: one ranking, in its own order
        return per_need[0][:limit]
    pooled: dict[Key, Fused] = {}
    for ranking in per_need:
        for cand in ranking:
            seen = pooled.get(cand.key)
            if seen is None or cand.score > seen.score:
                pooled[cand.key] = cand
    order: list[Fused] = []
    taken: set[Key] = set()
    cursors = [0] * len(per_need)
    while len(order) < limit and any(c < len(r) for c, r in zip(cursors, per_need, strict=True)):
        for q, ranking in enumerate(per_need):
            while cursors[q] < len(ranking) and ranking[cursors[q]].key in taken:
                cursors[q] += 1
            if cursors[q] < len(ranking) and len(order) < limit:
                key = ranking[cursors[q]].key
                taken.add(key)
                order.append(pooled[key])
    return order


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


def matched_side(lead: Candidate, vector_section: bool, lexical_section: bool) -> str | None:
    """Which side names a document's matched section, in any store: the vector's winning section when
    it contributed at least as much as the best section's words (or no section matched by words), else
    the lexical best section; None when neither has one."""
    words = lead.lexical.section_part if lead.lexical is not None else 0.0
    if vector_section and (lead.vector_part >= words or not lexical_section):
        return "vector"
    return "lexical" if lexical_section else None


def ranks_explained(cand: Fused) -> dict[str, Any]:
    """Explain's first numbers, in any store: the task form's places and raw scores, its coverage, the cosine."""
    first = cand.forms.get(TASK, cand.lead)
    lex = first.lexical
    return {
        "lexical_rank": lex.section.rank if lex is not None and lex.section is not None else None,
        "vector_rank": first.vector.rank if first.vector is not None else None,
        "fts_score": round(lex.section.raw, 4) if lex is not None and lex.section is not None else None,
        "coverage": round(lex.coverage, 3) if lex is not None else None,
        "similarity": None if cand.similarity is None else round(cand.similarity, 4),
    }


def _named(form: str, part: str) -> str:
    """A score part's name in explain: the task's parts keep their plain names ("vector"), the other
    forms' are prefixed ("sketch vector")."""
    return part if form == TASK else f"{form} {part}"


def contributions(cand: Fused) -> dict[str, float]:
    """What each form's rankings add to the score, weighted as the score weighs them, and the loan."""
    out: dict[str, float] = {}
    for form in FORMS:
        found = cand.forms.get(form)
        if found is None:
            continue
        weight = cand.weight(form)
        lex = found.lexical
        if cand.key[0] == "doc":
            out[_named(form, "sections")] = round(weight * lex.section_part, 4) if lex is not None else 0.0
            out[_named(form, "near")] = round(weight * lex.near_part, 4) if lex is not None else 0.0
        elif found.ref_lexical is not None:
            out[_named(form, "sections")] = round(weight * found.lexical_part, 4)
        out[_named(form, "vector")] = round(weight * found.vector_part, 4)
    if cand.key[0] == "doc":
        out["lent"] = round(cand.loan_part, 4)
    return out


def forms_explained(cand: Fused) -> dict[str, Any]:
    """With a sketch or terms: each one's weight and what it was made of (fusion.form_weight)."""
    return {form: {"weight": round(gate.weight, 3), "agreement": round(gate.agreement, 3),
                   "relatedness": None if gate.relatedness is None else round(gate.relatedness, 3),
                   "confidence": round(gate.confidence, 3)}
            for form, gate in cand.gates.items()}


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
            out[_named(form, "sections")] = {**_standing(lex.section, "bm25"),
                                             "section": _section_name(lex.best_section)}
        if lex is not None and lex.near is not None:
            out[_named(form, "near")] = _standing(lex.near, "bm25")
        if found.ref_lexical is not None:
            out[_named(form, "sections")] = _standing(found.ref_lexical, "bm25")
        if found.vector is not None:
            chunk = chunks.get(found.ordinal) if found.ordinal is not None else None
            out[_named(form, "vector")] = {**_standing(found.vector, "cosine"),
                                           "section": chunk.section if chunk is not None else None}
    if cand.loan is not None:
        lenders = session.catalog.docs.listings_by_rowid(cand.loan.lenders)
        out["lent_by"] = [lenders[rowid].id for rowid in cand.loan.lenders if rowid in lenders]
    return out


def _standing(standing: Standing, raw: str) -> dict[str, Any]:
    return {"rank": standing.rank, raw: round(standing.raw, 4), "z": round(standing.z, 3)}


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
    """One hop from each seed (expansion.one_hop): incoming successor edges first, then outgoing edges."""
    successor_kinds = session.schema.successor_kinds
    docs = session.catalog.docs

    def hops(seed: Fused) -> list[Hop]:
        assert seed.listing is not None
        found = [Hop(kind, src, "successor") for kind, src in docs.edges_to(seed.listing.id, successor_kinds)]
        return found + [Hop(kind, dst, "outgoing") for kind, dst in docs.edges_from(seed.listing.id)]

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
