"""The rows of the reference corpora as the index takes and returns them: plain data, like records.py.

Their own module: only the commands that read or ingest reference chunks import them, through
Catalog.refs (cold start, adr-d5e80517405b).
"""

from __future__ import annotations

from typing import NamedTuple


class RefFileRow(NamedTuple):
    ref: str
    source_uri: str
    relpath: str
    sha256: str


class RefChunkRow(NamedTuple):
    """A reference chunk as the index stores it (its own table: never a document row)."""

    id: str
    ordinal: int
    heading_path: tuple[str, ...]
    text: str
    continuation: bool
    start: int
    end: int
    text_sha: str


class StoredRefChunk(NamedTuple):
    rowid: int
    ref: str
    source_uri: str
    sha256: str
    chunk: RefChunkRow
