"""The folders of decision records a repository already keeps, and the format each is written in.

What `docir init` looks at (adr-0c5e2d8f1a47), in this order: adr-tools' `.adr-dir` (the folder `adr init`
made), log4brains' `.log4brains.yml` (its project's folder and each package's), then the places the ADR
tools and templates put records (MADR's `docs/decisions`, adr-tools' `doc/adr`, ...). A folder counts when
it holds a record docir did not write: a file of a record's name, without a docir id, that reads as a
decision record. Its format is adr-tools where its records open with `# N. Title` over a Status section,
log4brains where `.log4brains.yml` names it, MADR otherwise. Nothing is written here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from docir.documents.records.names import is_record_name

# Where ADR tools and templates put records, relative to the repository root.
USUAL_FOLDERS = ("doc/adr", "docs/adr", "docs/adrs", "doc/adrs", "docs/decisions", "doc/decisions",
                 "docs/architecture/decisions", "doc/architecture/decisions", "docs/architecture/adr",
                 "docs/architecture-decisions", "docs/decision-records", "architecture/decisions", "adr", "adrs",
                 "decisions")
_ADR_TOOLS_TITLE_RE = re.compile(r"^\ufeff?#\s+\d+\.\s+\S")
_SAMPLE = 20  # records read to tell a folder's format
# The sections a decision record has in every format: a file with none of them, and no status or date, is some
# other page (a lone "# 1. Title" is no evidence of a folder of records).
RECORD_SECTIONS = frozenset({"status", "context", "decision", "consequences", "context and problem statement",
                             "decision outcome", "considered options", "decision drivers"})


class Found(NamedTuple):
    path: str  # relative to the root, '/'-separated
    format: str  # one of schema.RECORD_FORMATS
    records: int  # records in it docir did not write
    source: str  # what named it: ".adr-dir", ".log4brains.yml", or "usual place"


def find(root: Path) -> list[Found]:
    """The folders of records under `root` (a repository's top), each once, in the order found."""
    named: list[tuple[str, str | None, str]] = []  # (folder, format if the tool says, source)
    kept = adr_tools_folder(root)
    if kept:
        named.append((kept, "adr-tools", ".adr-dir"))
    named.extend((folder, "log4brains", ".log4brains.yml") for folder in log4brains_folders(root))
    named.extend((folder, None, "usual place") for folder in USUAL_FOLDERS)
    found: list[Found] = []
    seen: set[str] = set()
    for raw, form, source in named:
        folder = _clean(raw)
        if folder is None or folder in seen or not (root / folder).is_dir():
            continue
        seen.add(folder)
        records = _foreign_records(root / folder)
        if not records:
            continue
        found.append(Found(folder, form or _format_of(records), len(records), source))
    return found


def adr_tools_folder(root: Path) -> str | None:
    """The folder adr-tools keeps its records in, as `adr init` wrote it into `root`'s `.adr-dir`; None
    where there is none, or it leaves the repository."""
    written = _read(root / ".adr-dir")
    return _clean(written) if written and written.strip() else None


def log4brains_folders(root: Path) -> list[str]:
    """The ADR folders `.log4brains.yml` names: the project's and each package's (relative to the root)."""
    text = _read(root / ".log4brains.yml")
    if not text:
        return []
    import yaml  # only a repository with log4brains pays for it

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    project = data.get("project") if isinstance(data, dict) else None
    if not isinstance(project, dict):
        return []
    folders = [project.get("adrFolder")]
    packages = project.get("packages")
    for package in packages if isinstance(packages, list) else []:
        if isinstance(package, dict):
            folders.append(package.get("adrFolder"))
    return [folder for folder in folders if isinstance(folder, str) and folder.strip()]


def _clean(raw: str) -> str | None:
    """A folder as written in a tool's settings (`./docs/adr/`, `doc\\adr`), relative and '/'-separated; None
    for one that leaves the repository or is absolute."""
    path = raw.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    path = path.strip("/")
    parts = path.split("/")
    if not path or raw.strip().startswith("/") or ".." in parts or any(p.startswith(".") for p in parts):
        return None
    return path


def _foreign_records(folder: Path) -> list[str]:
    """The texts of the records in `folder` (not below it) that docir did not write: a record's name, no docir
    id in the frontmatter, and read as a decision record that states a status or a date or has a record's
    sections."""
    from docir.documents.records import reading

    texts: list[str] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        path = folder / name
        if not is_record_name(name) or not path.is_file():
            continue
        src = reading.read(path)
        unfilled = src.kind == "other" and src.status is not None and src.status.template  # just made by its tool
        if (src.kind != "adr" and not unfilled) or ("id" in src.meta and "type" in src.meta):
            continue
        sections = {reading.heading_name(h.text) for h in src.headings}
        if src.status is None and src.date is None and not sections & RECORD_SECTIONS:
            continue
        texts.append(src.text)
    return texts


def format_of(folder: Path) -> str:
    """The format of the records in `folder`: log4brains where the repository's `.log4brains.yml` names it,
    else as _format_of tells it from them (MADR for a folder of no record docir did not write)."""
    for parent in (folder, *folder.parents):
        if (parent / ".log4brains.yml").is_file():
            named = {_clean(raw) for raw in log4brains_folders(parent)}
            if folder.relative_to(parent).as_posix() in named:
                return "log4brains"
            break
    texts = _foreign_records(folder)
    return _format_of(texts) if texts else "madr"


def _format_of(texts: list[str]) -> str:
    """adr-tools where most records open with `# N. Title`, else MADR (bullets or frontmatter alike)."""
    sample = texts[:_SAMPLE]
    numbered = sum(1 for text in sample if _ADR_TOOLS_TITLE_RE.match(text))
    return "adr-tools" if numbered * 2 > len(sample) else "madr"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
