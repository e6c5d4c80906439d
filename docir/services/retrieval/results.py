"""The shapes the read commands return: one definition, printed by the CLI and returned by the MCP server.

Rows are TypedDicts because they are the JSON an agent reads (key order included);
each envelope is a NamedTuple or a small class (a cold read must not import dataclasses,
docir/request_options.py) whose `to_json` is the command's whole output.
docs/reference/json.markdown is generated from these types (python -m docir.cli.reference_pages).
"""

# No `from __future__ import annotations`: typing would compile each annotation of these classes as a
# string when the class is made, on every cold command (adr-d5e80517405b).
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict

from docir.services.retrieval.need import TASK, Need

# What a row's `store` says of this store's own rows, when a read spans several stores.
LOCAL_STORE = "."


class Size(TypedDict):
    """What reading something costs an agent: bytes, and tokens at about four bytes each."""

    bytes: int
    tokens: int
    hidden: NotRequired[int]  # bytes of it in HTML comments, which a reader does not see; absent when none


class Link(TypedDict):
    kind: str
    id: str


class _Frontmatter(TypedDict):
    """A document's frontmatter as listings show it, but for its links (a list or a count)."""

    id: str
    type: str
    title: str
    description: str
    status: str
    tags: list[str]
    owner: str | None
    verified: str | None
    stale: bool
    path: str
    size: Size
    store: NotRequired[str]  # only while reading across stores: "." is this one
    repo: NotRequired[str]  # only from an organisation store: the repository that published it


class Skeleton(_Frontmatter):
    """What every listing shows of a document: frontmatter and description, never the body."""

    related: list[Link]


class SearchHit(Skeleton):
    score: float  # rank-derived, see fusion.rank_score
    similarity: None  # search uses no model
    fts_score: float


class Via(TypedDict):
    """How a linked document came in: the result it hangs off and the edge between them."""

    id: str
    kind: str
    direction: Literal["successor", "outgoing"]
    store: NotRequired[str]  # the store of the result it hangs off, when that is not its own


class ContextHit(Skeleton):
    kind: Literal["document"]
    score: float | None  # the fused sum of z-scores (fusion.py); None for a document that came in along a link
    similarity: float | None
    matched_section: str | None
    matched_section_size: Size | None
    via: Via | None
    matched_passage: str | None  # the sentence of that section that says most of the task


class ExplainedHit(ContextHit):
    """With --explain: why it placed where it did."""

    explain: dict[str, Any]


class _Reference(TypedDict):
    """What names a chunk of a read-only reference corpus (a `ref-` id, never a document's)."""

    kind: Literal["reference"]
    id: str
    ref: str
    title: str
    heading_path: list[str]
    source_uri: str


class ReferenceHit(_Reference):
    """A reference chunk ranked beside documents."""

    continuation: bool
    size: Size
    score: float
    similarity: float | None
    via: None
    explain: NotRequired[dict[str, Any]]
    store: NotRequired[str]


class BriefHit(_Frontmatter):
    """A ranked document as `context` shows it by default: a skeleton whose `related` list
    became a count, since the documents it names follow as linked entries (see budget.py)."""

    related_count: int
    kind: Literal["document"]
    score: float | None
    similarity: float | None
    matched_section: str | None
    matched_section_size: Size | None
    via: None
    matched_passage: str | None  # the sentence of that section that says most of the task
    matched_glob: NotRequired[str]  # with --path/--changed: the applies_to glob that matched
    explain: NotRequired[dict[str, Any]]


class LinkedDoc(TypedDict):
    """A document that came in along a link, compact: enough to decide whether to `get` it."""

    kind: Literal["document"]
    id: str
    title: str
    status: str
    description: str  # judged like any result's (adr-aa663d326ae5)
    via: Via
    size: Size
    store: NotRequired[str]
    repo: NotRequired[str]


# What `context` may show after budget.py shaped it.
ContextRow = ContextHit | ReferenceHit | BriefHit | LinkedDoc


class Linked(Skeleton):
    """A skeleton with the links that point at it, each named from its side by the schema's inverse
    name (`superseded-by`, `dependency-of`), what replaces it first: what `query` lists. A successor
    that is still a proposal is `proposed-replacement`: it replaces nothing until it is accepted."""

    incoming: list[Link]


