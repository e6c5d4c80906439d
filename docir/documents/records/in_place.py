"""A record in a folder of records, read where it lies into a Document, the file untouched (adr-0c5e2d8f1a47).

The team's tool wrote it (adr-tools, MADR, log4brains) and keeps writing its siblings; docir writes
nothing into it to read it. What the format states is read by the same readers `docir adopt` uses
(reading.py), meant the same way (meaning.py): status, title, number, date, and the links its status
lines, Links list and summary give. What the format has no place for is derived: the id from the file's
folder and name (`record_id`), so that a link naming the file names the id with no other file read; a
description from the record's own sentences. The derived fields are the Document's `meta`, beside the
frontmatter the file has (MADR 3/4), whose replaced values are kept as `<key>_original`; `format` says
the record is read in place. A file there that carries a docir id of its type (an adopted record, one
docir wrote with its frontmatter) is read as any document is.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from docir.documents.frontmatter import FrontmatterError
from docir.documents.model import Document
from docir.documents.records import describe, meaning, reading
from docir.documents.records.names import RecordFolder, is_record_name
from docir.errors import InputError
from docir.schema import Schema

# The field that says, for a reader, how a record read in place was read: its folder's format.
FORMAT_FIELD = "format"
# A record that states no status is in force: a folder of decisions records the decisions made (MADR's
# status is optional, and most of its records leave it out).
UNSTATED = "accepted"


class NotARecord(InputError):
    """A file in a folder of records that is none: a template, an index page. Not indexed, never an error."""


def record_id(prefix: str, folder: RecordFolder, relpath: str) -> str:
    """The id of the record at `relpath` (store-relative) in `folder`: drawn from its folder and file name,
    so that it never changes while the file keeps its name, and any link to the file gives it."""
    inside = relpath[len(folder.path) + 1:]
    stem = inside[:-3] if inside.endswith(".md") else inside
    digest = hashlib.sha256(f"record\0{folder.path}\0{stem}".encode()).hexdigest()
    return f"{prefix}-{digest[:12]}"


def folder_of(schema: Schema, path: str, doc_id: str) -> RecordFolder | None:
    """The folder of records the document `doc_id` at `path` was read in place from (its id is the one its
    folder and name give it); None for a document read from its frontmatter, docir's own, wherever it lies."""
    from docir.documents.ownership import record_folder

    folder = record_folder(schema.records, path)
    spec = schema.types.get(folder.type) if folder is not None else None
    if folder is None or spec is None or doc_id != record_id(spec.prefix, folder, path):
        return None
    return folder


def is_own_document(meta: dict[str, Any], prefix: str) -> bool:
    """Whether frontmatter makes a file docir's own document: a docir id of the folder's type's prefix."""
    from docir.documents.ids import is_valid_id

    doc_id = meta.get("id")
    return isinstance(doc_id, str) and is_valid_id(doc_id) and doc_id.startswith(f"{prefix}-")


def read(root: Path, relpath: str, text: str, folder: RecordFolder, schema: Schema) -> Document:
    """The record at `relpath` with text `text`, as a Document. Raises NotARecord for a file that is no
    record, and FrontmatterError for one whose frontmatter cannot be read."""
    spec = schema.types[folder.type]
    src = reading.parse(Path(relpath), text)
    if src.kind == "unreadable":
        raise FrontmatterError(src.reason, 1, 1)
    unfilled = src.kind == "other" and src.status is not None and src.status.template
    if src.kind == "other" and not unfilled:
        raise NotARecord(src.reason)
    own = dict(src.meta)
    doc_id = record_id(spec.prefix, folder, relpath)
    derived: dict[str, Any] = {
        "id": doc_id,
        "type": spec.name,
        "title": src.title or Path(relpath).stem,
        "description": describe.describe(src, schema.lint.description_min, schema.lint.description_max).text,
        # A record its tool just made still lists the template's choices ("[draft | proposed | ...]"): not yet
        # decided, so the type's default status, as log4brains lists it (draft).
        "status": spec.default_status if unfilled else meaning.map_status(spec, meaning.word(src) or UNSTATED),
    }
    if src.number is not None:
        derived["number"] = src.number
    if src.date is not None:
        derived["date"] = src.date.isoformat()
    related, incoming = _related(root, relpath, doc_id, src, folder, schema)
    if related:
        derived["related"] = [{kind: target} for kind, target in related]
    meta: dict[str, Any] = {}
    for key, value in derived.items():
        if key in own and own[key] != value and f"{key}_original" not in own:
            meta[f"{key}_original"] = own[key]
        meta[key] = value
    if src.status is not None and src.status.original and "status" not in own \
            and src.status.original.casefold() != derived["status"]:
        meta["status_original"] = src.status.original
    for key, value in own.items():
        meta.setdefault(key, value)
    meta[FORMAT_FIELD] = folder.format
    return Document(relpath, meta, src.body, tuple((source, kind, doc_id) for kind, source in incoming))


