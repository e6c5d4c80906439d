"""The writes themselves: add, update, archive of a document of the local store, under the write lock.

Each write leaves the file, its metadata, FTS and relation rows consistent
before it returns. The file is written atomically first; if the process dies
before the index is updated, the next command's stat walk heals the index.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypedDict, TypeVar

from docir.documents import frontmatter, globs, line_endings, sections
from docir.documents.files import atomic_write, read_text
from docir.documents.ids import check_ids, new_id
from docir.documents.model import EMBEDDED_FIELDS
from docir.documents.ownership import Ownership
from docir.documents.records.names import RecordFolder
from docir.errors import InputError, NotFound, StorageError, UsageError, refusal
from docir.index.records import DocRow, FileState
from docir.schema import TypeSpec
from docir.services.indexing import numbers, sync
from docir.services.indexing.convert import is_archived_path
from docir.services.indexing.session import Session
from docir.services.writing import record_writes
from docir.store import ARCHIVE_DIR, DOCS_DIR, SCHEMA_FILE

# The status a document takes when an active one replaces it through a successor edge (supersedes), where
# its type has it among its inactive statuses (adr-8f1dd17f77a9).
SUPERSEDED = "superseded"


class _Awaiting(TypedDict, total=False):
    # The documents a write replaces once it is accepted: a pending successor (proposed) replaces nothing yet.
    # Present only when it names one. (total=False, not NotRequired: this module's annotations are strings.)
    replaces_when_accepted: list[str]


class AddResult(_Awaiting):
    id: str
    path: str
    embedding: Literal["scheduled"]
    superseded: list[str]  # the documents it replaces that were marked superseded by this write
    files: list[str]  # every file this write changed, its own first: what to lint and stage


class UpdateResult(_Awaiting):
    id: str
    path: str
    changed: list[str]  # the names of what changed: title, status, body, ...
    embedding: Literal["scheduled", "unchanged"]
    superseded: list[str]  # the documents it now replaces that were marked superseded by this write
    files: list[str]  # every file this write changed (none when nothing did)


class ArchiveResult(TypedDict):
    id: str
    path: str
    archived: Literal[True]
    moved: bool  # false when it already was under docs/archive/


@dataclass(frozen=True)
class Changes:
    """What `docir update` was asked to change; None / empty means leave it."""

    title: str | None = None
    description: str | None = None
    status: str | None = None
    tags: tuple[str, ...] | None = None
    add_related: tuple[tuple[str, str], ...] = ()
    remove_related: tuple[tuple[str, str], ...] = ()
    owner: str | None = None
    verified: dt.date | None = None
    append_section: tuple[str, str] | None = None  # (heading, text)
    replace_section: tuple[str, str] | None = None
    replace_body: str | None = None
    fields: tuple[tuple[str, Any], ...] = ()  # other frontmatter fields, KEY=VALUE
    applies_to: tuple[str, ...] | None = None  # replaces the globs; an empty tuple leaves them


def parse_related(values: list[str]) -> tuple[tuple[str, str], ...]:
    """`kind:id` strings into pairs; raise UsageError naming the bad one."""
    pairs = []
    for value in values:
        kind, sep, target = value.partition(":")
        if not sep or not kind.strip() or not target.strip():
            raise UsageError(f"--related '{value}' must be KIND:ID, e.g. supersedes:adr-4c21693aac55")
        pairs.append((kind.strip(), target.strip()))
    return tuple(pairs)


def parse_fields(values: list[str]) -> tuple[tuple[str, Any], ...]:
    reserved = {"id", "type", "title", "description", "status", "tags", "related", "owner", "verified"}
    pairs = []
    for value in values:
        key, sep, raw = value.partition("=")
        key = key.strip()
        if not sep or not re.match(r"^[A-Za-z_][\w.-]*$", key):
            raise UsageError(f"--field '{value}' must be KEY=VALUE with a plain key")
        if key in reserved:
            raise UsageError(f"--field {key}: use the --{key} option for that field")
        pairs.append((key, raw))
    return tuple(pairs)


def git_user(root: Path) -> str | None:
    """Who is writing, as git would record them here: the author's email (GIT_AUTHOR_EMAIL, else
    user.email), else user.name; never an address git guesses; None outside git or when git knows no one."""
    asks = (["-c", "user.useConfigOnly=true", "var", "GIT_AUTHOR_IDENT"], ["config", "--get", "user.email"],
            ["config", "--get", "user.name"])
    for ask in asks:
        try:
            done = subprocess.run(["git", *ask], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        said = done.stdout.strip() if done.returncode == 0 else ""
        if ask[-1] == "GIT_AUTHOR_IDENT":
            ident = re.match(r"^.*?<([^>]+)>", said)
            said = ident.group(1).strip() if ident else ""
        if said:
            return said
    return None


def add(session: Session, doc_type: str, *, title: str, description: str, status: str | None = None,
        tags: tuple[str, ...] = (), related: tuple[tuple[str, str], ...] = (), owner: str | None = None,
        body: str = "", path: str | None = None, fields: tuple[tuple[str, Any], ...] = (),
        applies_to: tuple[str, ...] = (), warn: Callable[[str], None] | None = None,
        keep_status: bool = False) -> AddResult:
    """Create a document file and index it; return its id and path. A type that requires an owner
    gets the git user when none is given (said through `warn`), so a first `add` needs no --owner.
    The active documents it replaces through a successor edge are marked superseded, unless
    `keep_status` (see _replacements)."""
    spec = _type_spec(session, doc_type)
    status = status or spec.default_status
    _check_status(spec, status)
    title, description = _required_text("title", title), _required_text("description", description)
    related = resolve_related(session, related)
    _check_related(session, related)
    folder = record_writes.folder_for(session, spec, path)
    if folder is not None:  # the type's records live in a team's folder: written there, in its format
        _check_globs(applies_to)
        extras: dict[str, Any] = {key: value for key, value in (
            ("owner", owner), ("tags", list(tags)), (globs.FIELD, list(applies_to))) if value}
        extras.update(fields)
        with session.locked():
            record = record_writes.new(session, spec, folder, title=title, description=description, status=status,
                                       body=body, related=related, fields=extras)
            replaced = [] if keep_status else _replacements(session, record.doc_id, spec, status, related,
                                                            record.successor)
            atomic_write(session.store.root / record.relpath, record.text)
            sync.index_file(session.store.root, session.catalog, record.relpath, session.schema)
            superseded = _mark_superseded(session, record.doc_id, replaced)
        if record.unwritten and warn is not None:
            warn(f"not written: {', '.join(record.unwritten)} (the records in {folder.path}/ are {folder.format} "
                 "records, with no place for them)")
        added: AddResult = {"id": record.doc_id, "path": record.relpath, "embedding": "scheduled",
                            "superseded": superseded, "files": [record.relpath, *_paths(replaced)]}
        return _with_awaiting(added, _awaiting(session, record.doc_id, spec, status, related, keep_status))
    if "owner" in spec.required and not owner:
        owner = git_user(session.store.root)
        if owner is None:
            raise UsageError(f"type '{doc_type}' requires an owner: pass --owner, e.g. --owner @team "
                             "(or set git config user.email, which becomes the default)")
        if warn is not None:
            warn(f"no --owner given; the owner is the git user, {owner} (pass --owner to choose another)")
    meta: dict[str, Any] = {"id": new_id(spec.prefix), "type": doc_type, "title": title,
                            "description": description, "status": status}
    if tags:
        meta["tags"] = list(tags)
    if related:
        meta["related"] = [{kind: target} for kind, target in related]
    if owner:
        meta["owner"] = owner
    _check_globs(applies_to)
    if applies_to:
        meta[globs.FIELD] = list(applies_to)
    meta["verified"] = session.today
    for key, value in fields:
        meta[key] = value
    lines = [frontmatter.render_field(key, value) for key, value in meta.items()]
    body_text = sections.replace_body(body) if body.strip() else ""
    text = "---\n" + "\n".join(lines) + "\n---\n" + body_text
    with session.locked():
        relpath = _new_path(session, spec, title, path)
        replaced = [] if keep_status else _replacements(session, meta["id"], spec, status, related,
                                                        record_writes.Successor(relpath, title))
        target = session.store.root / relpath
        atomic_write(target, text)
        sync.index_file(session.store.root, session.catalog, relpath, session.schema)
        superseded = _mark_superseded(session, meta["id"], replaced)
    added = {"id": meta["id"], "path": relpath, "embedding": "scheduled", "superseded": superseded,
             "files": [relpath, *_paths(replaced)]}
    return _with_awaiting(added, _awaiting(session, meta["id"], spec, status, related, keep_status))


def update(session: Session, doc_id: str, changes: Changes, *, keep_status: bool = False) -> UpdateResult:
    """Apply `changes` to the document's file in place; only the touched lines change. The active
    documents its added successor edges point at are marked superseded, unless `keep_status`."""
    doc_id = numbers.id_of(session, doc_id, f"docir update {doc_id}")  # "ADR 6" as get reads it
    check_ids([doc_id])
    with session.locked():
        row = _locate(session, doc_id)
        spec = session.schema.type_spec(row.type)
        changes = dataclasses.replace(changes,
                                      add_related=resolve_related(session, changes.add_related, "--add-related"),
                                      remove_related=resolve_related(session, changes.remove_related,
                                                                     "--remove-related"))
        file = session.store.root / row.path
        text, _sha = read_text(file)
        # Edits run on LF text; the file keeps its CRLF lines and BOM (adr-3e8b51d07a4c).
        original = line_endings.read(text)
        folder = record_writes.folder_of(session, row)
        if folder is not None:
            edited, changed = _apply_to_record(session, spec, row, folder, original.lf_text, changes)
        else:
            edited, changed = _apply(session, spec, original.lf_text, changes)
        status = changes.status if changes.status is not None else row.status
        edges = changes.add_related
        if spec is not None and row.status in spec.pending_statuses and spec.replaces(status):
            edges = (*row.related, *edges)  # accepted at last: what it replaces is replaced now
        replaced = [] if keep_status else _replacements(session, doc_id, spec, status, edges)
        files = _paths(replaced)
        if edited != original.lf_text:
            atomic_write(file, line_endings.restore(original, edited))
            sync.index_file(session.store.root, session.catalog, row.path, session.schema)
            files.insert(0, row.path)
        superseded = _mark_superseded(session, doc_id, replaced)
    scheduled = bool(set(EMBEDDED_FIELDS).intersection(changed))
    updated: UpdateResult = {"id": doc_id, "path": row.path, "changed": changed,
                             "embedding": "scheduled" if scheduled else "unchanged", "superseded": superseded,
                             "files": files}
    return _with_awaiting(updated, _awaiting(session, doc_id, spec, status, (*row.related, *changes.add_related),
                                             keep_status))


R = TypeVar("R", AddResult, UpdateResult)


def _with_awaiting(result: R, awaiting: list[str]) -> R:
    """`result` naming what it replaces once accepted, where it names anything (no empty list printed)."""
    if awaiting:
        result["replaces_when_accepted"] = awaiting
    return result


def _awaiting(session: Session, successor: str, spec: TypeSpec | None, status: str,
              edges: tuple[tuple[str, str], ...], keep_status: bool) -> list[str]:
    """The documents a pending successor names through a successor edge: replaced once it is accepted, as
    one warning says (with the status that accepts it: the type's first active status not pending)."""
    if keep_status or spec is None or status not in spec.pending_statuses:
        return []
    found = [target for target in dict.fromkeys(t for kind, t in edges if kind in session.schema.successor_kinds)
             if _in_force(session, target)]
    in_force = next((s for s in spec.statuses if s not in spec.pending_statuses and s not in spec.inactive_statuses),
                    None)
    if found and in_force is not None:
        them = "it" if len(found) == 1 else "them"
        session.warnings.append(f"{', '.join(found)} stay{'s' if len(found) == 1 else ''} in force while this "
                                f"{spec.name} is {status}; 'docir update {successor} --status {in_force}' marks {them} "
                                "superseded then")
    return found


def _in_force(session: Session, doc_id: str) -> bool:
    """Whether the document is one a successor could replace: indexed, not archived, not closed."""
    rows = session.catalog.docs.by_id(doc_id)
    if not rows:
        return False
    row = rows[0][1]
    spec = session.schema.type_spec(row.type)
    return not row.archived and not (spec is not None and row.status in spec.inactive_statuses)


class _Replacement(NamedTuple):
    """A document a write replaces, with its file's text as it will be once marked superseded."""

    row: DocRow
    text: str


def _replacements(session: Session, successor: str, spec: TypeSpec | None, status: str,
                  edges: tuple[tuple[str, str], ...],
                  named: record_writes.Successor | None = None) -> list[_Replacement]:
    """The documents that `successor`, of this type and status, replaces through `edges` of a successor
    kind and that are still active, each with its edit prepared: everything that can refuse is checked
    before either file is written. An inactive successor (rejected, say) replaces nothing, as for lint's
    DOC015, nor does a pending one (proposed): a replacement takes effect when it is accepted, and until
    then the decision it would replace stays in force; an archived or already closed target is left as it
    is. UsageError when a target's type has no inactive `superseded` status (or the edge points at
    `successor` itself)."""
    if spec is not None and not spec.replaces(status):
        return []
    kinds = session.schema.successor_kinds
    out: list[_Replacement] = []
    for kind, target in dict.fromkeys(edges):
        if kind not in kinds or target in (r.row.id for r in out):
            continue
        if target == successor:
            raise UsageError(f"--related {kind}:{target}: a document cannot replace itself")
        row = _locate(session, target)
        target_spec = session.schema.type_spec(row.type)
        if row.archived or (target_spec is not None and row.status in target_spec.inactive_statuses):
            continue
        if target_spec is None or SUPERSEDED not in target_spec.inactive_statuses:
            closed = sorted(target_spec.inactive_statuses) if target_spec is not None else []
            raise UsageError(
                f"{kind}:{target}: type '{row.type}' has no inactive status '{SUPERSEDED}' to mark {target} "
                f"with; pass --keep-status and close it yourself (docir update {target} --status "
                f"{closed[0] if closed else 'STATUS'}), or add '{SUPERSEDED}' to the type's statuses and "
                "inactive_statuses in docs-schema.yaml")
        text, _sha = read_text(session.store.root / row.path)
        original = line_endings.read(text)
        folder = record_writes.folder_of(session, row)
        if folder is not None:  # a record read in place: superseded in its format's words, naming its successor
            edited = record_writes.superseded_text(row, folder, original.lf_text,
                                                   named or record_writes.successor_of(session, successor))
        else:
            edited, _changed = _apply(session, target_spec, original.lf_text, Changes(status=SUPERSEDED))
        out.append(_Replacement(row, line_endings.restore(original, edited)))
    return out


def _paths(replaced: list[_Replacement]) -> list[str]:
    return [item.row.path for item in replaced]


def _mark_superseded(session: Session, successor: str, replaced: list[_Replacement]) -> list[str]:
    """Write each replaced document with its superseded status and index it; return their ids.

    Called after the successor is written, never before: should this write fail, the store holds the
    successor's edge and the replaced document still active, as a two-step supersede leaves it between
    its steps (lint's DOC015 says so), and never a document hidden as superseded with no successor
    naming it (adr-8f1dd17f77a9). Each file is written atomically, so neither is ever half-written."""
    done: list[str] = []
    for item in replaced:
        try:
            atomic_write(session.store.root / item.row.path, item.text)
        except OSError as exc:
            cause = refusal(exc.errno or 0) or exc.strerror or str(exc)
            marked = f" and marked {', '.join(done)} superseded" if done else ""
            raise StorageError(f"wrote {successor}{marked}, but could not mark {item.row.id} superseded "
                               f"({item.row.path}: {cause}); then run: docir update {item.row.id} "
                               f"--status {SUPERSEDED}") from None
        sync.index_file(session.store.root, session.catalog, item.row.path, session.schema)
        done.append(item.row.id)
    return done


def archive(session: Session, doc_id: str) -> ArchiveResult:
    """Move the document under docs/archive/ (bytes unchanged) and out of search and the graph."""
    doc_id = numbers.id_of(session, doc_id, f"docir archive {doc_id}")
    check_ids([doc_id])
    with session.locked():
        row = _locate(session, doc_id)
        if row.archived:
            return {"id": doc_id, "path": row.path, "archived": True, "moved": False}
        folder = record_writes.folder_of(session, row)
        if folder is not None or not row.path.startswith(f"{DOCS_DIR}/"):
            # Moved out of its folder, a team's record would leave a gap its tool numbers and links by.
            where = f"a {folder.format} record in {folder.path}/" if folder is not None else f"outside {DOCS_DIR}/"
            raise UsageError(f"{doc_id} is {where}: docir archive moves only documents under {DOCS_DIR}/; "
                             f"close it instead: docir update {doc_id} --status STATUS (one of the type's closed "
                             "statuses), or with the team's own tool")
        inside = row.path[len(DOCS_DIR) + 1 :]
        new_rel = f"{DOCS_DIR}/{ARCHIVE_DIR}/{inside}"
        source, target = session.store.root / row.path, session.store.root / new_rel
        if target.exists():
            raise InputError(f"cannot archive {doc_id}: {new_rel} already exists; move or rename it first")
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            # Moved as a link to the same file (adr-7c2e94a0d5b1): a relative link moved as it is would
            # point somewhere else from its new folder.
            os.symlink(os.path.relpath(os.path.realpath(source), target.parent), target)
            os.unlink(source)
        else:
            os.replace(source, target)
        st = target.stat()
        with session.catalog.transaction():
            session.catalog.docs.move(row.path, FileState(new_rel, st.st_size, st.st_mtime_ns, row.sha256),
                                 is_archived_path(new_rel))
    return {"id": doc_id, "path": new_rel, "archived": True, "moved": True}


def _check_globs(written: tuple[str, ...]) -> None:
    for glob in written:
        wrong = globs.problem(glob)
        if wrong is not None:
            raise UsageError(f"--applies-to: {wrong}")


def _apply(session: Session, spec: TypeSpec | None, text: str, changes: Changes) -> tuple[str, list[str]]:
    meta, parts = frontmatter.parse(text)
    changed: list[str] = []

    def put(key: str, value: Any) -> None:
        nonlocal text
        new = frontmatter.set_field(text, key, value)
        if new != text:
            text = new
            changed.append(key)

    if changes.title is not None:
        put("title", _required_text("title", changes.title))
    if changes.description is not None:
        put("description", _required_text("description", changes.description))
    if changes.status is not None:
        if spec is None:
            raise InputError(f"the document's type '{meta.get('type')}' is not in the schema; fix its type first")
        _check_status(spec, changes.status)
        put("status", changes.status)
    if changes.tags is not None:
        put("tags", list(changes.tags) if changes.tags else None)
    if changes.add_related or changes.remove_related:
        _check_related(session, changes.add_related, "--add-related")
        put("related", _edit_related(meta.get("related"), changes))
    if changes.owner is not None:
        put("owner", changes.owner or None)
    if changes.verified is not None:
        put("verified", changes.verified)
    if changes.applies_to:
        _check_globs(changes.applies_to)
        put(globs.FIELD, list(changes.applies_to))
    for key, value in changes.fields:
        put(key, value if value != "" else None)
    _clear_review(meta, changed, put)
    body = frontmatter.split(text).body
    new_body = body
    try:
        if changes.replace_body is not None:
            new_body = sections.replace_body(changes.replace_body)
        if changes.replace_section is not None:
            new_body = sections.replace_section(new_body, *changes.replace_section)
        if changes.append_section is not None:
            new_body = sections.append_section(new_body, *changes.append_section)
    except sections.SectionMissing as exc:
        raise NotFound(f"no '## {exc}' section in {meta.get('id')}; use --append-section to add it") from None
    except sections.SectionExists as exc:
        raise InputError(f"{meta.get('id')} already has a '## {exc}' section; use --replace-section") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if new_body != body:
        text = frontmatter.set_body(text, new_body)
        changed.append("body")
    return text, changed


REVIEW = "review"  # the fields docir adopt filled in that a person should check (lint's DOC018)


def _clear_review(meta: dict[str, Any], changed: list[str], put: Callable[[str, Any], None]) -> None:
    """A field a person has just set is reviewed: it leaves the `review:` list, and the list goes with its last
    field, so DOC018 does not ask again for what the update said."""
    review = meta.get(REVIEW)
    if REVIEW in changed or not isinstance(review, list):
        return
    left = [field for field in review if str(field) not in changed]
    if len(left) != len(review):
        put(REVIEW, left or None)


def _apply_to_record(session: Session, spec: TypeSpec | None, row: DocRow, folder: RecordFolder, text: str,
                     changes: Changes) -> tuple[str, list[str]]:
    """`changes` to a record read in place: its status, where it states it; anything else is refused."""
    asked = [name for name, given in (
        ("title", changes.title), ("description", changes.description), ("tags", changes.tags),
        ("related", changes.add_related or changes.remove_related), ("owner", changes.owner),
        ("verified", changes.verified), ("body", changes.replace_body is not None or changes.replace_section
                                        or changes.append_section), ("applies_to", changes.applies_to),
        ("fields", changes.fields)) if given]
    record_writes.refuse_other_changes(row, folder, asked)
    if changes.status is None or changes.status == row.status:
        return text, []
    if spec is None:
        raise InputError(f"the document's type '{row.type}' is not in the schema; fix its type first")
    _check_status(spec, changes.status)
    return record_writes.status_text(folder, text, changes.status), ["status"]


def _edit_related(raw: Any, changes: Changes) -> list[dict[str, str]] | None:
    items: list[dict[str, str]] = []
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict):
                for kind, target in item.items():
                    targets = target if isinstance(target, list) else [target]
                    items.extend({str(kind): str(t)} for t in targets)
    remove = {(k, t) for k, t in changes.remove_related}
    kept = [item for item in items if next(iter(item.items())) not in remove]
    present = {next(iter(item.items())) for item in kept}
    for kind, target in changes.add_related:
        if (kind, target) not in present:
            kept.append({kind: target})
            present.add((kind, target))
    return kept or None