class FullDocument(Linked):
    """A linked skeleton plus what `get` adds."""

    archived: bool
    frontmatter: dict[str, Any]
    body: str


class DocumentSection(FullDocument):
    """`get --section`: `body` holds only that heading's span."""

    section: str


class ReferenceText(_Reference):
    """`get` of a reference chunk: its whole section, the pieces of a split section rejoined."""

    sha256: str
    pieces: int
    text: str
    store: NotRequired[str]


Fetched = FullDocument | ReferenceText


class Budget(TypedDict):
    """What `context` may spend (tokens of its result entries) and what it spent; limit 0 = no budget."""

    limit: int
    used: int


class MissingSection(TypedDict):
    """`get --section`: a document found without that section (its id, and the heading as asked)."""

    id: str
    section: str


class GetJSON(TypedDict):
    documents: list[Fetched]
    missing: list[str]
    missing_sections: list[MissingSection]


class QueryJSON(TypedDict):
    results: list[Linked]
    count: int
    more: bool  # more documents match than --limit let through
    stored: int  # documents in this store and its folder peers (the organisation store's are not counted)


class SearchJSON(TypedDict):
    query: str
    results: list[SearchHit]
    count: int
    stored: int  # as in QueryJSON


class ContextJSON(TypedDict):
    query: str
    sketch: NotRequired[str]  # only when given, as terms
    terms: NotRequired[str]
    also: list[str]
    semantic: str
    pending: int
    sections_pending: int
    results: list[ContextRow]
    count: int
    omitted: int
    budget: Budget | None
    stored: int  # as in QueryJSON


class GetResult:
    """Filled in as the ids are read, here and in peers."""

    __slots__ = ("documents", "missing", "no_section", "outside")

    def __init__(self) -> None:
        self.documents: list[Fetched] = []
        self.missing: list[str] = []  # ids with no document
        self.no_section: list[MissingSection] = []  # documents that lack the section asked for
        self.outside: dict[str, str] = {}  # missing ids git has outside a sparse checkout -> their paths

    def to_json(self) -> GetJSON:
        return {"documents": self.documents, "missing": self.missing, "missing_sections": self.no_section}


class QueryResult(NamedTuple):
    results: list[Linked]
    more: bool = False
    stored: int = 0

    def to_json(self) -> QueryJSON:
        return {"results": self.results, "count": len(self.results), "more": self.more, "stored": self.stored}


class SearchResult(NamedTuple):
    query: str
    results: list[SearchHit]
    stored: int = 0

    def to_json(self) -> SearchJSON:
        return {"query": self.query, "results": self.results, "count": len(self.results), "stored": self.stored}


class ContextResult:
    """Ranked, then led by what governs the paths given and cut to the budget: both change it in place."""

    __slots__ = ("results", "semantic", "queries", "pending", "omitted", "budget", "sections_pending", "stored")

    # The counts are keyword-only: they are easily mixed up by position.
    def __init__(self, results: list[ContextRow], semantic: str, queries: list[Need] | None = None, *,
                 pending: int = 0, omitted: int = 0, budget: Budget | None = None, sections_pending: int = 0) -> None:
        self.results = results
        self.semantic = semantic  # "on" or "off: <reason>"
        self.queries = queries if queries is not None else []  # the needs ranked: the first, then --also's
        self.pending = pending  # documents whose vectors are not computed yet: found lexically meanwhile
        self.omitted = omitted  # entries left out to stay within the budget
        self.budget = budget
        # Documents ranked by their document vector until their section vectors exist.
        self.sections_pending = sections_pending
        self.stored = 0  # documents in the stores read (QueryJSON)

    def to_json(self) -> ContextJSON:
        first = self.queries[0] if self.queries else Need("")
        forms = {form: text for form, text in first.forms() if form != TASK}
        return {"query": first.task, **forms, "also": [need.task for need in self.queries[1:]],  # type: ignore[typeddict-item]
                "semantic": self.semantic, "pending": self.pending, "sections_pending": self.sections_pending,
                "results": self.results, "count": len(self.results), "omitted": self.omitted,
                "budget": self.budget, "stored": self.stored}