def _related(root: Path, relpath: str, own_id: str, src: reading.Foreign, folder: RecordFolder,
             schema: Schema) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The links the record states, as (kind, id): the successor and amend links it states from its own side
    ("Supersedes", "Amends"), then plain links to sibling records as relates-to; and those it states from the
    other side ("Superseded by"), as (kind, source id): the other record is their source (adr-tools writes
    both sides, a team by hand often only this one)."""
    kinds = meaning.relation_kinds(schema)
    names = _Siblings(root, relpath, folder, schema)
    edges: list[tuple[str, str]] = []
    incoming: list[tuple[str, str]] = []
    typed: set[str] = set()  # a record a typed link names, either way, is not also plainly related
    for ref in src.references:
        role, other_holds = meaning.DIRECTIONS[ref.direction]
        kind = kinds.get(role)
        target = names.find(ref) if kind is not None else None
        if kind is None or target is None or target == own_id:
            continue
        typed.add(target)
        held = incoming if other_holds else edges
        if (kind, target) not in held:
            held.append((kind, target))
    plain = kinds["relates-to"]
    if plain is not None:
        for link in src.sibling_links:
            target = names.find(reading.Reference("relates-to", link, reading.file_name(link)))
            if target is not None and target != own_id and target not in typed and (plain, target) not in edges:
                edges.append((plain, target))
    return edges, incoming


class _Siblings:
    """The ids of the records a record names: by file, or by number among its folder's file names."""

    def __init__(self, root: Path, relpath: str, folder: RecordFolder, schema: Schema) -> None:
        self._root, self._folder, self._schema = root, folder, schema
        self._here = relpath.rsplit("/", 1)[0]
        self._numbers: dict[int, list[str]] | None = None
        self._ids: dict[str, str | None] = {}  # each linked file read once, however often it is named

    def find(self, ref: reading.Reference) -> str | None:
        if ref.file:
            return self._id_of(f"{self._here}/{ref.file}")
        number = reading.named(ref)[1]
        if number is None:
            return None
        found = self._by_number().get(number, [])
        return self._id_of(found[0]) if len(found) == 1 else None

    def _by_number(self) -> dict[int, list[str]]:
        if self._numbers is None:
            self._numbers = {}
            try:
                names = sorted(os.listdir(self._root / self._here))
            except OSError:
                names = []
            for name in names:
                number = reading.file_number(Path(name))
                if number is not None and is_record_name(name):
                    self._numbers.setdefault(number, []).append(f"{self._here}/{name}")
        return self._numbers

    def _id_of(self, relpath: str) -> str | None:
        """The id of the record at `relpath`, when there is one: its own docir id, else the id its name gives."""
        if relpath not in self._ids:
            self._ids[relpath] = self._read_id(relpath)
        return self._ids[relpath]

    def _read_id(self, relpath: str) -> str | None:
        path = self._root / relpath
        if not relpath.startswith(self._folder.path + "/") or not is_record_name(path.name):
            return None
        prefix = self._schema.types[self._folder.type].prefix
        try:
            data = path.read_bytes()
        except OSError:  # no such record: a link to nothing is lint's to report
            return None
        if data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
            from docir.documents.frontmatter import declared_id

            declared = declared_id(data)
            if declared is not None and declared.startswith(f"{prefix}-"):
                return declared
        return record_id(prefix, self._folder, relpath)
