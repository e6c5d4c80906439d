"""Skeletons: what a listing shows of a document — frontmatter and description, never the body."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from docir.index.records import DocRow, Listing
from docir.schema import Schema
from docir.services.retrieval.results import FullDocument, Link, Linked, Size, Skeleton

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


def incoming(schema: Schema, edges: Iterable[tuple[str, str]]) -> list[Link]:
    """A document's incoming (kind, source id) edges as links named from its side: the kind's inverse in
    the schema (`supersedes` arrives as `superseded-by`), or the kind itself where it names none. What
    replaces it comes first, then the schema's order of kinds, each kind's sources by id (adr-621fe44c820a)."""
    kinds = schema.relations
    order = {name: (not kind.successor, n) for n, (name, kind) in enumerate(kinds.items())}
    ranked = sorted(set(edges), key=lambda edge: (order.get(edge[0], (True, len(order))), edge[0], edge[1]))
    return [{"kind": (kinds[kind].inverse if kind in kinds else None) or kind, "id": source}
            for kind, source in ranked]


def linked(item: Listing | DocRow | OrgListing, schema: Schema, today: dt.date,
           edges: Iterable[tuple[str, str]]) -> Linked:
    """The skeleton and the links that point at it (`edges`: its incoming (kind, source id) pairs)."""
    return {**skeleton(item, schema, today), "incoming": incoming(schema, edges)}


def full_document(row: DocRow, schema: Schema, today: dt.date, edges: Iterable[tuple[str, str]]) -> FullDocument:
    """A linked skeleton plus what `get` adds: archived flag, the whole frontmatter and the body."""
    return {**linked(row, schema, today, edges), "archived": row.archived, "frontmatter": json.loads(row.meta_json),
            "body": row.body}
