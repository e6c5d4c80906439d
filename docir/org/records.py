"""The rows the organisation store's reader returns: plain tuples, no psycopg types."""

from __future__ import annotations

from typing import Any, NamedTuple


class OrgUnavailable(Exception):
    """The organisation store cannot be read now (not installed, unreachable, another schema version,
    a query refused); the message is one line, naming the reason."""


class OrgRepo(NamedTuple):
    name: str
    model_id: str | None  # the model of its vectors; None: none computed
    row_format: int = 1  # rows.ROW_FORMAT of its last publish
    # What bm25 counts over (org/lexemes.py): its searched documents and sections, and their tokens.
    documents: int = 0
    document_tokens: int = 0
    sections: int = 0
    section_tokens: int = 0
    vector_index: str | None = None  # its sections' own HNSW index (a bulk publish's); None: the shared one


class OrgListing(NamedTuple):
    """A document's skeleton-level fields, as the local index's Listing has them, plus its repository."""

    repo: str
    id: str
    path: str
    type: str
    title: str
    description: str
    status: str
    tags: tuple[str, ...]
    related: tuple[tuple[str, str], ...]  # (kind, target id)
    owner: str | None
    verified: str | None
    archived: bool
    size: int  # bytes of its body
    hidden: int = 0  # bytes of HTML comments, as a local Listing counts them; a published body is read whole


class OrgDocument(NamedTuple):
    """What `get` returns of a published document: its listing, its whole frontmatter and its body."""

    listing: OrgListing
    frontmatter: dict[str, Any]
    body: str


class LexicalRow(NamedTuple):
    """One document in one full-text ranking: its raw bm25-like score (ranking_sql._weighted), the section
    that won it (None for a whole-document ranking) and the share of the task's terms it contains."""

    repo: str
    id: str
    raw: float
    heading: tuple[str, ...] | None
    section_bytes: int | None
    coverage: float


class VectorRow(NamedTuple):
    """One document in the vector ranking: its best cosine, of its document vector (ordinal -1) or
    of one of its sections."""

    repo: str
    id: str
    similarity: float
    ordinal: int
    heading: tuple[str, ...] | None
    section_bytes: int | None


class OrgEdge(NamedTuple):
    """A link in the organisation store: (repo, doc_id) names its source, target any document's id."""

    repo: str
    source: str
    kind: str
    target: str
