"""Reference corpora: register, plan, ingest and remove read-only trees of upstream docs.

`.docir/refs.yaml` (committed) is the registry; chunks live in the
git-ignored index. Ingest compares each file's sha256 with what the index
holds, so re-adding an unchanged tree rewrites nothing and costs no model time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypedDict

from docir import yamltext
from docir.documents import refs as refdocs
from docir.documents.chunk import window_budget
from docir.documents.files import atomic_write
from docir.documents.model import text_sha
from docir.embed.resolve import resolve
from docir.embed.tokens import TokenCounter, WordCounter
from docir.errors import NotFound, UsageError
from docir.index.ref_records import RefChunkRow, RefFileRow
from docir.services.indexing.session import Session
from docir.settings import Settings
from docir.store import STATE_DIR, Store

REFS_FILE = "refs.yaml"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
HEADER = "# Reference corpora: read-only documentation searched beside docs/ (docir ref add|list|remove).\n"
Progress = Callable[[int, int], None]


class Counter(Protocol):
    @property
    def max_tokens(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...


@dataclass(frozen=True)
class Entry:
    name: str
    path: str  # as written in refs.yaml
    home: Path  # resolved


class Skip(TypedDict):
    path: str
    reason: str


class IngestJSON(TypedDict):
    name: str
    files: int
    added: int
    updated: int
    removed: int
    unchanged: int
    chunks: int
    skipped: list[Skip]


class ChunkPlan(TypedDict):
    heading_path: list[str]
    tokens: int
    continuation: bool


class FilePlan(TypedDict):
    file: str
    source_uri: str
    sha256: str
    chunk_count: int
    chunks: list[ChunkPlan]


class AddPlan(TypedDict):
    """`ref add --dry-run`: what would be stored, per file and chunk."""

    path: str
    files: list[FilePlan]
    chunk_count: int
    budget: int
    skipped: list[Skip]


class RemoveResult(TypedDict):
    name: str
    removed_files: int


class CorpusListing(TypedDict):
    name: str
    path: str
    exists: bool
    files: int
    chunks: int


@dataclass
class IngestReport:
    name: str
    files: int = 0
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    chunks: int = 0
    skipped: list[Skip] = field(default_factory=list)

    def as_dict(self) -> IngestJSON:
        return {"name": self.name, "files": self.files, "added": self.added, "updated": self.updated,
                "removed": self.removed, "unchanged": self.unchanged, "chunks": self.chunks, "skipped": self.skipped}


def registry(store: Store) -> list[Entry]:
    path = store.root / STATE_DIR / REFS_FILE
    if not path.is_file():
        return []
    try:
        data = yamltext.load(path.read_text(encoding="utf-8")) or {}
    except yamltext.YamlProblem as exc:
        raise UsageError(f"{STATE_DIR}/{REFS_FILE}:{exc.line}:{exc.col}: {exc.message}") from None
    entries = []
    for item in (data.get("refs") or []) if isinstance(data, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("path"), str):
            entries.append(Entry(item["name"], item["path"], (store.root / item["path"]).resolve()))
    return entries


def save_registry(store: Store, entries: list[Entry]) -> None:
    lines = [HEADER, "refs:\n" if entries else "refs: []\n"]
    for entry in entries:
        lines.append(f"  - name: {entry.name}\n    path: {_quoted(entry.path)}\n")
    atomic_write(store.root / STATE_DIR / REFS_FILE, "".join(lines))


def counter_for(session: Session) -> Counter:
    return counter_for_store(session.caller.settings, session.store, session.schema.model_path)


def counter_for_store(settings: Settings, store: Store, schema_model_path: str | None) -> Counter:
    """The model's tokenizer without the model (no ONNX session is created), or an estimate."""
    choice = resolve(settings, schema_model_path, store.root)
    return TokenCounter(choice) if choice.path is not None else WordCounter()


def plan(target: Path, counter: Counter) -> AddPlan:
    """What `ref add` would store: per file, each chunk's heading path and token count. No writes, no model."""
    skipped: list[refdocs.Skipped] = []
    files: list[FilePlan] = []
    budget = window_budget(counter.max_tokens)
    for ref in refdocs.walk(target, skipped):
        chunks = refdocs.chunk_file(ref, counter.count_tokens, budget)
        files.append({
            "file": ref.relpath, "source_uri": ref.source_uri, "sha256": ref.sha256, "chunk_count": len(chunks),
            "chunks": [{"heading_path": list(c.heading_path), "tokens": counter.count_tokens(c.text),
                        "continuation": c.continuation} for c in chunks],
        })
    return {"path": str(target), "files": files, "chunk_count": sum(f["chunk_count"] for f in files),
            "budget": budget, "skipped": [{"path": s.path, "reason": s.reason} for s in skipped]}


