"""The whole folder planned before a byte is written: which files are records, their ids, their links in
both directions, and docir's fields for each, with every original value kept beside the one docir sets.

A status is mapped onto the type's statuses and the wording kept as `status_original`. "Superseded by X"
on one record and "Supersedes Y" on another both become the schema's successor relation, held by the
newer record; a record another accepted record says it supersedes is superseded too. A status word
adopt does not know becomes the type's default with a review flag naming it: never a silent guess.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docir.documents import frontmatter, line_endings
from docir.documents.ids import is_valid_id
from docir.documents.records import describe, folders, meaning, reading
from docir.documents.records.names import RecordFolder
from docir.documents.records.reading import Foreign
from docir.errors import UsageError
from docir.schema import Schema, TypeSpec
from docir.store import DOCS_DIR, Store

REVIEW_FIELD = "review"
SUFFIXES = (".md", ".markdown")


@dataclass
class Options:
    doc_type: str = "decision"
    owner: str | None = None
    key: str | None = None  # a field that names records in links between them (e.g. eip)
    relations: dict[str, str] = field(default_factory=dict)  # frontmatter field -> relation kind
    unstated: str | None = None  # the status of a record that states none (default: the type's default)


@dataclass
class Planned:
    """What adopt does to one record."""

    source: Path
    target: str  # store-relative path of the adopted file
    doc_id: str
    foreign: Foreign
    already: bool = False  # a docir document already (a second adopt): only links are added
    status: str = ""
    fields: dict[str, Any] = field(default_factory=dict)  # docir's fields, set or mapped, in order
    added: list[str] = field(default_factory=list)
    mapped: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # field -> (original, docir's)
    review: dict[str, str] = field(default_factory=dict)  # field -> why a person should check it
    edges: list[tuple[str, str]] = field(default_factory=list)  # (kind, target id) this record holds
    kept: list[str] = field(default_factory=list)  # frontmatter keys whose lines are kept as `<key>_original`
    unstated: bool = False  # the source states no status
    text: str = ""  # the adopted file

    @property
    def changed(self) -> bool:
        return self.text != self.foreign.text


@dataclass
class Skipped:
    path: str
    reason: str


@dataclass
class Plan:
    folder: Path
    documents: list[Planned]
    skipped: list[Skipped]
    unstated_status: str
    schema: Schema
    inside_docs: bool = False  # adopted in place, under docs/
    # A folder of the repository outside docs/, adopted in place too and put on the schema's records list so
    # that the store reads it there (adr-0c5e2d8f1a47); None under docs/ or for a folder copied in from
    # outside the repository, into the type's folder.
    records: RecordFolder | None = None

    @property
    def in_place(self) -> bool:
        return self.inside_docs or self.records is not None


def plan(store: Store, schema: Schema, folder: Path, options: Options) -> Plan:
    """Every change adopt makes to `folder`, computed without writing anything (what --dry-run shows)."""
    spec = schema.type_spec(options.doc_type)
    if spec is None:
        raise UsageError(f"unknown type '{options.doc_type}'; the schema has: {', '.join(schema.types)}")
    for kind in options.relations.values():
        if kind not in schema.relations:
            raise UsageError(f"--relation ...={kind}: unknown relation kind; the schema has: "
                             f"{', '.join(schema.relations)}")
    if "owner" in spec.required and not options.owner:
        raise UsageError(f"type '{spec.name}' requires an owner: pass --owner, e.g. --owner @team")
    unstated = options.unstated or spec.default_status
    if unstated not in spec.statuses:
        raise UsageError(f"--unstated {unstated}: not a status of {spec.name}; use one of: {', '.join(spec.statuses)}")
    folder = folder.resolve()  # absolute: the command line made it so, from the caller's folder
    if not folder.exists():
        raise UsageError(f"{folder}: no such file or folder")
    base = folder if folder.is_dir() else folder.parent
    files = sorted(p for p in (folder.rglob("*") if folder.is_dir() else [folder])
                   if p.suffix.lower() in SUFFIXES and p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(base).parts))
    _refuse_a_folder_adr_tools_keeps(store, base)
    inside_docs = _within(folder, store.docs_dir.resolve())
    result = Plan(folder, [], [], unstated, schema, inside_docs)
    if not inside_docs and _within(base, store.root.resolve()) and base != store.root.resolve():
        # A folder of the repository: its team's tool writes there still; adopt never copies it out of place.
        result.records = RecordFolder(store.relpath(base), spec.name, folders.format_of(base))
    for path in files:
        rel = path.relative_to(base).as_posix()
        target = store.relpath(path) if result.in_place else f"{DOCS_DIR}/{spec.folder}/{rel}"
        src = reading.read(path)
        if src.kind != "adr":
            result.skipped.append(Skipped(target if result.in_place else str(path), src.reason))
            continue
        existing = src.meta.get("id")
        already = (isinstance(existing, str) and is_valid_id(existing) and existing.startswith(f"{spec.prefix}-")
                   and src.meta.get("type") == spec.name)
        if not result.in_place and (store.root / target).exists():
            result.skipped.append(Skipped(str(path), f"{target} already exists; adopt never overwrites a file"))
            continue
        doc_id = existing if isinstance(existing, str) and is_valid_id(existing) \
            and existing.startswith(f"{spec.prefix}-") else adopted_id(spec.prefix, target, src.text)
        result.documents.append(Planned(path, target, doc_id, src, already))
    _link(result, spec, options)
    for item in result.documents:
        _fill(item, spec, schema, options, unstated)
        item.text = _render(item)
    return result


def _refuse_a_folder_adr_tools_keeps(store: Store, base: Path) -> None:
    """adr-tools takes a record's first line for its title (`adr generate toc`, `adr link`): docir's
    frontmatter above it would break the team's tool, so a folder it keeps (its `.adr-dir` names it) is read
    in place, never adopted (adr-0c5e2d8f1a47)."""
    for parent in (store.root, *store.root.parents):
        if not (parent / ".adr-dir").is_file():
            continue
        kept = folders.adr_tools_folder(parent)
        if kept is not None and (parent / kept).resolve() == base:
            raise UsageError(f"{store.relpath(base)} is adr-tools' folder (.adr-dir names it), and adr-tools takes a "
                             "record's first line for its title: docir's frontmatter there would break it. List "
                             "it under records: in docs-schema.yaml to read it in place (docir init does), or "
                             "remove .adr-dir first if no one runs adr-tools on it any more")
        return


def adopted_id(prefix: str, target: str, text: str) -> str:
    """The id a record gets: drawn from its path and text, not at random, so that `--dry-run` and the adopt
    after it give the same ids (the plan a person checked is the one written). It is written into the file,
    so it never changes when the file later moves or changes (adr-91e493428231)."""
    import hashlib

    digest = hashlib.sha256("\0".join((target, text)).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:12]}"


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


# --- links -----------------------------------------------------------------------------------------------------

class _Names:
    """How records name each other: by file, by number, by title, by a key field."""

    def __init__(self, items: list[Planned], key: str | None) -> None:
        self.by_file = {item.source.name.lower(): item for item in items}
        self.by_stem = {item.source.stem.lower(): item for item in items}
        self.by_number: dict[int, list[Planned]] = {}
        for item in items:
            numbers = {item.foreign.number, reading.file_number(item.source)} - {None}
            for number in numbers:
                assert number is not None
                self.by_number.setdefault(number, []).append(item)
        self.by_title = {_title_key(item.foreign.title or ""): item for item in items if item.foreign.title}
        self.by_key = {str(item.foreign.meta.get(key)): item for item in items
                       if key and item.foreign.meta.get(key) is not None}

    def find(self, ref: reading.Reference) -> Planned | None:
        if ref.file:
            name = ref.file.lower()
            found = self.by_file.get(name) or self.by_stem.get(name) or self.by_stem.get(name.rsplit(".", 1)[0])
            if found is not None:
                return found
        text, number = reading.named(ref)
        if text in self.by_key:
            return self.by_key[text]
        if number is not None:
            candidates = self.by_number.get(number, [])
            if len(candidates) == 1:
                return candidates[0]
            titled = [c for c in candidates if c.foreign.title and _title_key(c.foreign.title) in _title_key(text)]
            if len(titled) == 1:
                return titled[0]
            return None
        return self.by_title.get(_title_key(reading.split_title(text)[1]))


def _title_key(title: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", title.lower()).split())


def _link(result: Plan, spec: TypeSpec, options: Options) -> None:
    """Every record's references resolved into edges, each held by the record the schema wants it on."""
    schema = result.schema
    kinds = meaning.relation_kinds(schema)
    successor = kinds["successor"]
    names = _Names(result.documents, options.key)
    # The links records hold already (a second adopt reads docir's own fields, not the wording they came from).
    seen = {(item.doc_id, str(target), str(kind)) for item in result.documents
            for entry in _listed_related(item.foreign.meta) for kind, target in entry.items()}

    def add(holder: Planned, kind: str | None, other: Planned) -> None:
        if kind is None or holder is other:
            return
        pair = {(holder.doc_id, other.doc_id), (other.doc_id, holder.doc_id)}
        if kind == kinds["relates-to"] and any((a, b, k) in seen for a, b in pair for k in kinds.values() if k):
            return  # already linked by a typed edge: "relates to" would say less
        if (holder.doc_id, other.doc_id, kind) not in seen:
            seen.add((holder.doc_id, other.doc_id, kind))
            holder.edges.append((kind, other.doc_id))

    for item in result.documents:
        for ref in item.foreign.references:
            other = names.find(ref)
            if other is None:
                if ref.direction in ("superseded-by", "supersedes"):
                    item.review["related"] = f"names a record adopt cannot find: {ref.text!r}"
                continue
            role, other_holds = meaning.DIRECTIONS[ref.direction]
            kind = kinds.get(role)
            if other_holds:
                add(other, kind, item)
            else:
                add(item, kind, other)
        for fname, kind in options.relations.items():
            for value in _values(item.foreign.meta.get(fname)):
                other = names.find(reading.Reference("relates-to", value, None))
                if other is not None:
                    add(item, kind, other)
    for item in result.documents:  # plain links in the body to sibling records
        for target in item.foreign.sibling_links:
            other = names.find(reading.Reference("relates-to", target, reading.file_name(target)))
            if other is not None:
                add(item, kinds["relates-to"], other)
    _superseded_by_successors(result, successor)


