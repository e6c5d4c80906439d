"""The shapes the read commands return: one definition, printed by the CLI and returned by the MCP server.

Rows are TypedDicts because they are the JSON an agent reads (key order included);
each envelope is a dataclass whose `to_json` is the command's whole output.
The README's "JSON shapes" table describes these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict


class Size(TypedDict):
    """What reading something costs an agent: bytes, and tokens at about four bytes each."""

    bytes: int
    tokens: int


class Link(TypedDict):
    kind: str
    id: str


class Skeleton(TypedDict):
    """What every listing shows of a document: frontmatter and description, never the body."""

    id: str
    type: str
    title: str
    description: str
    status: str
    tags: list[str]
    related: list[Link]
    owner: str | None
    verified: str | None
    stale: bool
    path: str
    size: Size
    store: NotRequired[str]  # only while reading across stores: "." is this one


class SearchHit(Skeleton):
    score: float  # rank-derived, see fusion.rank_score
    similarity: None  # search uses no model
    fts_score: float


class Via(TypedDict):
    """How a linked document came in: the result it hangs off and the edge between them."""

    id: str
    kind: str
    direction: Literal["successor", "outgoing"]


class ContextHit(Skeleton):
    kind: Literal["document"]
    score: float | None  # None for a document that came in along a link
    similarity: float | None
    matched_section: str | None
    matched_section_size: Size | None
    via: Via | None


class ExplainedHit(ContextHit):
    """With --explain: why it placed where it did."""

    explain: dict[str, Any]


class ReferenceHit(TypedDict):
    """A chunk of a read-only reference corpus, ranked beside documents."""

    kind: Literal["reference"]
    id: str
    ref: str
    title: str
    heading_path: list[str]
    source_uri: str
    continuation: bool
    size: Size
    score: float
    similarity: float | None
    via: None
    explain: NotRequired[dict[str, Any]]
    store: NotRequired[str]


ContextRow = ContextHit | ReferenceHit


class FullDocument(Skeleton):
    """A skeleton plus what `get` adds."""

    archived: bool
    frontmatter: dict[str, Any]
    body: str


class DocumentSection(FullDocument):
    """`get --section`: `body` holds only that heading's span."""

    section: str


class ReferenceText(TypedDict):
    """`get` of a reference chunk: its whole section, the pieces of a split section rejoined."""

    kind: Literal["reference"]
    id: str
    ref: str
    title: str
    heading_path: list[str]
    source_uri: str
    sha256: str
    pieces: int
    text: str
    store: NotRequired[str]


Fetched = FullDocument | ReferenceText


@dataclass
class GetResult:
    documents: list[Fetched] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # ids with no document
    no_section: list[str] = field(default_factory=list)  # ids whose document lacks the section

    def to_json(self) -> dict[str, Any]:
        return {"documents": self.documents, "missing": self.missing}


@dataclass
class QueryResult:
    results: list[Skeleton]

    def to_json(self) -> dict[str, Any]:
        return {"results": self.results, "count": len(self.results)}


@dataclass
class SearchResult:
    query: str
    results: list[SearchHit]

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "results": self.results, "count": len(self.results)}


@dataclass
class ContextResult:
    results: list[ContextRow]
    semantic: str  # "on" or "off: <reason>"
    queries: list[str] = field(default_factory=list)
    pending: int = 0  # documents whose vectors are not computed yet: found lexically meanwhile
    sections_pending: int = 0  # documents ranked by their document vector until their section vectors exist

    def to_json(self) -> dict[str, Any]:
        return {"query": self.queries[0] if self.queries else "", "also": self.queries[1:],
                "semantic": self.semantic, "pending": self.pending, "sections_pending": self.sections_pending,
                "results": self.results, "count": len(self.results)}
