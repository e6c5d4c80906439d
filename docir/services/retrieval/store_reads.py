"""One store's own reads, no peers and no model: what get, query and search find in an index."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docir.documents.ids import check_ids, is_valid_id
from docir.errors import UsageError
from docir.index.records import Filters, Listing
from docir.services.indexing import numbers
from docir.services.indexing.session import Session
from docir.services.retrieval.results import (
    DocumentSection,
    FullDocument,
    GetResult,
    Linked,
    ReferenceText,
    SearchHit,
)
from docir.services.retrieval.skeleton import full_document, is_stale, linked, skeleton
from docir.services.retrieval.visibility import Visibility

if TYPE_CHECKING:
    pass

REF_PREFIX = "ref-"  # reference chunk ids; the schema reserves the prefix


def get(session: Session, ids: list[str], section: str | None = None) -> GetResult:
    """Whole documents by id (or by number, "ADR 21"), in the order asked, any status, archived included."""
    result = GetResult()
    ids = _by_number(session, ids, result)
    check_ids(ids)
    for doc_id in dict.fromkeys(ids):
        rows = session.catalog.docs.by_id(doc_id)
        if not rows:
            reference = reference_chunk(session, doc_id) if doc_id.startswith(REF_PREFIX) else None
            if reference is None:
                result.missing.append(doc_id)
            else:
                result.documents.append(reference)
            continue
        if len(rows) > 1:
            paths = ", ".join(row.path for _, row in rows)
            session.warnings.append(f"duplicate id {doc_id} in {paths}; showing {rows[0][1].path} (run 'docir lint')")
        row = rows[0][1]
        edges = pending_named(session, {doc_id: session.catalog.docs.edges_to(doc_id, session.schema.relations)})
        add_fetched(session, result, full_document(row, session.schema, session.today, edges[doc_id]), row.body,
                    section)
    return result


# An incoming successor edge from a document not yet in force (a proposal): it names the document's proposed
# replacement, which replaces nothing until it is accepted (adr-8f1dd17f77a9).
PROPOSED_REPLACEMENT = "proposed-replacement"


def pending_named(session: Session, edges: dict[str, list[tuple[str, str]]]) -> dict[str, list[tuple[str, str]]]:
    """`edges` (target -> incoming (kind, source) pairs) with each successor edge whose source is pending named
    PROPOSED_REPLACEMENT: a decision shows its proposal as such, never as what superseded it."""
    kinds = session.schema.successor_kinds
    sources = {source for pairs in edges.values() for kind, source in pairs if kind in kinds}
    if not sources:
        return edges
    pending = set()
    for doc_id, item in session.catalog.docs.listings_by_ids(sources).items():
        spec = session.schema.type_spec(item.type)
        if spec is not None and item.status in spec.pending_statuses:
            pending.add(doc_id)
    if not pending:
        return edges
    return {target: [(PROPOSED_REPLACEMENT if kind in kinds and source in pending else kind, source)
                     for kind, source in pairs] for target, pairs in edges.items()}


def _by_number(session: Session, refs: list[str], result: GetResult) -> list[str]:
    """`refs` with each number reference ("ADR 21") replaced by the id of the one document it names; one that
    names none, or several, is missing (with a warning naming the several)."""
    ids: list[str] = []
    for ref in refs:
        found = None if is_valid_id(ref) else numbers.numbered(session, ref)
        if found is None:
            ids.append(ref)
        elif len(found) == 1:
            ids.append(found[0])
        else:
            if found:
                session.warnings.append(f"{ref} names {len(found)} documents ({', '.join(found)}); pass one's id")
            result.missing.append(ref)
    return ids


def add_fetched(session: Session, result: GetResult, doc: FullDocument, body: str, section: str | None) -> None:
    """`doc` joins `result`: whole, or only its `section` (named in `result.no_section`, with a warning
    listing its headings, when it has none by that name). Local and published documents alike."""
    if section is None:
        result.documents.append(doc)
        return
    # Only `get --section` parses headings (cold start, adr-d5e80517405b).
    from docir.documents.headings import find_headings, section_span

    span = section_span(body, section)
    if span is None:
        headings = ", ".join(f"'{h.text}'" for h in find_headings(body)) or "none"
        session.warnings.append(f"{doc['id']} has no section '{section}' (its headings: {headings})")
        result.no_section.append({"id": doc["id"], "section": section})
        return
    start, end, heading = span
    part = DocumentSection(**doc, section=heading.text)
    part["body"] = body[start:end]
    result.documents.append(part)


def reference_chunk(session: Session, chunk_id: str) -> ReferenceText | None:
    """A reference chunk by id, its section shown whole: the pieces of a split section are rejoined."""
    found = session.catalog.refs.chunks(ids=[chunk_id])
    if not found:
        return None
    stored = found[0]
    pieces = session.catalog.refs.section(stored.source_uri, stored.chunk.heading_path)
    # Each piece starts with the breadcrumb line; the section text follows the blank line.
    text = "\n\n".join(p.chunk.text.split("\n\n", 1)[-1] for p in pieces)
    return {"kind": "reference", "id": stored.chunk.id, "ref": stored.ref, "title": stored.chunk.heading_path[-1],
            "heading_path": list(stored.chunk.heading_path), "source_uri": stored.source_uri,
            "sha256": stored.sha256, "pieces": len(pieces), "text": text}


def validate_filters(session: Session, filters: Filters) -> None:
    schema = session.schema
    for name in filters.types:
        if schema.type_spec(name) is None:
            raise UsageError(f"unknown type '{name}'; the schema has: {', '.join(schema.types)}")
    known = {s for spec in schema.types.values() for s in spec.statuses}
    for status in filters.statuses:
        if status not in known:
            raise UsageError(f"unknown status '{status}'; the schema allows: {', '.join(sorted(known))}")
    if filters.related_to is not None:
        check_ids([filters.related_to])  # a record's number is read by `query` (reads.query) before it comes here


def query(session: Session, filters: Filters, *, stale: bool | None = None,
          include_inactive: bool = False, limit: int = 50) -> list[Linked]:
    """Skeletons matching structured filters, with the links that point at them; visible ones only unless
    widened."""
    validate_filters(session, filters)
    # Asking for a status by name is asking to see it, closed or not; archived stays out.
    visibility = Visibility.from_schema(session.schema, include_inactive or bool(filters.statuses))
    found: list[Listing] = []
    for item in session.catalog.docs.listings(filters):
        if not visibility.allows(item.type, item.status, item.archived):
            continue
        if stale is not None and is_stale(session.schema, item.type, item.verified, session.today) != stale:
            continue
        found.append(item)
        if len(found) >= limit:
            break
    edges = pending_named(session, session.catalog.docs.edges_into((item.id for item in found),
                                                                   session.schema.relations))
    return [linked(item, session.schema, session.today, edges.get(item.id, ())) for item in found]


def search(session: Session, text: str, *, include_inactive: bool = False, limit: int = 10) -> list[SearchHit]:
    """Lexical ranking only (no model): skeletons with a rank-derived score and the best section's bm25."""
    from docir.services.retrieval import fusion, lexical  # search's alone: get and query skip them (cold start)

    visibility = Visibility.from_schema(session.schema, include_inactive)
    ranked = lexical.rank_documents(session, text, visibility, limit)[:limit]
    listings = session.catalog.docs.listings_by_rowid(c.rowid for c in ranked)
    # score is rank-derived, as in context: only the order means anything
    return [{**skeleton(listings[c.rowid], session.schema, session.today), "score": round(fusion.rank_score(rank), 6),
             "similarity": None, "fts_score": round(c.fts_score, 4)} for rank, c in enumerate(ranked, start=1)]