def _listed_related(meta: dict[str, Any]) -> list[dict[Any, Any]]:
    raw = meta.get("related")
    return [entry for entry in raw if isinstance(entry, dict)] if isinstance(raw, list) else []


def _superseded_by_successors(result: Plan, successor: str | None) -> None:
    """A record an accepted record says it supersedes is superseded, whatever its own stale status says."""
    if successor is None:
        return
    by_id = {item.doc_id: item for item in result.documents}
    for item in result.documents:
        word = meaning.word(item.foreign)
        if word not in ("accepted", None):
            continue
        for kind, target in item.edges:
            older = by_id.get(target)
            if kind != successor or older is None or meaning.word(older.foreign) not in ("accepted", None):
                continue
            older.foreign.superseded_in_links = True
            said = older.foreign.status.original if older.foreign.status else "no status"
            older.review["status"] = f"{item.target} says it supersedes this record, which says {said!r}"


def _values(raw: Any) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, list):
        return [str(v) for v in raw if v is not None]
    return [v.strip() for v in str(raw).split(",") if v.strip()]


# --- docir's fields --------------------------------------------------------------------------------------------

def _fill(item: Planned, spec: TypeSpec, schema: Schema, options: Options, unstated: str) -> None:
    src, meta = item.foreign, item.foreign.meta
    if item.already:
        _relate(item)
        return
    _set(item, "id", item.doc_id)
    _keep_site_id(item)
    _set(item, "type", spec.name)
    title = src.title or src.path.stem
    _set(item, "title", title)
    if src.template_title is not None:
        where = "frontmatter" if meta.get("title") == title else "file name"
        item.review["title"] = (f"its title line is still the template's placeholder {src.template_title!r}; "
                                f"taken from its {where}")
    described = describe.describe(src, schema.lint.description_min, schema.lint.description_max)
    if described.text != meta.get("description"):
        _set(item, "description", described.text)
        if described.derived:
            item.review["description"] = f"written from the {described.source}"
    item.status = _status(item, spec, unstated, chosen=options.unstated is not None)
    _set(item, "status", item.status)
    if src.date is not None:
        if not isinstance(meta.get("date"), dt.date) and meta.get("date") != src.date.isoformat():
            _set(item, "date", src.date)
        if "date" not in item.mapped and src.date_written and src.date_written != src.date.isoformat():
            item.fields["date_original"] = src.date_written
    elif src.date_written:
        if "date" in meta:  # a frontmatter date lint refuses (DOC009): taken out, its line kept as date_original
            _set(item, "date", None)
        else:
            item.fields["date_original"] = src.date_written
        item.review["date"] = f"{src.date_written!r} is not a date adopt can read; left out, kept as date_original"
    if src.number is not None and "number" not in meta:
        _set(item, "number", src.number)
    if src.deciders and not any(k in meta for k in ("deciders", "decision-makers", "decision_makers")):
        _set(item, "decision-makers", src.deciders)
    if "owner" in spec.required and not meta.get("owner"):
        _set(item, "owner", options.owner)
    if "verified" in spec.required and not meta.get("verified"):
        _set(item, "verified", dt.date.today())
        item.review["verified"] = "set to today by adopt"
    tags = meta.get("tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)) \
            and not isinstance(tags, str):
        _set(item, "tags", [str(t) for t in tags] if isinstance(tags, list) else [])
    _relate(item)
    if item.review:
        reviewed = meta.get(REVIEW_FIELD)
        earlier = [str(v) for v in reviewed] if isinstance(reviewed, list) else []
        item.fields[REVIEW_FIELD] = sorted(set(earlier) | set(item.review))


def _keep_site_id(item: Planned) -> None:
    """A Docusaurus site gives a page its URL by its `id` (its folder, then the id) and names it by that id in
    sidebars. docir's `id` must be docir's (lint's DOC004, every read and link), so the team's id is kept as
    `id_original` and written as a relative `slug`, which Docusaurus resolves against the same folder: the page
    keeps its URL and the links to it. A sidebar naming it by id must name docir's: flagged for review. A
    record with a slug of its own has its URL from that already."""
    team = item.foreign.meta.get("id")
    if not isinstance(team, str) or not team.strip() or "/" in team or is_valid_id(team):
        return  # no id, one no site takes ('/' is refused by Docusaurus), or docir's own
    if "slug" not in item.foreign.meta:
        _set(item, "slug", team)
    item.review["id"] = (f"the site's id {team!r} is kept as id_original, its URL by slug; a sidebar naming "
                         f"it must name {item.doc_id}")


def _set(item: Planned, key: str, value: Any) -> None:
    """docir's `key` set to `value`: added, or mapped with the original kept as `<key>_original`."""
    meta = item.foreign.meta
    if key not in meta:
        item.fields[key] = value
        item.added.append(key)
        return
    if _same(meta[key], value):
        return
    item.fields[key] = value
    if f"{key}_original" not in meta:
        item.kept.append(key)
    item.mapped[key] = (_original(item.foreign, key), value)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dt.date) or isinstance(b, dt.date):
        return str(a) == str(b)
    return type(a) is type(b) and a == b


