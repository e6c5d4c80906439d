"""Reference corpora: read-only upstream documentation, walked and chunked at headings.

A reference chunk is its own type, deliberately unrelated to Document: the
write paths, lint and the near-duplicate check take Documents, so passing a
chunk to them is a type error, not a runtime check that defaults the safe way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from docir.documents import scan
from docir.documents.chunk import chunk_markdown
from docir.documents.files import decode

SUFFIXES = (".md", ".txt")
MAX_REF_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class RefFile:
    source_uri: str  # absolute path: the identity, stable across re-ingest
    relpath: str  # within the registered tree, for the breadcrumb
    sha256: str
    text: str


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True)
class RefChunk:
    """One heading section (or piece of one) of a reference file."""

    id: str  # ref-<12 hex>, from source_uri and ordinal
    source_uri: str
    sha256: str  # of the whole file
    ordinal: int
    heading_path: tuple[str, ...]  # the file's name first
    text: str  # breadcrumb line, then the section text: what is embedded
    continuation: bool
    start: int
    end: int


def walk(root: Path, skipped: list[Skipped] | None = None) -> Iterator[RefFile]:
    """Every *.md and *.txt under `root` (or `root` itself), in a stable order.

    Dotfiles and dot-folders are skipped, files over the size ceiling too, and
    symlinks are never followed, so a link loop cannot hang the walk.
    """
    root = root.resolve()
    notes = skipped if skipped is not None else []
    if root.is_file():
        candidates: list[Path] = [root]
        base = root.parent
    else:
        candidates = sorted(_files(root, notes))
        base = root
    for path in candidates:
        if path.suffix.lower() not in SUFFIXES:
            notes.append(Skipped(str(path), "not .md or .txt"))
            continue
        try:
            size = path.stat().st_size
            if size > MAX_REF_BYTES:
                notes.append(Skipped(str(path), f"{size // 1024} KB is over the {MAX_REF_BYTES // 1024} KB ceiling"))
                continue
            data = path.read_bytes()
            text = decode(data, path.name)
        except (OSError, ValueError) as exc:
            notes.append(Skipped(str(path), str(exc)))
            continue
        yield RefFile(str(path), path.relative_to(base).as_posix(), hashlib.sha256(data).hexdigest(), text)


def _files(folder: Path, notes: list[Skipped]) -> Iterator[Path]:
    for entry in scan.walk(folder, lambda path, reason: notes.append(Skipped(path, reason))):
        yield Path(entry.path)


def chunk_file(ref: RefFile, count_tokens: Callable[[str], int], budget: int) -> list[RefChunk]:
    """The file's heading chunks; the file name leads every breadcrumb (`guide.md > Setup > Linux`)."""
    title = ref.relpath
    chunks = chunk_markdown(ref.text, title=title, count_tokens=count_tokens, budget=budget)
    return [
        RefChunk(chunk_id(ref.source_uri, c.ordinal), ref.source_uri, ref.sha256, c.ordinal,
                 (title, *c.heading_path), c.text, c.continuation, c.start, c.end)
        for c in chunks
    ]


def chunk_id(source_uri: str, ordinal: int) -> str:
    return "ref-" + hashlib.sha256(f"{source_uri}\x00{ordinal}".encode()).hexdigest()[:12]
