"""The Document: one Markdown file's frontmatter and body, read-only."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any, NamedTuple

from docir.documents.headings import find_headings
from docir.documents.reader_view import Visible, visible_text

# What a document's vector is computed from, so also what marks its vectors due when it
# changes (adr-1ed1c975c861): status, tags and links are not in it and recompute nothing.
EMBEDDED_FIELDS = ("title", "description", "body")


def embedded_text(title: str, description: str, body: str, seen: Visible | None = None) -> str:
    """The text of a document's own vector (its sections get vectors of their own): what a reader
    sees of the body, without the HTML comments a template leaves in every document. `seen` is
    Visible.of(body) where the caller holds it."""
    return f"{title}\n\n{description}\n\n{seen.slice() if seen is not None else visible_text(body)}"


def text_sha(text: str) -> str:
    """The content key of a text: vectors are stored by it, so equal text is embedded once."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Edge(NamedTuple):
    kind: str
    target: str


class Document(NamedTuple):
    """A parsed document. `meta` is the frontmatter exactly as YAML loaded it."""

    path: str  # relative to the store root, forward slashes
    meta: dict[str, Any]
    body: str
    # (source id, kind, target id): edges the file states that another document is the source of, as a record
    # read in place says "Superseded by [3. X](0003-x.md)" (documents/records/in_place.py); the index keeps them
    # with this document's row.
    stated: tuple[tuple[str, str, str], ...] = ()

    @property
    def id(self) -> str:
        return _text(self.meta.get("id"))

    @property
    def type(self) -> str:
        return _text(self.meta.get("type"))

    @property
    def title(self) -> str:
        return _text(self.meta.get("title"))

    @property
    def description(self) -> str:
        return _text(self.meta.get("description"))

    @property
    def status(self) -> str:
        return _text(self.meta.get("status"))

    @property
    def owner(self) -> str | None:
        owner = self.meta.get("owner")
        return None if owner is None else _text(owner)

    @property
    def verified(self) -> dt.date | None:
        return as_date(self.meta.get("verified"))

    @property
    def tags(self) -> tuple[str, ...]:
        raw = self.meta.get("tags")
        if raw is None:
            return ()
        if isinstance(raw, str):
            return tuple(t.strip() for t in raw.split(",") if t.strip())
        if isinstance(raw, list):
            return tuple(_text(t) for t in raw if t is not None)
        return ()

    @property
    def related(self) -> tuple[Edge, ...]:
        """Typed edges from `related: [{kind: id}, ...]`; malformed items are left to lint."""
        raw = self.meta.get("related")
        if not isinstance(raw, list):
            return ()
        edges: list[Edge] = []
        for item in raw:
            if not isinstance(item, dict):
                continue
            for kind, targets in item.items():
                for target in targets if isinstance(targets, list) else [targets]:
                    if isinstance(target, str) and target:
                        edges.append(Edge(str(kind), target))
        return tuple(edges)

    def headings(self, seen: Visible | None = None) -> tuple[str, ...]:
        """Its headings' texts; `seen` is Visible.of(self.body) where the caller holds it."""
        return tuple(h.text for h in find_headings(self.body, seen))


def as_date(value: Any) -> dt.date | None:
    """A date from YAML (already a date, or an ISO string); None when absent or invalid."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)