def _locate(session: Session, doc_id: str) -> DocRow:
    """The document's current row, re-syncing once if its file moved or vanished behind our back."""
    for attempt in (1, 2):
        rows = session.catalog.docs.by_id(doc_id)
        if rows:
            row = rows[0][1]
            if (session.store.root / row.path).is_file():
                if len(rows) > 1:
                    session.warnings.append(f"duplicate id {doc_id}; writing {row.path} (run 'docir lint')")
                return row
        if attempt == 1:
            session.refresh()
    raise NotFound(f"no document with id {doc_id}; find ids with 'docir query' or 'docir search'")


def _type_spec(session: Session, doc_type: str) -> TypeSpec:
    spec = session.schema.type_spec(doc_type)
    if spec is None:
        raise UsageError(f"unknown type '{doc_type}'; the schema has: {', '.join(session.schema.types)}")
    return spec


def _check_status(spec: TypeSpec, status: str) -> None:
    if status not in spec.statuses:
        raise UsageError(f"status '{status}' is not allowed for {spec.name}; use one of: {', '.join(spec.statuses)}")


def resolve_related(session: Session, related: tuple[tuple[str, str], ...],
                    option: str = "--related") -> tuple[tuple[str, str], ...]:
    """`related` with each target that is a record's number ("ADR 6", "adr-0006") replaced by its id, as `get`
    reads them; UsageError, naming `option` as the user typed it, for one that names no document or several."""
    return tuple((kind, numbers.one_id(session, target, f"{option} {kind}:{target}")) for kind, target in related)