def add(session: Session, target: Path, name: str | None, progress: Progress | None = None) -> IngestReport:
    """Register `target` (a folder or a file) and ingest it; re-adding re-ingests what changed."""
    home = target.resolve()  # absolute: the command line made it so, from the caller's folder
    if not home.exists():
        raise UsageError(f"{target}: no such file or folder")
    if home == session.store.root or session.store.docs_dir.resolve() in (home, *home.parents):
        raise UsageError(f"{target} is this store's own docs; reference corpora are someone else's documentation")
    name = name or re.sub(r"[^A-Za-z0-9._-]+", "-", home.stem or home.name).strip("-") or "ref"
    if not NAME_RE.match(name):
        raise UsageError(f"--name {name!r}: use letters, digits, '.', '_' or '-' (up to 64)")
    with session.locked():
        entries = registry(session.store)
        same = next((e for e in entries if e.name == name), None)
        if same is not None and same.home != home:
            raise UsageError(f"a corpus named {name!r} already points at {same.path}; pick another --name")
        if same is None:
            entries.append(Entry(name, _as_written(session.store, home), home))
            save_registry(session.store, entries)
        return ingest(session, Entry(name, _as_written(session.store, home), home), counter_for(session), progress)


def remove(session: Session, name: str) -> RemoveResult:
    with session.locked():
        entries = registry(session.store)
        if not any(e.name == name for e in entries):
            known = ", ".join(e.name for e in entries) or "none"
            raise NotFound(f"no reference corpus named {name!r} (registered: {known})")
        save_registry(session.store, [e for e in entries if e.name != name])
        files = session.catalog.refs.files(name)
        with session.catalog.transaction():
            for uri in files:
                session.catalog.refs.remove_file(uri)
    return {"name": name, "removed_files": len(files)}


def listing(session: Session) -> list[CorpusListing]:
    counts = session.catalog.refs.counts()
    return [{"name": e.name, "path": e.path, "exists": e.home.exists(), "files": counts.get(e.name, (0, 0))[0],
             "chunks": counts.get(e.name, (0, 0))[1]} for e in registry(session.store)]


def ingest(session: Session, entry: Entry, counter: Counter, progress: Progress | None = None) -> IngestReport:
    """Bring the index's chunks of one corpus in line with its files, by sha256 per file."""
    report = IngestReport(entry.name)
    known = session.catalog.refs.files(entry.name)
    skipped: list[refdocs.Skipped] = []
    budget = window_budget(counter.max_tokens)
    seen: set[str] = set()
    if not entry.home.exists():
        report.skipped.append({"path": str(entry.home), "reason": "the registered path no longer exists"})
        return report
    files = list(refdocs.walk(entry.home, skipped))
    for done, ref in enumerate(files, start=1):
        seen.add(ref.source_uri)
        report.files += 1
        before = known.get(ref.source_uri)
        if before is not None and before[1] == ref.sha256:
            report.unchanged += 1
            continue
        chunks = refdocs.chunk_file(ref, counter.count_tokens, budget)
        rows = [RefChunkRow(c.id, c.ordinal, c.heading_path, c.text, c.continuation, c.start, c.end,
                            text_sha(c.text)) for c in chunks]
        with session.catalog.transaction():
            session.catalog.refs.replace_file(RefFileRow(entry.name, ref.source_uri, ref.relpath, ref.sha256), rows)
        report.chunks += len(rows)
        if before is None:
            report.added += 1
        else:
            report.updated += 1
        if progress is not None:
            progress(done, len(files))
    gone = [uri for uri in known if uri not in seen]
    if gone:
        with session.catalog.transaction():
            for uri in gone:
                session.catalog.refs.remove_file(uri)
    report.removed = len(gone)
    report.skipped.extend({"path": s.path, "reason": s.reason} for s in skipped)
    return report


def sync_all(session: Session, progress: Progress | None = None) -> list[IngestReport]:
    """Re-ingest every registered corpus (what reindex does): unchanged files cost a hash each."""
    entries = registry(session.store)
    if not entries:
        return []
    counter = counter_for(session)
    with session.locked():
        return [ingest(session, entry, counter, progress) for entry in entries]


def _as_written(store: Store, home: Path) -> str:
    """Relative to the store's home, so the committed refs.yaml works in every clone of the same layout."""
    return Path(os.path.relpath(home, store.root)).as_posix()


def _quoted(path: str) -> str:
    return path if re.match(r"^[A-Za-z0-9_./~-]+$", path) else '"' + path.replace('"', '\\"') + '"'


def ensure_ingested(session: Session) -> None:
    """After the index was rebuilt, registered corpora come back on the first read that wants them."""
    entries = registry(session.store)
    if not entries:
        return
    present = session.catalog.refs.counts()
    missing = [e for e in entries if e.name not in present and e.home.exists()]
    if missing:
        counter = counter_for(session)
        with session.locked():
            for entry in missing:
                ingest(session, entry, counter)
