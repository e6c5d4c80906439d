"""`docir adopt`: bring an existing folder of Markdown documents into the store, losing nothing.

Every foreign field is kept. What docir needs and the file lacks is added: an
id, the type, a title (from the first heading) and a description (from the
document's own summary, flagged for review). A foreign value in a field docir
owns (status, type) is mapped, and the original is kept beside it as
`<field>_original`. MADR and log4brains statuses map onto the type's statuses;
"superseded by X" becomes a `supersedes` edge on X.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from docir.documents import frontmatter, line_endings
from docir.documents.files import atomic_write, decode
from docir.documents.headings import find_headings, section_span
from docir.documents.ids import new_id
from docir.errors import UsageError
from docir.schema import TypeSpec
from docir.services.indexing import sync
from docir.services.indexing.session import Session
from docir.store import DOCS_DIR

SUMMARY_SECTIONS = ("summary", "simple summary", "abstract", "context and problem statement", "context", "overview",
                    "problem", "motivation")
# Foreign status words -> the status docir gives them, when the type has it.
STATUS_WORDS = {
    "proposed": ("proposed", "draft", "review", "in review", "last call", "open", "pending"),
    "accepted": ("accepted", "approved", "final", "living", "adopted", "done", "current"),
    "rejected": ("rejected", "withdrawn", "declined", "stagnant"),
    "deprecated": ("deprecated", "obsolete", "moved"),
    "superseded": ("superseded",),
}
SUPERSEDED_BY_RE = re.compile(r"^\s*superseded\s+by\s*:?\s*(.+)$", re.I)
BULLET_FIELD_RE = re.compile(r"^\s*[-*]\s*([A-Za-z][\w -]*?)\s*:\s*(.+?)\s*$")  # MADR 2: "* Status: accepted"
LINK_RE = re.compile(r"\[([^\]]*)\]\(([^)]+)\)")
REVIEW_FIELD = "review"


class PlannedJSON(TypedDict):
    source: str
    path: str
    id: str
    added: list[str]  # docir fields it gains
    mapped: dict[str, dict[str, str]]  # field -> {"from": original, "to": docir's}
    review: list[str]  # derived fields a person should check
    related: list[dict[str, str]]
    skipped: str | None


@dataclass
class Planned:
    """What adopt will do to one file."""

    source: Path
    target: str  # store-relative path of the adopted file
    text: str  # the new file text
    doc_id: str
    added: list[str] = field(default_factory=list)
    mapped: dict[str, tuple[str, str]] = field(default_factory=dict)  # field -> (original, new)
    review: list[str] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)  # (kind, target id)
    skipped: str | None = None

    def as_dict(self) -> PlannedJSON:
        return {"source": str(self.source), "path": self.target, "id": self.doc_id, "added": self.added,
                "mapped": {k: {"from": a, "to": b} for k, (a, b) in self.mapped.items()}, "review": self.review,
                "related": [{"kind": k, "id": t} for k, t in self.edges], "skipped": self.skipped}


@dataclass
class _Source:
    path: Path
    text: str
    meta: dict[str, Any]
    has_frontmatter: bool
    body: str


def plan(session: Session, folder: Path, spec: TypeSpec, *, owner: str | None = None, key: str | None = None,
         relations: dict[str, str] | None = None) -> list[Planned]:
    """The changes, computed without writing anything (what --dry-run prints)."""
    folder = folder.expanduser().resolve()
    if not folder.exists():
        raise UsageError(f"{folder}: no such folder")
    relations = relations or {}
    for kind in relations.values():
        if kind not in session.schema.relations:
            raise UsageError(f"--relation ...={kind}: unknown relation kind; "
                             f"the schema has: {', '.join(session.schema.relations)}")
    if "owner" in spec.required and not owner:
        raise UsageError(f"type '{spec.name}' requires an owner: pass --owner, e.g. --owner @team")
    files = sorted(p for p in (folder.rglob("*.md") if folder.is_dir() else [folder])
                   if not any(part.startswith(".") for part in p.relative_to(folder.parent).parts))
    sources = [_read(p) for p in files]
    inside_docs = session.store.docs_dir.resolve() in (folder, *folder.parents)
    planned: list[Planned] = []
    for src in sources:
        existing = str(src.meta.get("id") or "")
        doc_id = existing if existing.startswith(f"{spec.prefix}-") else new_id(spec.prefix)
        rel = src.path.relative_to(folder if folder.is_dir() else folder.parent).as_posix()
        target = (session.store.relpath(src.path) if inside_docs else f"{DOCS_DIR}/{spec.folder}/{rel}")
        planned.append(Planned(src.path, target, src.text, doc_id))
    by_name = {p.source.name: p for p in planned}
    by_key = {str(s.meta.get(key)): p for s, p in zip(sources, planned, strict=True)
              if key and s.meta.get(key) is not None}
    by_number = {m.group(1).lstrip("0"): p for p in planned if (m := re.match(r"^(?:\D*?)(\d+)", p.source.stem))}

    def resolve_ref(ref: str) -> Planned | None:
        ref = ref.strip()
        link = LINK_RE.search(ref)
        if link:
            target = Path(link.group(2).split("#")[0]).name
            if target in by_name:
                return by_name[target]
            ref = link.group(1)
        if ref in by_key:
            return by_key[ref]
        number = re.search(r"(\d+)", ref)
        return by_number.get(number.group(1).lstrip("0")) if number else None

    for src, item in zip(sources, planned, strict=True):
        _fill(session, spec, src, item, owner)
        status = _foreign_status(src)
        if status:
            superseded = SUPERSEDED_BY_RE.match(status)
            if superseded:
                successor = resolve_ref(superseded.group(1))
                if successor is not None and "supersedes" in session.schema.relations:
                    successor.edges.append(("supersedes", item.doc_id))
                else:
                    item.review.append("status")
        for fname, kind in relations.items():
            for value in _values(src.meta.get(fname)):
                other = resolve_ref(value)
                if other is not None and other is not item:
                    item.edges.append((kind, other.doc_id))
    for src, item in zip(sources, planned, strict=True):
        item.text = _render(src, item, spec, owner)
    return planned


def apply(session: Session, planned: list[Planned]) -> None:
    """Write every planned file atomically and index it, under the write lock."""
    with session.locked():
        for item in planned:
            target = session.store.root / item.target
            if target.resolve() != item.source.resolve() and target.exists():
                raise UsageError(f"{item.target} already exists; adopt never overwrites a file")
        for item in planned:
            atomic_write(session.store.root / item.target, item.text)
            sync.index_file(session.store.root, session.catalog, item.target)


def _read(path: Path) -> _Source:
    text = decode(path.read_bytes(), path.name)
    try:
        meta, parts = frontmatter.parse(text)
        return _Source(path, text, meta, True, parts.body)
    except frontmatter.FrontmatterError as exc:
        if exc.message.startswith("no frontmatter"):
            return _Source(path, text, {}, False, text)
        raise UsageError(f"{path}: {exc.message} (line {exc.line}); fix it before adopting") from None


def _fill(session: Session, spec: TypeSpec, src: _Source, item: Planned, owner: str | None) -> None:
    meta = src.meta
    if not meta.get("id") or not str(meta["id"]).startswith(f"{spec.prefix}-"):
        if meta.get("id"):
            item.mapped["id"] = (str(meta["id"]), item.doc_id)
        else:
            item.added.append("id")
    if meta.get("type") != spec.name:
        if meta.get("type") is not None:
            item.mapped["type"] = (str(meta["type"]), spec.name)
        else:
            item.added.append("type")
    if not meta.get("title"):
        item.added.append("title")
    if not meta.get("description"):
        item.added.append("description")
        item.review.append("description")
    status = _foreign_status(src)
    new_status = _map_status(spec, status)
    if new_status != status and status is not None:
        item.mapped["status"] = (status, new_status)
    elif meta.get("status") is None:
        item.added.append("status")  # absent, or only in the body (a MADR "* Status:" bullet)
    if new_status == spec.default_status and status and status.lower() not in STATUS_WORDS.get(new_status, ()) \
            and status != new_status:
        item.review.append("status")
    if "owner" in spec.required and not meta.get("owner"):
        item.added.append("owner")
    if "verified" in spec.required and not meta.get("verified"):
        item.added.append("verified")
        item.review.append("verified")


def _render(src: _Source, item: Planned, spec: TypeSpec, owner: str | None) -> str:
    """The adopted file: foreign fields as they were, docir's fields added or mapped."""
    spec_fields = _new_fields(src, item, spec, owner)
    # Written on LF text; the file keeps its CRLF lines and its BOM, in front (adr-3e8b51d07a4c).
    original = line_endings.read(src.text)
    if not src.has_frontmatter:
        lines = [frontmatter.render_field(k, v) for k, v in spec_fields.items()]
        return line_endings.restore(original, "---\n" + "\n".join(lines) + "\n---\n\n" + original.lf_text)
    text = original.lf_text
    for key, value in spec_fields.items():
        text = frontmatter.set_field(text, key, value)
    return line_endings.restore(original, text)