def _check_related(session: Session, related: tuple[tuple[str, str], ...], option: str = "--related") -> None:
    for kind, target in related:
        if kind not in session.schema.relations:
            raise UsageError(f"{option} {kind}:{target}: unknown relation kind '{kind}'; the schema has: "
                             f"{', '.join(session.schema.relations)}")
        check_ids([target])
        if not session.catalog.docs.by_id(target):
            raise UsageError(f"{option} {kind}:{target}: no document has id {target}")


def _required_text(name: str, value: str) -> str:
    value = " ".join(value.split())
    if not value:
        raise UsageError(f"--{name} cannot be empty")
    return value


def _new_path(session: Session, spec: TypeSpec, title: str, path: str | None) -> str:
    root = session.store.root
    if path is not None:
        candidate = (root / path).resolve()  # relative to the store root, absolute as given
        try:
            inside = candidate.relative_to(session.store.docs_dir.resolve())
        except ValueError:
            raise UsageError(f"--path {path} must be inside {session.store.docs_dir}") from None
        if candidate.suffix != ".md":
            raise UsageError(f"--path {path} must end in .md")
        if candidate.exists():
            raise UsageError(f"--path {path} already exists; docir never overwrites a file")
        relpath = f"{DOCS_DIR}/{inside.as_posix()}"
        if not Ownership.of(session.schema).owns(relpath):  # a document no command would ever see
            raise UsageError(f"--path {path} is left out of the store by exclude: in {SCHEMA_FILE}; choose "
                             "another --path, or take it off that list")
        return relpath
    slug = title_slug(title) or spec.prefix
    folder = f"{DOCS_DIR}/{spec.folder}".rstrip("/")
    relpath = f"{folder}/{slug}.md"
    counter = 2
    while (root / relpath).exists():
        relpath = f"{folder}/{slug}-{counter}.md"
        counter += 1
    return relpath


SLUG_MAX = 60


def title_slug(title: str) -> str:
    """A file name for a title: lowercase words joined by '-', at most SLUG_MAX characters, cut only
    between words, so a name never ends in half a word (adr-247f7b01b95e); '' for a title of no words."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    if len(slug) <= SLUG_MAX:
        return slug
    cut = slug.rfind("-", 0, SLUG_MAX + 1)
    # One word longer than the limit has no boundary to cut at: cut it, rather than name the file by the prefix.
    return slug[:cut] if cut > 0 else slug[:SLUG_MAX]
