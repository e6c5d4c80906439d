"""What a record's read facts mean in a store's schema: its status among the type's, its links as relation kinds.

One home for the mapping `docir adopt` writes into frontmatter and a folder read in place derives on every
read (adr-0c5e2d8f1a47), so an adopted record and the same record read in place never disagree.
"""

from __future__ import annotations

from docir.documents.records.reading import Foreign
from docir.schema import Schema, TypeSpec

# A normalised status -> the statuses a type may call it, best first.
STATUS_TARGETS = {
    "accepted": ("accepted", "approved", "current", "active", "final"),
    "proposed": ("proposed", "draft", "open"),
    "rejected": ("rejected", "wontfix", "declined"),
    "deprecated": ("deprecated", "obsolete", "retired"),
    "superseded": ("superseded", "replaced", "deprecated"),
}
# Directions a record names another in -> the relation it becomes (kind, whether the other holds it).
DIRECTIONS = {
    "superseded-by": ("successor", True), "supersedes": ("successor", False),
    "amended-by": ("amends", True), "amends": ("amends", False),
    "depends-on": ("depends-on", False), "relates-to": ("relates-to", False),
}


def word(src: Foreign) -> str | None:
    """The normalised status a record states, all its places weighed: a successor named anywhere makes it
    superseded; a status its title carries outranks a stale accepted or proposed; None when it states none."""
    if src.superseded_in_links:
        return "superseded"
    said = src.status.word if src.status is not None else None
    if src.title_status is not None and said in (None, "accepted", "proposed"):
        return src.title_status  # "[superseded] Title": the title says what became of it, the status went stale
    return said


def map_status(spec: TypeSpec, normalised: str) -> str:
    """A normalised status as one of the type's statuses."""
    if normalised in spec.statuses:
        return normalised
    for candidate in STATUS_TARGETS.get(normalised, ()):
        if candidate in spec.statuses:
            return candidate
    if normalised in ("superseded", "deprecated", "rejected") and spec.inactive_statuses:
        return sorted(spec.inactive_statuses)[0]
    return spec.default_status


def relation_kinds(schema: Schema) -> dict[str, str | None]:
    """Each role a record's link plays (successor, amends, depends-on, relates-to) -> the schema's kind for it."""
    successor = "supersedes" if "supersedes" in schema.successor_kinds else next(iter(sorted(schema.successor_kinds)),
                                                                                   None)
    return {"successor": successor, "amends": _first(schema, "amends", "depends-on", "relates-to"),
            "depends-on": _first(schema, "depends-on", "relates-to"), "relates-to": _first(schema, "relates-to")}


def _first(schema: Schema, *kinds: str) -> str | None:
    return next((kind for kind in kinds if kind in schema.relations), None)
