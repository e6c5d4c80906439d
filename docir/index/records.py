"""The rows the index takes and returns: plain data, the seam between layers.

They are NamedTuples, not frozen dataclasses: every command imports this module, and a frozen
dataclass costs several times a NamedTuple to create (adr-d5e80517405b). Both are immutable.
"""

# No `from __future__ import annotations`: typing would compile each annotation of these classes as a
# string when the class is made, on every cold command (adr-d5e80517405b).
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # keep numpy out of the import path of commands that use no vectors
    from docir.index.vectors import Matrix


class DocRow(NamedTuple):
    """One document file as the index stores it."""

    path: str
    id: str
    type: str
    title: str
    description: str
    status: str
    tags: tuple[str, ...]
    related: tuple[tuple[str, str], ...]  # (kind, target id)
    owner: str | None
    verified: str | None  # ISO date
    meta_json: str  # the whole frontmatter, JSON
    body: str
    headings: tuple[str, ...]
    sha256: str
    size: int
    mtime_ns: int
    archived: bool
    text_sha: str = ""  # sha256 of what is embedded (title, description, body): a change schedules vectors
    sections: "tuple[SectionSpan, ...]" = ()  # the body's heading sections, searched one by one
    # The body with what a reader does not see (HTML comments) blanked, offsets kept: what is searched.
    # None when that is the body itself, so a store without comments stores no second copy.
    shown: str | None = None
    hidden: int = 0  # bytes of the body a reader does not see (HTML comments): `size` counts them, and says so
    # (source id, kind, target id): edges this file states that another document is the source of, as a
    # record read in place says "Superseded by [3. X](0003-x.md)" (adr-0c5e2d8f1a47). Kept with this row.
    stated: "tuple[tuple[str, str, str], ...]" = ()

    @property
    def searched(self) -> str:
        return self.body if self.shown is None else self.shown


class SectionSpan(NamedTuple):
    """One heading section of a body: where it is, and the heading path that names it."""

    path: tuple[str, ...]  # the headings above it and its own, outermost first; () before the first
    start: int
    end: int
    body_key: str | None = None  # documents/chunk.py body_key: what it says under its heading, hashed


class SectionHit(NamedTuple):
    """A section that matched a lexical query, best first: bm25 is lower for better."""

    doc: int  # the document's rowid
    path: tuple[str, ...]
    start: int
    end: int
    bm25: float


class FileState(NamedTuple):
    """What the index remembers of a file to tell whether it changed (a tuple: 10,000 per command)."""

    path: str
    size: int
    mtime_ns: int
    sha256: str


class Identity(NamedTuple):
    """What the cross-document lint checks know of a document: who it is, where, and whom it links."""

    path: str
    id: str
    type: str
    status: str
    related: tuple[tuple[str, str], ...]  # (kind, target id)
    archived: bool


class SkippedFile(NamedTuple):
    """A file under docs/ that could not be indexed, and why (kept so it is not re-read)."""

    path: str
    size: int
    mtime_ns: int
    reason: str


class Hit(NamedTuple):
    """One lexical match: the document's row number and its bm25 score (lower is better)."""

    rowid: int
    bm25: float


class Listing(NamedTuple):
    """A document's skeleton-level fields as read back: everything but body and raw frontmatter."""

    rowid: int
    path: str
    id: str
    type: str
    title: str
    description: str
    status: str
    tags: tuple[str, ...]
    related: tuple[tuple[str, str], ...]
    owner: str | None
    verified: str | None
    archived: bool
    size: int
    hidden: int = 0  # bytes of it inside HTML comments (DocRow.hidden)


class Filters(NamedTuple):
    """Structured filters of `docir query`; None means "any"."""

    types: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # every tag must be present
    owner: str | None = None
    related_to: str | None = None


class EmbedJob(NamedTuple):
    """A dirty document as the embedding pass needs it."""

    rowid: int
    text_sha: str
    title: str
    description: str
    body: str


class ChunkVector(NamedTuple):
    """One section chunk's row: where it sits and which vector (by text sha) it has."""

    ordinal: int
    heading: str
    section: str
    continuation: bool
    start: int
    end: int
    vector_sha: str


class VectorSet(NamedTuple):
    """Every current vector of one model, as a matrix with what each row belongs to."""

    rowids: list[int]  # document rowid per matrix row
    ordinals: list[int]  # -1 for the document vector, else the chunk ordinal
    matrix: "Matrix"  # (n, dim) float32, unit rows


class DocumentState(NamedTuple):
    """What a publish compares of a document before it reads its body: who it is, where, and its file's hash."""

    rowid: int
    path: str
    id: str
    type: str
    status: str
    archived: bool
    sha256: str


class VectorPlan(NamedTuple):
    """A document's vectors as the index points at them, by text hash (no vector is read here)."""

    rowid: int
    model_id: str | None  # the model of its vectors; None: never embedded
    complete: bool  # its document vector and its section vectors are current
    vector_sha: str | None  # its document vector's text hash; None when due
    chunks: tuple[ChunkVector, ...]  # its chunk plan, when complete
    shared: frozenset[int]  # ordinals of the chunks that have no vector (adr-5d1c0a7e94b2)
