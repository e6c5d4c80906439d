"""Walk docs/ for Markdown files and their stat, without reading them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

from docir.documents.ownership import EVERYTHING, Ownership
from docir.documents.records.names import is_record_name

# A file's (size, mtime_ns): what tells a changed file from an unchanged one. A plain tuple, not a
# NamedTuple: one is made for every file on every command, and making NamedTuples shows in a cold
# command's time (adr-d5e80517405b); a plain one also compares equal to the index's (size, mtime_ns)
# rows (DocsTable.stats).
FileStat = tuple[int, int]

# A symlink under docs/ that is not followed is recorded with one of these as its size (a file's size is never
# negative), so the verdict travels with the stats through the forked walk and into the index (adr-7c2e94a0d5b1).
LINK_LEAVES, LINK_LOOPS, LINK_BROKEN = -1, -2, -3
LINK_REASONS = {
    LINK_LEAVES: "symlink points outside the repository; not followed",
    LINK_LOOPS: "symlink loops back on itself; not followed",
    LINK_BROKEN: "symlink points at nothing",
}


def link_reason(size: int) -> str:
    """What a symlink the walk did not follow is reported with, from the LINK_* code kept as its size."""
    return LINK_REASONS.get(size, "symlink not followed")


Verdict = Literal["file", "dir"] | int | None  # follow as a file, as a folder; a LINK_* code; or leave it


class Links:
    """Which symlinks a walk of docs/ follows: those that stay inside `boundary` (the repository, or the
    store root outside git) and do not lead back into docs/, which the walk reaches under its own paths.

    The boundary is found at the first symlink met: a walk without one costs nothing more.
    """

    def __init__(self, root: Path, docs_dir: Path) -> None:
        self._root, self._docs_dir = root, docs_dir
        self._bounds: tuple[str, str] | None = None

    def _boundary(self) -> tuple[str, str]:
        if self._bounds is None:
            self._bounds = (repository_root(self._root), os.path.realpath(self._docs_dir))
        return self._bounds

    def judge(self, path: str, folder: str, chain: frozenset[str]) -> tuple[Verdict, str]:
        """The verdict on the symlink at `path` in `folder`, and its real target; `chain` holds the real
        folders entered through links on the way to `folder`."""
        import stat

        try:
            st = os.stat(path)
        except OSError as exc:
            import errno

            return (LINK_LOOPS if exc.errno == errno.ELOOP else LINK_BROKEN), ""
        target = os.path.realpath(path)
        boundary, docs_real = self._boundary()
        is_dir = stat.S_ISDIR(st.st_mode)
        if not within(target, boundary):
            return (LINK_LEAVES if is_dir or path.endswith(".md") else None), target
        if within(target, docs_real):
            return None, target
        if is_dir:
            if target in chain or within(os.path.realpath(folder), target):
                return LINK_LOOPS, target
            return "dir", target
        return ("file" if stat.S_ISREG(st.st_mode) else None), target


def within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def repository_root(root: Path) -> str:
    """The real path of the git work tree holding `root` (the nearest folder with a `.git`), else of `root`."""
    real = os.path.realpath(root)
    current = real
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return real
        current = parent


def walk(folder: Path, on_skip: Callable[[str, str], None] | None = None,
         on_folder: Callable[[str], None] | None = None) -> Iterator[os.DirEntry[str]]:
    """Every regular file below `folder`, for docs/ and reference corpora alike (see walk_folders)."""
    for _, files in walk_folders(folder, on_skip, on_folder):
        yield from files


def walk_folders(folder: Path, on_skip: Callable[[str, str], None] | None = None,
                 on_folder: Callable[[str], None] | None = None, links: Links | None = None,
                 on_link: Callable[[str, int], None] | None = None,
                 skip: Callable[[str], bool] | None = None) -> Iterator[tuple[str, list[os.DirEntry[str]]]]:
    """Every folder below `folder` (itself first) with its regular files.

    Dotfiles and dot-folders are skipped, and the folders `skip` is true of (by their path). Without
    `links`, symlinks are never followed, so a link loop cannot hang the walk and nothing outside the
    tree is read. With it, a link it lets through is walked under its own path (a linked file is among
    the files; a linked folder is listed as `folder/link/...`), and `on_link` is told each other one
    with its LINK_* code. `on_folder` is told each folder before it is listed.
    """
    # Most entries are files, so that is asked first: this runs for every file on every command.
    stack = [str(folder)]
    chains: dict[str, frozenset[str]] = {}  # folders below a followed link -> the real folders linked to
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
                if skip is not None and skip(entry.path):
                    continue
                stack.append(entry.path)
                if chains and current in chains:
                    chains[entry.path] = chains[current]
            elif entry.is_symlink():
                if links is None:
                    if on_skip is not None:
                        on_skip(entry.path, "symlink (never followed)")
                    continue
                chain = chains.get(current, frozenset())
                verdict, target = links.judge(entry.path, current, chain)
                if verdict == "file":
                    files.append(entry)
                    if on_folder is not None:  # a watch of docs/ alone would not see the target change
                        on_folder(os.path.dirname(target))
                elif verdict == "dir":
                    if skip is not None and skip(entry.path):
                        continue
                    stack.append(entry.path)
                    chains[entry.path] = chain | {target}
                elif isinstance(verdict, int) and on_link is not None:
                    on_link(entry.path, verdict)
        yield current, files


def scan_docs(root: Path, docs_dir: Path, on_folder: Callable[[str], None] | None = None,
              owned: Ownership = EVERYTHING) -> dict[str, FileStat]:
    """Every `*.md` under docs_dir that `owned` leaves in (the schema's exclude list), keyed by
    store-relative path, with its stat; `on_folder` is told each folder before it is listed.

    A symlink that stays in the repository is followed and keyed by the path the user sees; one
    that is not followed (it leaves the repository, loops, or points at nothing) is keyed by its
    own path with (LINK_* code, 0) as its stat.
    """
    found: dict[str, FileStat] = {}
    if owned.records:
        _scan_records(root, docs_dir, owned, found, on_folder)
    if not docs_dir.is_dir():
        return found
    # String slicing, not Path objects, and one prefix per folder: this runs for every file on every command.
    base, prefix = str(docs_dir), docs_dir.relative_to(root).as_posix()
    start = len(base) + 1  # a path inside docs/ without the `docs/`, as the exclude globs read it
    excluding = bool(owned.exclude)

    def on_link(path: str, code: int) -> None:
        if not (excluding and owned.excluded(path[start:].replace(os.sep, "/"))):
            found[prefix + path[len(base):].replace(os.sep, "/")] = (code, 0)

    def skip(path: str) -> bool:
        return owned.skips_folder(path[start:].replace(os.sep, "/"))

    for folder, files in walk_folders(docs_dir, on_folder=on_folder, links=Links(root, docs_dir), on_link=on_link,
                                      skip=skip if excluding else None):
        inside = prefix + folder[len(base):].replace(os.sep, "/") + "/"
        for entry in files:
            if entry.name.endswith(".md"):
                if excluding and owned.excluded(inside[len(prefix) + 1:] + entry.name):
                    continue
                if owned.records and owned.in_records(inside + entry.name) and not owned.owns(inside + entry.name):
                    continue  # a folder of records' README or template
                try:
                    st = entry.stat()  # the lstat already made for a regular file; the target's for a link
                except OSError:  # a link's target removed since the walk judged it: gone, as the next walk says
                    continue
                found[inside + entry.name] = (st.st_size, st.st_mtime_ns)
    return found


def _scan_records(root: Path, docs_dir: Path, owned: Ownership, found: dict[str, FileStat],
                  on_folder: Callable[[str], None] | None) -> None:
    """The records of each folder of records outside docs/ (those inside are walked with it), into `found`.
    Symlinks there are not followed: a team's tool writes its records as plain files."""
    docs = docs_dir.relative_to(root).as_posix() + "/"
    for folder in owned.records:
        if (folder.path + "/").startswith(docs):
            continue
        base = root / folder.path
        if not base.is_dir():
            continue
        for current, files in walk_folders(base, on_folder=on_folder):
            inside = folder.path + current[len(str(base)):].replace(os.sep, "/") + "/"
            for entry in files:  # walk_folders leaves out dot-files and dot-folders already
                if not is_record_name(entry.name):
                    continue
                relpath = inside + entry.name
                try:
                    st = entry.stat()
                except OSError:
                    continue
                found[relpath] = (st.st_size, st.st_mtime_ns)
