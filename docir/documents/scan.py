"""Walk docs/ for Markdown files and their stat, without reading them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple


class FileStat(NamedTuple):
    path: str  # relative to the store root
    size: int
    mtime_ns: int


def walk(folder: Path, on_skip: Callable[[str, str], None] | None = None,
         on_folder: Callable[[str], None] | None = None) -> Iterator[os.DirEntry[str]]:
    """Every regular file below `folder`, for docs/ and reference corpora alike.

    Dotfiles and dot-folders are skipped and symlinks are never followed, so a
    link loop cannot hang the walk and nothing outside the tree is read.
    `on_folder` is told each folder before it is listed.
    """
    # Most entries are files, so that is asked first: this runs for every file on every command.
    stack = [str(folder)]
    while stack:
        current = stack.pop()
        if on_folder is not None:
            on_folder(current)
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError as exc:
            if on_skip is not None:
                on_skip(current, exc.strerror or str(exc))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_file(follow_symlinks=False):  # False for a symlink, whatever it points at
                yield entry
            elif entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif on_skip is not None and entry.is_symlink():
                on_skip(entry.path, "symlink (never followed)")


def scan_docs(root: Path, docs_dir: Path, on_folder: Callable[[str], None] | None = None) -> dict[str, FileStat]:
    """Every `*.md` under docs_dir keyed by store-relative path, with its stat; `on_folder` is told
    each folder before it is listed."""
    found: dict[str, FileStat] = {}
    if not docs_dir.is_dir():
        return found
    # String slicing, not Path objects: this runs for every file on every command.
    base, prefix = str(docs_dir), docs_dir.relative_to(root).as_posix()
    for entry in walk(docs_dir, on_folder=on_folder):
        if entry.name.endswith(".md"):
            rel = prefix + entry.path[len(base):].replace(os.sep, "/")
            st = entry.stat(follow_symlinks=False)
            found[rel] = FileStat(rel, st.st_size, st.st_mtime_ns)
    return found
