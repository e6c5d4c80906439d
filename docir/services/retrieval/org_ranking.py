"""`context` over the organisation store: the database ranks, the local fusion fuses.

Each form of each need gets the candidate lists of org/ranking_sql.py (sections and word pairs by
full text, vectors by pgvector's HNSW, and the background the vectors must stand out of, measured
on a sample in a big store: adr-25795d32a61a), each computed by one SQL statement. ranking.rank
ranks them: a published document is ranked by the same rule as a local one (adr-78d1238b4ae2,
adr-2b7e51c4d9a0, adr-0daadecdbef2), and lends as a local one does (adr-4716947e3ea9), along the
published links whose kind builds on its target in the linking repository's schema.
Expansion follows the store's links: a seed's successors from any repository first, then its
outgoing links, so a platform decision superseded in another repository brings its successor. The
seeds are the store's own ranked documents and this store's: ids are global, so a local decision
superseded in another repository brings the published successor too.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from docir import background
from docir.embed.model_ids import answers_with
from docir.index.fts import CANDIDATES
from docir.services.indexing.session import Session
from docir.services.retrieval import lending, ranking
from docir.services.retrieval.expansion import Hop, hops_of, one_hop
from docir.services.retrieval.fusion import Background
from docir.services.retrieval.need import BY_VECTOR, LEAVES_COMMON, TASK, Need
from docir.services.retrieval.org_reads import Found, lexical_candidates, named, readable, skeleton_of
from docir.services.retrieval.ranking import Candidate, FormLists, Fused
from docir.services.retrieval.results import LOCAL_STORE, ContextHit, ContextRow, ExplainedHit, Via
from docir.services.retrieval.skeleton import cost

if TYPE_CHECKING:
    from docir.org.peer import OrgPeer
    from docir.org.records import LexicalRow, OrgListing

class Seed(NamedTuple):
    """A ranked document whose links expansion follows: published here (`repo`), or this store's own."""

    id: str
    related: tuple[tuple[str, str], ...]  # (kind, target id)
    repo: str | None = None  # None: a document of the local store


def seeds_of(rows: Sequence[Mapping[str, Any]]) -> list[Seed]:
    """The ranked documents among a store's context rows, as expansion seeds."""
    return [Seed(str(row["id"]), tuple((str(link["kind"]), str(link["id"])) for link in row["related"]))
            for row in rows
            if row.get("via") is None and row.get("kind") == "document" and isinstance(row.get("related"), list)]


def context(session: Session, peer: OrgPeer, needs: Sequence[Need], query_vectors: dict[tuple[int, str], Any],
            model_id: str | None, *, limit: int, expand: bool, explain: bool, include_inactive: bool,
            local_seeds: Sequence[Seed] = ()) -> list[ContextRow]:
    """The organisation store's ranked documents for the needs, then the documents they link to, and the
    published documents that succeed, or are linked from, the `local_seeds` (this store's ranked rows).

    `query_vectors` holds each (need index, form)'s query vector, computed once by the caller with
    `model_id`; repositories whose vectors come from another model are ranked by their words alone."""

    repos = readable(session, peer)
    models = {repo.name: repo.model_id for repo in peer.repos}
    comparable = answers_with(model_id) if model_id is not None else ()
    by_vector = [name for name in repos if models.get(name) in comparable]
    others = sorted(name for name in repos if name not in by_vector and models.get(name) is not None)
    if others and model_id is not None:
        theirs = sorted({str(models[name]) for name in others})
        session.warnings.append(f"organisation store {peer.label}: {', '.join(others)} searched lexically: "
                                f"their vectors are from {', '.join(theirs)}, not {model_id}")
    query_vectors = {key: np.asarray(vector, dtype=np.float32) for key, vector in query_vectors.items()}
    found = Found()
    lists = _PublishedLists(peer, repos, by_vector, found, query_vectors, include_inactive)
    try:
        ordered = ranking.rank(lists, needs, query_vectors, limit)
    finally:
        lists.close()
    shown = {(item.repo, item.id): item
             for item in peer.listings_by_ids(repos, (found.docs[c.key[1]][1] for c in ordered), True)}
    results: list[ContextRow] = []
    seeds: list[OrgListing] = []
    for cand in ordered:
        item = shown.get(found.docs[cand.key[1]])
        if item is not None:
            results.append(_entry(session, peer, found, cand, item, explain))
            seeds.append(item)
    if expand and (seeds or local_seeds):
        mine = [Seed(s.id, s.related, s.repo) for s in seeds]
        results.extend(expand_links(session, peer, repos, by_vector, [*mine, *local_seeds],
                                    query_vectors.get((0, TASK)), include_inactive, limit))
    return results


