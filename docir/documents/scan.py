"""Walk docs/ for Markdown files and their stat, without reading them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple


class FileStat(NamedTuple):
    path: str  # relative to the store root
    size: int
    mtime_ns: int


def scan_docs(root: Path, docs_dir: Path) -> dict[str, FileStat]:
    """Every `*.md` under docs_dir keyed by store-relative path.

    Dotfiles and dot-folders are skipped and symlinks are never followed,
    so a link loop cannot hang the walk and nothing outside the store is read.
    """
    found: dict[str, FileStat] = {}
    if not docs_dir.is_dir():
        return found
    prefix = docs_dir.relative_to(root).as_posix()
    stack = [(docs_dir, prefix)]
    while stack:
        folder, rel = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_symlink():
                continue
            entry_rel = f"{rel}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                stack.append((Path(entry.path), entry_rel))
            elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                found[entry_rel] = FileStat(entry_rel, st.st_size, st.st_mtime_ns)
    return found