def _original(src: Foreign, key: str) -> Any:
    """A frontmatter value as written, for the report: itself when YAML gives back what was written (a plain
    string), else the text after `key:` (`0032` is not 26, `{ 2024-05-02 }` is not a mapping of a date)."""
    value = src.meta.get(key)
    if isinstance(value, str):
        return value
    raw = frontmatter.raw_value(src.edit_text, key)
    return raw if raw is not None else str(value)


def _status(item: Planned, spec: TypeSpec, unstated: str, *, chosen: bool) -> str:
    src = item.foreign
    word = meaning.word(src)
    if src.status is not None and src.status.unknown:
        item.review["status"] = f"{src.status.original!r} is not a status adopt knows; set to {spec.default_status}"
        _keep_written_status(item)
        return spec.default_status
    if word is None:
        item.unstated = True
        if not chosen:  # the type's default, not a status a person asked for: a person should look
            item.review.setdefault("status", f"states no status; set to {unstated}")
        return unstated
    mapped = meaning.map_status(spec, word)
    _keep_written_status(item, mapped)
    return mapped


def _keep_written_status(item: Planned, mapped: str | None = None) -> None:
    """The status as the source wrote it, where it is in the body (frontmatter keeps its own via _set)."""
    src = item.foreign
    if src.status is None or "status" in src.meta:
        return
    if src.status.original and src.status.original.casefold() != (mapped or "").casefold():
        item.fields["status_original"] = src.status.original