# At most one command of a process reads a form's pairs list beside its other lists at a time (as
# background.py limits every such thread): with more commands at once the cores are busy anyway.
_LISTS_AT_A_TIME = threading.BoundedSemaphore(1)


class _PublishedLists:
    """The organisation store's candidate lists for ranking.rank, each one statement of
    org/ranking_sql.py: sections and word pairs by full text, vectors by pgvector's HNSW, and the
    background the vectors stand out of (a sample of the repositories' documents in a big store).

    In a big store (ranking_sql.is_big) a form's pairs list, the longest, is read on a
    second connection in the same snapshot (OrgPeer.beside) while this one reads the others: the
    server runs each connection's statements in a process of its own."""

    def __init__(self, peer: OrgPeer, repos: list[str], by_vector: list[str], found: Found,
                 query_vectors: Mapping[tuple[int, str], Any], include_inactive: bool) -> None:
        self.peer, self.repos, self.by_vector, self.found = peer, repos, by_vector, found
        self.query_vectors, self.include_inactive = query_vectors, include_inactive
        self._beside: OrgPeer | None = None
        self._beside_tried = False

    def form_lists(self, need: int, form: str, text: str) -> FormLists:
        from docir.org import ranking_sql

        peer, found, inactive, repos = self.peer, self.found, self.include_inactive, self.repos
        leave_common = form in LEAVES_COMMON

        def pairs_on(on: OrgPeer) -> list[LexicalRow]:
            return ranking_sql.lexical_pairs(on, repos, text, include_inactive=inactive, limit=CANDIDATES,
                                             leave_common=leave_common)

        other = self.beside()
        if other is None:
            pairs_later = background.already(pairs_on(peer))
        else:  # the words' weights first, read once for both lists (the peers share what they read)
            ranking_sql.weights_of(peer, repos, ranking_sql.terms_of(text), peer.lexical_totals(repos))
            pairs_later = background.start(pairs_on, other, limit=_LISTS_AT_A_TIME)
        try:
            sections = ranking_sql.lexical_sections(peer, repos, text, include_inactive=inactive, limit=CANDIDATES,
                                                    leave_common=leave_common)
            vector = self.query_vectors.get((need, form)) if form in BY_VECTOR else None
            query = None if vector is None else [float(x) for x in vector]
            if query is not None:
                nearest = ranking_sql.nearest(peer, self.by_vector, query, include_inactive=inactive,
                                              limit=CANDIDATES)
                drawn = ranking_sql.background(peer, self.by_vector, query, sample=ranking_sql.BACKGROUND_SAMPLE)
        except BaseException:
            with contextlib.suppress(BaseException):  # its connection is closed after: let it finish first
                pairs_later()
            raise
        for row in sections:
            found.sections[(form, found.key(row.repo, row.id))] = row
        lexical = lexical_candidates(found, sections, pairs_later())
        if query is None:
            return FormLists(lexical, [], [])
        measured = Background(sum(drawn.values()), sum(x * x for x in drawn.values()), len(drawn))
        standing: list[tuple[Candidate, float, float | None]] = []
        for near in nearest:
            key = found.key(near.repo, near.id)
            found.vectors[(form, key)] = near
            standing.append((Candidate(("doc", key), ordinal=near.ordinal), near.similarity,
                             drawn.get((near.repo, near.id))))
        return FormLists(lexical, [], ranking.standings(standing, measured))

    def beside(self) -> OrgPeer | None:
        """The second reader of a big store, opened at the first form that needs it; None in a small one."""
        from docir.org import ranking_sql

        if not self._beside_tried:
            self._beside_tried = True
            if ranking_sql.is_big(self.peer.lexical_totals(self.repos)):
                self._beside = self.peer.beside()
        return self._beside

    def close(self) -> None:
        if self._beside is not None:
            self._beside.close()
            self._beside = None

    def building_edges(self) -> lending.Edges:
        """The building links among ranked published documents, by their keys: lending's edges."""
        found, peer = self.found, self.peer

        def edges(sources: Sequence[int], targets: Sequence[int]) -> list[tuple[int, int]]:
            by_id: dict[str, list[int]] = {}
            for key in targets:
                by_id.setdefault(found.docs[key][1], []).append(key)
            links = peer.building_edges([found.docs[key] for key in sources], list(by_id))
            return [(found.keys[(repo, source)], key) for repo, source, target in links for key in by_id[target]]

        return edges


