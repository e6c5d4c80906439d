"""Skeletons: what a listing shows of a document — frontmatter and description, never the body."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

from docir.index.records import DocRow, Listing
from docir.schema import Schema
from docir.services.retrieval.results import FullDocument, Size, Skeleton

if TYPE_CHECKING:
    from docir.org.records import OrgListing


def is_stale(schema: Schema, doc_type: str, verified: str | None, today: dt.date) -> bool:
    """`verified` older than the type's max_age_days, or missing where the type requires it."""
    spec = schema.type_spec(doc_type)
    if spec is None:
        return False
    if verified is None:
        return "verified" in spec.required
    if spec.max_age_days is None:
        return False
    try:
        when = dt.date.fromisoformat(verified)
    except ValueError:
        return True
    return (today - when).days > spec.max_age_days


def skeleton(item: Listing | DocRow | OrgListing, schema: Schema, today: dt.date) -> Skeleton:
    """The skeleton of a document (adr-038041ae4302); ranking fields are added by the ranker."""
    return {
        "id": item.id,
        "type": item.type,
        "title": item.title,
        "description": item.description,
        "status": item.status,
        "tags": list(item.tags),
        "related": [{"kind": kind, "id": target} for kind, target in item.related],
        "owner": item.owner,
        "verified": item.verified,
        "stale": is_stale(schema, item.type, item.verified, today),
        "path": item.path,
        "size": cost(item.size, item.hidden),
    }


def cost(size_bytes: int, hidden: int = 0) -> Size:
    """What reading it costs an agent: bytes, and tokens at about four bytes each; and how many of
    those bytes are HTML comments, where there are any (adr-b3bfbc7a2dfb)."""
    size: Size = {"bytes": size_bytes, "tokens": (size_bytes + 3) // 4}
    if hidden:
        size["hidden"] = hidden
    return size


def full_document(row: DocRow, schema: Schema, today: dt.date) -> FullDocument:
    """A skeleton plus what `get` adds: archived flag, the whole frontmatter and the body."""
    return {**skeleton(row, schema, today), "archived": row.archived, "frontmatter": json.loads(row.meta_json),
            "body": row.body}