def _relate(item: Planned) -> None:
    """The record's `related` list: what it had, then its new edges (an entry it holds already is not repeated)."""
    if not item.edges:
        return
    raw = item.foreign.meta.get("related")
    existing: list[Any] = list(raw) if isinstance(raw, list) else []
    held = {(k, str(v)) for entry in existing if isinstance(entry, dict) for k, v in entry.items()}
    new = [{kind: target} for kind, target in item.edges if (kind, target) not in held]
    if not new:
        return
    if raw is not None and not isinstance(raw, list) and "related_original" not in item.foreign.meta:
        item.kept.append("related")
    item.fields["related"] = existing + new
    if "related" not in item.foreign.meta:
        item.added.append("related")


# --- the adopted file ------------------------------------------------------------------------------------------

def _render(item: Planned) -> str:
    """The adopted file: foreign fields as they were, docir's fields added or mapped, the body byte for byte."""
    src = item.foreign
    if not item.fields:
        return src.text
    # Written on LF text; the file keeps its CRLF lines and its BOM, in front (adr-3e8b51d07a4c).
    original = line_endings.read(src.edit_text)
    if not src.has_frontmatter:
        lines = [frontmatter.render_field(k, v) for k, v in item.fields.items() if v is not None]
        return line_endings.restore(original, "---\n" + "\n".join(lines) + "\n---\n\n" + original.lf_text)
    text = original.lf_text
    for key in item.kept:  # first, while the lines are still the source's
        text = frontmatter.copy_field(text, key, f"{key}_original")
    for key, value in item.fields.items():
        text = frontmatter.set_field(text, key, value)
    return line_endings.restore(original, text)