def _entry(session: Session, peer: OrgPeer, found: Found, cand: Fused, item: OrgListing,
           explain: bool) -> ContextHit:
    """A ranked published document, shaped as ranking._entry shapes a local one; `matched_section` is
    the section of the side that contributed more, as there."""
    key = cand.key[1]
    lead = cand.lead
    form = next(name for name, c in cand.forms.items() if c is lead)
    section_row = found.sections.get((form, key))
    vector_row = found.vectors.get((form, key))
    section: tuple[str, ...] | None = None
    size: int | None = None
    side = ranking.matched_side(lead, bool(vector_row is not None and vector_row.heading),
                                bool(section_row is not None and section_row.heading))
    if side == "vector" and vector_row is not None:
        section, size = vector_row.heading, vector_row.section_bytes
    elif side == "lexical" and section_row is not None:
        section, size = section_row.heading, section_row.section_bytes
    similarity = None if cand.similarity is None else round(cand.similarity, 4)
    entry: ContextHit = {
        **skeleton_of(session, item),
        "kind": "document",
        "score": round(cand.score, 4),
        "similarity": similarity,
        "matched_section": section[-1] if section else None,
        "matched_section_size": cost(size) if section and size is not None else None,
        "matched_passage": None,
        "via": None,
    }
    if not explain:
        return named(entry, peer.label, item.repo)
    task_section = found.sections.get((TASK, key))
    explained = ExplainedHit(**entry, explain={
        "store": peer.label,
        "repo": item.repo,
        **ranking.ranks_explained(cand),
        "rankings": _rankings(found, cand),
        "contributions": ranking.contributions(cand),
        **ranking.forms_explained(cand),
        "chunk": {"heading": " > ".join(task_section.heading)} if task_section and task_section.heading else None,
    })
    return named(explained, peer.label, item.repo)


def _rankings(found: Found, cand: Fused) -> dict[str, Any]:
    """Each form's lists' view of the document, as a local one's (local_ranking._rankings): place, raw
    number (the sections' bm25, the pairs' idf-weighted ts_rank, both named bm25 as locally, or cosine),
    z, section."""
    out: dict[str, Any] = {}
    key = cand.key[1]
    for form, each in cand.forms.items():
        lex = each.lexical
        if lex is not None and lex.section is not None:
            row = found.sections.get((form, key))
            out[ranking.part_name(form, "sections")] = {
                **ranking.standing_explained(lex.section, "bm25"),
                "section": " > ".join(row.heading) if row and row.heading else None}
        if lex is not None and lex.near is not None:
            out[ranking.part_name(form, "near")] = ranking.standing_explained(lex.near, "bm25")
        if each.vector is not None:
            vrow = found.vectors.get((form, key))
            out[ranking.part_name(form, "vector")] = {
                **ranking.standing_explained(each.vector, "cosine"),
                "section": " > ".join(vrow.heading) if vrow and vrow.heading else None}
    if cand.loan is not None:
        out["lent_by"] = [found.docs[key][1] for key in cand.loan.lenders]
    return out


def expand_links(session: Session, peer: OrgPeer, repos: list[str], by_vector: list[str], seeds: list[Seed],
                 task: Any, include_inactive: bool, limit: int) -> list[ContextRow]:
    """One hop from each seed into the organisation store (expansion.one_hop): the documents that succeed
    it (in any repository read) first, then the published documents it links to. A linked document this
    store has locally is left to the local answer. A local seed's rows say so in `via.store` (budget.py
    hangs them off it)."""
    from docir.org import ranking_sql

    edges = peer.successors(repos, [seed.id for seed in seeds], session.schema.successor_kinds)

    def hops(seed: Seed) -> list[Hop]:
        return hops_of(((e.kind, e.source) for e in edges if e.target == seed.id), seed.related,
                       session.schema.successor_kinds)

    def published(ids: set[str]) -> dict[str, OrgListing]:
        local = set(session.catalog.docs.listings_by_ids(ids))
        targets: dict[str, OrgListing] = {}
        for item in peer.listings_by_ids(repos, ids - local, include_inactive):
            targets.setdefault(item.id, item)
        return targets

    # Not the seeds' own ids: which ranked rows are shown is decided by the merge with the other stores,
    # which then leaves out a linked row that repeats one (federation.merge_by_similarity).
    reached = one_hop(seeds, hops, published, limit=limit)
    similarity: dict[tuple[str, str], float] = {}
    if task is not None and reached:
        similarity = ranking_sql.similarities(peer, by_vector, [item.id for _, _, item in reached],
                                              [float(x) for x in task])
    out: list[ContextRow] = []
    for seed, hop, item in reached:
        near = similarity.get((item.repo, item.id))
        via = Via(id=seed.id, kind=hop.kind, direction=hop.direction)
        if seed.repo is None:
            via["store"] = LOCAL_STORE
        row: ContextHit = {
            **skeleton_of(session, item),
            "kind": "document",
            "score": None,
            "similarity": None if near is None else round(near, 4),
            "matched_section": None,
            "matched_section_size": None,
            "matched_passage": None,
            "via": via,
        }
        out.append(named(row, peer.label, item.repo))
    return out
