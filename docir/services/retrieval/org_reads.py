"""The organisation store as a peer of get, query and search: its rows shaped as a local store's.

Each row names its `store` (the URL without credentials) and its `repo`. The repositories read are
those the stores.yaml entry asks for, less this repository's own published copy (`readable`):
its documents are answered locally, as they are now, not as they were last published.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, TypeVar

from docir.index.fts import CANDIDATES
from docir.index.records import Filters
from docir.services.indexing.session import Session
from docir.services.retrieval import fusion, lexical, store_reads
from docir.services.retrieval.lexical import LexicalCandidate
from docir.services.retrieval.results import (
    ContextHit,
    ExplainedHit,
    FullDocument,
    GetResult,
    Linked,
    SearchHit,
    Skeleton,
)
from docir.services.retrieval.skeleton import is_stale, linked, skeleton

if TYPE_CHECKING:
    from docir.org.peer import OrgPeer
    from docir.org.records import LexicalRow, OrgDocument, OrgListing, VectorRow

# Enough of this store's ids to recognise its published copy: any one of them names it (ids are global).
_COPY_SAMPLE = 20


def readable(session: Session, peer: OrgPeer) -> list[str]:
    """The repositories to read: the entry's, less any that holds one of this store's ids."""
    sample = [item.id for item in islice(session.catalog.docs.listings(), _COPY_SAMPLE)]
    copies = peer.copies_of(sample)
    names = [name for name in peer.names if name not in copies]
    from docir.org.rows import ROW_FORMAT

    older = [repo.name for repo in peer.repos if repo.name in names and repo.row_format < ROW_FORMAT]
    if older:
        warning = (f"organisation store {peer.label}: {', '.join(older[:3])}{' and more' if len(older) > 3 else ''} "
                   "published with an older docir: found by meaning alone until they publish again")
        if warning not in session.warnings:
            session.warnings.append(warning)
    return names


def skeleton_of(session: Session, item: OrgListing) -> Skeleton:
    """A published document's skeleton, as a local one's is made. Staleness is judged by this store's
    schema, as every other row of the answer is."""
    return skeleton(item, session.schema, session.today)


Row = TypeVar("Row", Skeleton, Linked, SearchHit, FullDocument, ContextHit, ExplainedHit)


def named(row: Row, label: str, repo: str) -> Row:
    """A row naming its store and repository, last, as federation.tag names a peer's."""
    row["store"] = label
    row["repo"] = repo
    return row


def get(session: Session, peer: OrgPeer, result: GetResult, section: str | None) -> None:
    """Look the ids `result` still misses up in the organisation store, in place: found ones join
    `result.documents`, any status, archived included."""
    found: dict[str, OrgDocument] = {}
    for doc in peer.documents(result.missing):
        if doc.listing.id in found:
            first = found[doc.listing.id].listing.repo
            session.warnings.append(f"{peer.label}: id {doc.listing.id} is in {first} and {doc.listing.repo}; "
                                    f"showing {first}'s")
            continue
        found[doc.listing.id] = doc
    still: list[str] = []
    edges = incoming_edges(session, peer, readable(session, peer), list(found)) if found else {}
    for doc_id in result.missing:
        if doc_id not in found:
            still.append(doc_id)
            continue
        doc = found[doc_id]
        full: FullDocument = {**linked(doc.listing, session.schema, session.today, edges.get(doc_id, ())),
                              "archived": doc.listing.archived, "frontmatter": doc.frontmatter, "body": doc.body}
        store_reads.add_fetched(session, result, named(full, peer.label, doc.listing.repo), doc.body, section)
    result.missing = still


def incoming_edges(session: Session, peer: OrgPeer, repos: list[str],
                   ids: list[str]) -> dict[str, list[tuple[str, str]]]:
    """The (kind, source id) links of this store's schema's kinds that point at each of `ids` from the
    published documents of `repos`, by target: their incoming links, as a local index finds them."""
    found: dict[str, list[tuple[str, str]]] = {}
    for edge in peer.incoming(repos, ids, session.schema.relations):
        found.setdefault(edge.target, []).append((edge.kind, edge.source))
    return found


