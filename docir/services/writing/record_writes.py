"""Writes to a folder of records read in place, in the folder's own format (adr-0c5e2d8f1a47).

`docir add` of a type whose records live in such a folder writes the new record there, named and laid
out as the team's tool would (documents/records/writing.py); a supersede, and `docir update ID --status`
of such a record, rewrite its status where it states it. Links between records are written as the
format writes them: a file link to a record of the same folder, which its tool and docir's reader both
follow. The fields the format has no place for (owner, tags, applies_to, other fields) are not written,
and the caller is told which.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from docir.documents.records import in_place
from docir.documents.records.names import RecordFolder
from docir.documents.records.statuses import REPLACED
from docir.documents.records.writing import (
    TAKES_FIELDS,
    Link,
    new_name,
    new_record,
    set_status,
    shown_title,
    verb,
    with_frontmatter,
)
from docir.errors import UsageError
from docir.index.records import DocRow
from docir.schema import TypeSpec
from docir.services.indexing.session import Session
from docir.store import DOCS_DIR


class Successor(NamedTuple):
    """The document that replaces a record, as the record's status line names it."""

    path: str  # store-relative
    title: str  # as its tool shows it in a link: "10. Implement in Python" for an adr-tools record


class NewRecord(NamedTuple):
    relpath: str  # store-relative
    text: str
    doc_id: str  # the id its folder and name give it
    unwritten: list[str]  # the names of docir's fields the format has no place for
    successor: Successor  # how a record it replaces names it


def folder_for(session: Session, spec: TypeSpec, path: str | None) -> RecordFolder | None:
    """The folder of records a new document of this type goes to: the one `path` (store-relative or
    absolute) lies in, else, without a path, the first folder of records of the type; None for docs/."""
    folders = [folder for folder in session.schema.records if folder.type == spec.name]
    if path is None:
        return folders[0] if folders else None
    relpath = os.path.relpath(os.path.abspath(session.store.root / path), session.store.root).replace(os.sep, "/")
    return next((folder for folder in folders if relpath.startswith(folder.path + "/")), None)


def folder_of(session: Session, row: DocRow) -> RecordFolder | None:
    """The folder of records `row` was read in place from; None for a document of docir's own frontmatter."""
    return in_place.folder_of(session.schema, row.path, row.id)


def new(session: Session, spec: TypeSpec, folder: RecordFolder, *, title: str, description: str, status: str,
        body: str, related: tuple[tuple[str, str], ...], fields: dict[str, Any]) -> NewRecord:
    """The new record's path and text in `folder`'s format; its links name records of the same folder, and
    docir's `fields` (owner, tags, ...) go where the format has a place for them, or are named unwritten."""
    where = session.store.root / folder.path
    name, number = new_name(where, folder.format, title, session.today)
    relpath = f"{folder.path}/{name}"
    links = [_link_to(session, folder, relpath, kind, target) for kind, target in related]
    fits = folder.format in TAKES_FIELDS and with_frontmatter(where)
    text = new_record(folder.format, number=number, title=title, date=session.today, status=status,
                      description=description, body=body, links=links, fields=fields if fits else None)
    unwritten = [] if fits else list(fields)
    return NewRecord(relpath, text, in_place.record_id(spec.prefix, folder, relpath), unwritten,
                     Successor(relpath, shown_title(number, title, folder.format)))


def successor_of(session: Session, doc_id: str) -> Successor | None:
    """How a record's status line names the indexed document `doc_id`: its path, and its title as the
    format shows it when it is a record read in place."""
    found = session.catalog.docs.by_id(doc_id)
    if not found:
        return None
    row = found[0][1]
    folder = folder_of(session, row)
    return Successor(row.path, shown_title(_number(row), row.title, folder.format) if folder else row.title)


def superseded_text(row: DocRow, folder: RecordFolder, text: str, successor: Successor | None) -> str:
    """The text of the record `row` once marked superseded by `successor`, in its format: the successor named
    where its status is stated, by a link relative to the record's folder."""
    if successor is None:
        return set_status(folder.format, text, "superseded")
    target = os.path.relpath(successor.path, os.path.dirname(row.path)).replace(os.sep, "/")
    return set_status(folder.format, text, "superseded", Link(verb(REPLACED), successor.title, target))


def status_text(folder: RecordFolder, text: str, status: str) -> str:
    """The text of a record read in place with its status set to `status`, where it states it."""
    return set_status(folder.format, text, status)


def refuse_other_changes(row: DocRow, folder: RecordFolder, asked: list[str]) -> None:
    """A record read in place takes its status from docir; anything else is the team's to edit, in the file,
    with its own tool."""
    if asked:
        raise UsageError(f"{row.id} is a record read in place ({folder.format}, {row.path}): docir update changes "
                         f"only its status; edit its {', '.join(asked)} in the file, or with the team's own tool")


def _link_to(session: Session, folder: RecordFolder, relpath: str, kind: str, target: str) -> Link:
    found = session.catalog.docs.by_id(target)
    row = found[0][1] if found else None
    if row is None or os.path.dirname(row.path) != os.path.dirname(relpath):
        where = row.path if row is not None else "another store"
        raise UsageError(f"--related {kind}:{target}: a record in {folder.path}/ links records of its own folder "
                         f"only, as its format does, and {target} is in {where}; add the link in "
                         f"{DOCS_DIR}/ with a document of docir's own (--path), or by hand")
    said = verb("supersedes" if kind in session.schema.successor_kinds else kind)
    return Link(said, shown_title(_number(row), row.title, folder.format), os.path.basename(row.path))


def _number(row: DocRow) -> int | None:
    import json

    number = json.loads(row.meta_json).get("number")
    return number if isinstance(number, int) and not isinstance(number, bool) else None