def _new_fields(src: _Source, item: Planned, spec: TypeSpec, owner: str | None) -> dict[str, Any]:
    """docir's fields in docir's order; a mapped field's original value follows it."""
    meta = src.meta
    fields: dict[str, Any] = {"id": item.doc_id}
    makers: dict[str, Callable[[], str]] = {
        "type": lambda: spec.name, "title": lambda: _title(src), "description": lambda: _description(src),
        "status": lambda: _map_status(spec, _foreign_status(src)),
    }
    for key, make in makers.items():
        if key in item.mapped:
            fields[key] = item.mapped[key][1]
            fields[f"{key}_original"] = item.mapped[key][0]
        elif key in item.added:
            fields[key] = make()
    if "id" in item.mapped:
        fields["id_original"] = item.mapped["id"][0]
    if "owner" in item.added:
        fields["owner"] = owner
    if "verified" in item.added:
        fields["verified"] = dt.date.today()
    if item.edges:
        raw = meta.get("related")
        existing: list[Any] = list(raw) if isinstance(raw, list) else []
        fields["related"] = existing + [{kind: target} for kind, target in item.edges]
    if item.review:
        fields[REVIEW_FIELD] = sorted(set(item.review))
    return {k: v for k, v in fields.items() if v is not None}


def _foreign_status(src: _Source) -> str | None:
    if src.meta.get("status") is not None:
        return str(src.meta["status"]).strip()
    for line in src.body.splitlines()[:40]:
        match = BULLET_FIELD_RE.match(line)
        if match and match.group(1).strip().lower() == "status":
            return LINK_RE.sub(lambda m: m.group(0), match.group(2)).strip()
    return None


