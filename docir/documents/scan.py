"""Walk docs/ for Markdown files and their stat, without reading them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

# A file's (size, mtime_ns): what tells a changed file from an unchanged one. A plain tuple, not a
# NamedTuple: one is made for every file on every command, and a NamedTuple costs 6 ms more at 10,000
# files; a plain one also compares equal to the index's (size, mtime_ns) rows (DocsTable.stats).
FileStat = tuple[int, int]


def walk(folder: Path, on_skip: Callable[[str, str], None] | None = None,
         on_folder: Callable[[str], None] | None = None) -> Iterator[os.DirEntry[str]]:
    """Every regular file below `folder`, for docs/ and reference corpora alike (see walk_folders)."""
    for _, files in walk_folders(folder, on_skip, on_folder):
        yield from files


def walk_folders(folder: Path, on_skip: Callable[[str, str], None] | None = None,
                 on_folder: Callable[[str], None] | None = None) -> Iterator[tuple[str, list[os.DirEntry[str]]]]:
    """Every folder below `folder` (itself first) with its regular files.

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
        files = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_file(follow_symlinks=False):  # False for a symlink, whatever it points at
                files.append(entry)
            elif entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif on_skip is not None and entry.is_symlink():
                on_skip(entry.path, "symlink (never followed)")
        yield current, files


def scan_docs(root: Path, docs_dir: Path, on_folder: Callable[[str], None] | None = None) -> dict[str, FileStat]:
    """Every `*.md` under docs_dir keyed by store-relative path, with its stat; `on_folder` is told
    each folder before it is listed."""
    found: dict[str, FileStat] = {}
    if not docs_dir.is_dir():
        return found
    # String slicing, not Path objects, and one prefix per folder: this runs for every file on every command.
    base, prefix = str(docs_dir), docs_dir.relative_to(root).as_posix()
    for folder, files in walk_folders(docs_dir, on_folder=on_folder):
        inside = prefix + folder[len(base):].replace(os.sep, "/") + "/"
        for entry in files:
            if entry.name.endswith(".md"):
                st = entry.stat(follow_symlinks=False)
                found[inside + entry.name] = (st.st_size, st.st_mtime_ns)
    return found
