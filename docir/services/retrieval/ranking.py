"""The one ranking rule of `docir context`, for every store (adr-78d1238b4ae2, adr-2b7e51c4d9a0).

A store (local_ranking.py's index, org_ranking.py's organisation store) gives each form of each need
its candidate lists (`CandidateLists`): documents by their words (retrieval/lexical.py's candidates),
reference chunks by theirs, and documents and chunks by vector (`standings`). Everything from there on
is decided here, once:

1. Fusion (retrieval/fusion.py): each list's raw scores are z-scores over its own candidates,
   lexical ones weighted by the share of the task's terms a document contains, and a form's score
   is their sum (`fuse`). `similarity` is the winning raw cosine, the one number with absolute
   meaning.
2. One need may come in three forms (need.py: the task, a sketch of the answer, exact terms):
   a document's evidence is the weighted sum of its forms' scores (`combine`); a sketch's weight
   is its agreement with the task (`form_gates`), so a sketch about something else cannot bury
   what the task found.
3. What the need matched neither by its words nor by a meaning that stands out of the store's
   background (fusion.Background) is not returned (adr-0daadecdbef2).
4. Lending (retrieval/lending.py): a candidate that the best candidates build on (depends-on,
   implements, resolves) gains a share of their fused scores (adr-4716947e3ea9).
5. With several needs (`--also`), pooling decides each document's numbers and the needs take
   turns at the head of the order (`pool_needs`).

Which side names a document's matched section and explain's numbers are shaped here too; the rows
themselves, and expansion along links (retrieval/expansion.py), are each store's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from docir.index.ref_records import StoredRefChunk
from docir.index.vectors import cosine
from docir.services.retrieval import fusion, lending
from docir.services.retrieval.fusion import Background
from docir.services.retrieval.lending import Loan
from docir.services.retrieval.lexical import LexicalCandidate, Standing
from docir.services.retrieval.need import FORMS, SKETCH, TASK, TERMS, Need

if TYPE_CHECKING:
    import numpy as np

    from docir.index.records import Listing

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
    def near_part(self) -> float:
        """The word pairs' part, capped by what the other lists give (fusion.near_capped)."""
        if self.lexical is None:
            return 0.0
        return fusion.near_capped(self.lexical.near_part, self.lexical.section_part, self.vector_part)

    @property
    def lexical_part(self) -> float:
        if self.lexical is not None:
            return self.lexical.section_part + self.near_part
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


class FormLists(NamedTuple):
    """One form's candidate lists in one store: documents by their words, reference chunks by theirs,
    and documents and chunks by vector (`standings`)."""

    lexical: list[LexicalCandidate]
    references: list[Candidate]
    vector: list[Candidate]


class CandidateLists(Protocol):
    """What a store gives the ranking rule: each form's lists, and the building links among its candidates."""

    def form_lists(self, need: int, form: str, text: str) -> FormLists: ...

    def building_edges(self) -> lending.Edges: ...


def rank(store: CandidateLists, needs: Sequence[Need], query_vectors: Mapping[tuple[int, str], np.ndarray],
         limit: int, *, matched_only: bool = True) -> list[Fused]:
    """The store's candidates for the needs, ranked by the rule of this module's docstring; `query_vectors`
    holds each (need index, form)'s query vector, which the forms' gates compare. Without `matched_only`
    (the single-list modes that benchmarks/quality measures) nothing is filtered and nothing lends."""
    per_need: list[list[Fused]] = []
    for index, need in enumerate(needs):
        by_form = {form: fuse(*store.form_lists(index, form, text)) for form, text in need.forms()}
        combined = combine(by_form, form_gates(by_form, {form: vector for (at, form), vector in query_vectors.items()
                                                         if at == index}))
        if matched_only:  # a document that matched nothing is neither returned nor lends (adr-0daadecdbef2)
            combined = with_loans([c for c in combined if c.matched], store.building_edges())
        per_need.append(combined)
    return pool_needs(per_need, limit)


def standings(found: Sequence[tuple[Candidate, float, float | None]], background: Background) -> list[Candidate]:
    """A vector list's candidates (best first, each with its cosine and, when the store's background
    counted it, its own best cosine there) with their places, z-scores and whether they stand out."""
    zs = fusion.zscores([similarity for _, similarity, _ in found])
    for place, ((cand, similarity, own), z) in enumerate(zip(found, zs, strict=True), start=1):
        cand.vector = Standing(place, similarity, z)
        cand.stands_out = background.stands_out(similarity, own)
    return [cand for cand, _, _ in found]


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


def part_name(form: str, part: str) -> str:
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
            out[part_name(form, "sections")] = round(weight * lex.section_part, 4) if lex is not None else 0.0
            out[part_name(form, "near")] = round(weight * found.near_part, 4)
        elif found.ref_lexical is not None:
            out[part_name(form, "sections")] = round(weight * found.lexical_part, 4)
        out[part_name(form, "vector")] = round(weight * found.vector_part, 4)
    if cand.key[0] == "doc":
        out["lent"] = round(cand.loan_part, 4)
    return out


def forms_explained(cand: Fused) -> dict[str, Any]:
    """With a sketch or terms: each one's weight and what it was made of (fusion.form_weight)."""
    return {form: {"weight": round(gate.weight, 3), "agreement": round(gate.agreement, 3),
                   "relatedness": None if gate.relatedness is None else round(gate.relatedness, 3),
                   "confidence": round(gate.confidence, 3)}
            for form, gate in cand.gates.items()}


def standing_explained(standing: Standing, raw: str) -> dict[str, Any]:
    return {"rank": standing.rank, raw: round(standing.raw, 4), "z": round(standing.z, 3)}