def query(session: Session, peer: OrgPeer, filters: Filters, *, stale: bool | None, include_inactive: bool,
          limit: int) -> list[Linked]:
    """Published documents matching the structured filters, as reads.query finds local ones."""
    # Staleness is judged here, by this store's schema: without that filter the database cuts the list.
    repos = readable(session, peer)
    rows = peer.matching(repos, filters, limit=limit if stale is None else None,
                         include_inactive=include_inactive or bool(filters.statuses))
    kept: list[OrgListing] = []
    for item in rows:
        if stale is not None and is_stale(session.schema, item.type, item.verified, session.today) != stale:
            continue
        kept.append(item)
        if len(kept) >= limit:
            break
    edges = incoming_edges(session, peer, repos, [item.id for item in kept])
    return [named(linked(item, session.schema, session.today, edges.get(item.id, ())), peer.label, item.repo)
            for item in kept]


def search(session: Session, peer: OrgPeer, text: str, *, include_inactive: bool, limit: int) -> list[SearchHit]:
    """Published documents by their full-text lists (no model), ranked as store_reads.search ranks local ones:
    the best section's bm25 and the word pairs standing close, each as z-scores, weighed by coverage."""
    from docir.org import ranking_sql

    repos = readable(session, peer)
    wanted = max(limit, CANDIDATES)  # the lengths of a local search's lists (lexical.rank_documents)
    sections = ranking_sql.lexical_sections(peer, repos, text, include_inactive=include_inactive, limit=wanted)
    pairs = ranking_sql.lexical_pairs(peer, repos, text, include_inactive=include_inactive, limit=wanted)
    found = Found()
    ranked = [(found.docs[c.rowid], c.fts_score) for c in lexical_candidates(found, sections, pairs)[:limit]]
    listings = {(item.repo, item.id): item
                for item in peer.listings_by_ids(peer.names, (doc_id for (_, doc_id), _ in ranked), include_inactive)}
    out: list[SearchHit] = []
    for key, fts_score in ranked:
        item = listings.get(key)
        if item is None:
            continue
        hit: SearchHit = {**skeleton_of(session, item), "score": round(fusion.rank_score(len(out) + 1), 6),
                          "similarity": None, "fts_score": round(fts_score, 4)}
        out.append(named(hit, peer.label, item.repo))
    return out


DocKey = tuple[str, str]  # (repo, id)


class Found:
    """What the candidate lists said of each document, by the integer key ranking.py's candidates carry."""

    def __init__(self) -> None:
        self.keys: dict[DocKey, int] = {}
        self.docs: list[DocKey] = []
        self.sections: dict[tuple[str, int], LexicalRow] = {}  # (form, key) -> best section
        self.vectors: dict[tuple[str, int], VectorRow] = {}  # (form, key) -> best vector

    def key(self, repo: str, doc_id: str) -> int:
        found = self.keys.get((repo, doc_id))
        if found is None:
            found = self.keys[(repo, doc_id)] = len(self.docs)
            self.docs.append((repo, doc_id))
        return found


def lexical_candidates(found: Found, sections: list[LexicalRow], pairs: list[LexicalRow]) -> list[LexicalCandidate]:
    """The organisation store's two full-text lists ranked as a local index ranks its own: one candidate a
    published document, by the key `found` gives it, with the coverage the database counted."""
    by_key = lexical.candidates([(found.key(r.repo, r.id), r.raw) for r in sections],
                                [(found.key(r.repo, r.id), r.raw) for r in pairs])
    for row in (*sections, *pairs):
        by_key[found.key(row.repo, row.id)].coverage = row.coverage
    return lexical.in_order(by_key.values())