def _map_status(spec: TypeSpec, status: str | None) -> str:
    if not status:
        return spec.default_status
    word = status.strip().lower()
    if SUPERSEDED_BY_RE.match(status):
        word = "superseded"
    if word in spec.statuses:
        return word
    for target, words in STATUS_WORDS.items():
        if word in words and target in spec.statuses:
            return target
    if word in STATUS_WORDS["superseded"] or word in STATUS_WORDS["deprecated"] or word in STATUS_WORDS["rejected"]:
        inactive = sorted(spec.inactive_statuses)
        if inactive:
            return inactive[0]
    return spec.default_status


def _title(src: _Source) -> str:
    for heading in find_headings(src.body):
        if heading.text:
            return heading.text
    return src.path.stem.replace("-", " ").replace("_", " ").strip().capitalize()


def _description(src: _Source) -> str:
    for name in SUMMARY_SECTIONS:
        span = section_span(src.body, name)
        if span:
            paragraph = _first_paragraph(src.body[span[2].end : span[1]])
            if paragraph:
                return _clip(paragraph)
    paragraph = _first_paragraph(_without_headings(src.body))
    return _clip(paragraph) if paragraph else f"{_title(src)}: adopted without a summary; describe it here."


MIN_DESCRIPTION = 40  # shorter "paragraphs" are labels ("Hard fork."), not summaries


def _first_paragraph(text: str) -> str:
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.strip().splitlines()]
        if (lines and not all(BULLET_FIELD_RE.match(line) for line in lines)
                and not lines[0].startswith(("#", "```", "|", "<"))):
            paragraph = " ".join(lines)
            if len(paragraph) >= MIN_DESCRIPTION:
                return paragraph
    return ""


def _without_headings(text: str) -> str:
    headings = find_headings(text)
    for heading in reversed(headings):
        text = text[: heading.start] + "\n" + text[heading.end :]
    return text


def _clip(text: str, limit: int = 300) -> str:
    text = LINK_RE.sub(lambda m: m.group(1), " ".join(text.split()))
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return cut[: end + 1] if end > 40 else cut.rsplit(" ", 1)[0] + "…"


def _values(raw: Any) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, list):
        return [str(v) for v in raw]
    return [v.strip() for v in str(raw).split(",") if v.strip()]
