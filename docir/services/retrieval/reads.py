"""The read commands that need no model: get, query, search."""

from __future__ import annotations

from docir.documents.headings import find_headings, section_span
from docir.documents.ids import check_ids
from docir.errors import UsageError
from docir.index.fts import match_expression
from docir.index.records import Filters, Hit
from docir.services.indexing.session import Session
from docir.services.retrieval import fusion
from docir.services.retrieval.results import DocumentSection, GetResult, ReferenceText, SearchHit, Skeleton
from docir.services.retrieval.skeleton import full_document, is_stale, skeleton
from docir.services.retrieval.visibility import Visibility

REF_PREFIX = "ref-"  # reference chunk ids; the schema reserves the prefix


def get(session: Session, ids: list[str], section: str | None = None) -> GetResult:
    """Whole documents by id, in the order asked, any status, archived included."""
    check_ids(ids)
    result = GetResult()
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
        doc = full_document(row, session.schema, session.today)
        if section is not None:
            span = section_span(row.body, section)
            if span is None:
                headings = ", ".join(f"'{h.text}'" for h in find_headings(row.body)) or "none"
                session.warnings.append(f"{doc_id} has no section '{section}' (its headings: {headings})")
                result.no_section.append(doc_id)
                continue
            start, end, heading = span
            part = DocumentSection(**doc, section=heading.text)
            part["body"] = row.body[start:end]
            result.documents.append(part)
            continue
        result.documents.append(doc)
    return result


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
        check_ids([filters.related_to])


def query(session: Session, filters: Filters, *, stale: bool | None = None,
          include_inactive: bool = False, limit: int = 50) -> list[Skeleton]:
    """Skeletons matching structured filters, visible ones only unless widened."""
    validate_filters(session, filters)
    # Asking for a status by name is asking to see it, closed or not; archived stays out.
    visibility = Visibility.from_schema(session.schema, include_inactive or bool(filters.statuses))
    out: list[Skeleton] = []
    for item in session.catalog.docs.listings(filters):
        if not visibility.allows(item.type, item.status, item.archived):
            continue
        if stale is not None and is_stale(session.schema, item.type, item.verified, session.today) != stale:
            continue
        out.append(skeleton(item, session.schema, session.today))
        if len(out) >= limit:
            break
    return out


def visible_hits(session: Session, text: str, visibility: Visibility, limit: int) -> list[Hit]:
    """Visible documents in bm25 order (lower is better), up to `limit`: shared by search and context.

    Only type, status and archived are read to apply the visibility predicate; callers read
    full listings for the few rows they show.
    """
    match = match_expression(text)
    if match is None:
        return []
    # Most matches are visible: fetch a few times what is needed, and everything only if not enough.
    hits = session.catalog.search.lexical_hits(match, limit * 4)
    if len(hits) == limit * 4:
        seen = session.catalog.docs.visibility_rows(h.rowid for h in hits)
        if sum(1 for row in seen.values() if visibility.allows(*row)) < limit:
            hits = session.catalog.search.lexical_hits(match)
    ranked: list[Hit] = []
    for start in range(0, len(hits), max(limit, 100)):
        batch = hits[start : start + max(limit, 100)]
        seen = session.catalog.docs.visibility_rows(h.rowid for h in batch)
        for hit in batch:
            row = seen.get(hit.rowid)
            if row is not None and visibility.allows(*row):
                ranked.append(hit)
                if len(ranked) >= limit:
                    return ranked
    return ranked


def search(session: Session, text: str, *, include_inactive: bool = False, limit: int = 10) -> list[SearchHit]:
    """Full-text ranking only (no model): skeletons with a rank-derived score."""
    visibility = Visibility.from_schema(session.schema, include_inactive)
    hits = visible_hits(session, text, visibility, limit)
    listings = session.catalog.docs.listings_by_rowid(h.rowid for h in hits)
    # score is rank-derived, as in context: only the order means anything
    return [{**skeleton(listings[hit.rowid], session.schema, session.today), "score": round(fusion.rank_score(rank), 6),
             "similarity": None, "fts_score": round(-hit.bm25, 4)} for rank, hit in enumerate(hits, start=1)]
