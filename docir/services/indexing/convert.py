"""From a file on disk to the plain row the index takes."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from docir.documents import frontmatter
from docir.documents.chunk import body_key, written_sections
from docir.documents.conflicts import IN_CONFLICT, conflict_markers
from docir.documents.files import read_text
from docir.documents.frontmatter import FrontmatterError
from docir.documents.model import Document, embedded_text, text_sha
from docir.documents.ownership import record_folder
from docir.documents.reader_view import Visible
from docir.index.records import DocRow, SectionSpan
from docir.schema import Schema
from docir.store import ARCHIVE_DIR, DOCS_DIR


def is_archived_path(relpath: str) -> bool:
    """A document under docs/archive/ is archived: location, not a field, says so."""
    return relpath.startswith(f"{DOCS_DIR}/{ARCHIVE_DIR}/")


def load_document(root: Path, relpath: str, schema: Schema | None = None) -> tuple[Document, str, str]:
    """Read and parse one file: (document, its text, sha256 of its bytes).

    Raises InputError (binary, too large, not UTF-8) or FrontmatterError.
    """
    text, sha = read_text(root / relpath)
    markers = conflict_markers(text)
    if markers:
        raise FrontmatterError(IN_CONFLICT, markers[0][0], 1)
    return parse_document(root, relpath, text, schema), text, sha


def parse_document(root: Path, relpath: str, text: str, schema: Schema | None) -> Document:
    """One file's text as a Document: its frontmatter, or, for a record in one of the schema's folders of
    records that is not docir's own document, what its format states (documents/records/in_place.py).
    Raises FrontmatterError, or NotARecord (an InputError) for a file in such a folder that is no record."""
    folder = record_folder(schema.records, relpath) if schema is not None and schema.records else None
    if folder is None:
        meta, parts = frontmatter.parse(text)
        return Document(relpath, meta, parts.body)
    from docir.documents.records import in_place  # only a store with folders of records reads one

    assert schema is not None
    try:
        meta, parts = frontmatter.parse(text)
        if in_place.is_own_document(meta, schema.types[folder.type].prefix):
            return Document(relpath, meta, parts.body)
    except FrontmatterError:
        pass
    return in_place.read(root, relpath, text, folder, schema)


def to_row(doc: Document, sha256: str, size: int, mtime_ns: int) -> DocRow:
    verified = doc.verified
    seen = Visible.of(doc.body)
    return DocRow(
        path=doc.path,
        id=doc.id,
        type=doc.type,
        title=doc.title,
        description=doc.description,
        status=doc.status,
        tags=doc.tags,
        related=tuple((e.kind, e.target) for e in doc.related),
        owner=doc.owner,
        verified=verified.isoformat() if verified else None,
        meta_json=json.dumps(doc.meta, default=_json_default, ensure_ascii=False),
        body=doc.body,
        headings=doc.headings(seen),
        sha256=sha256,
        size=size,
        mtime_ns=mtime_ns,
        archived=is_archived_path(doc.path),
        text_sha=text_sha(embedded_text(doc.title, doc.description, doc.body, seen)),
        sections=_sections(doc.body, seen),
        shown=seen.masked() if seen.cuts else None,
        hidden=seen.hidden_bytes(),
        stated=doc.stated,
    )


def _sections(body: str, seen: Visible) -> tuple[SectionSpan, ...]:
    """The sections a reader sees text in: a heading left empty, or holding only a template's comment,
    matches nothing, so it never wins `matched_section`. A body without any such section is one
    nameless section, so every document can match by its title, description and tags."""
    found = tuple(SectionSpan(s.path, s.start, s.end, body_key(seen, s)) for s in written_sections(body, seen))
    return found or (SectionSpan((), 0, len(body)),)


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)
