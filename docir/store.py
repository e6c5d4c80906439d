"""Where a store lives: its root, found like git finds `.git`, and its paths."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from docir.errors import UsageError

SCHEMA_FILE = "docs-schema.yaml"
DOCS_DIR = "docs"
STATE_DIR = ".docir"
ARCHIVE_DIR = "archive"  # under docs/: a document there is archived

# What `.docir/.gitignore` keeps out of git: everything derived or per-machine.
# import/ holds vector files fetched from CI (guide-a464656adb89): big, and published elsewhere.
STATE_GITIGNORE = "# derived from the files; rebuilt when missing\nindex.db*\nrun/\ntmp/\nimport/\nwrite.lock\n"


class Store(NamedTuple):
    """The paths of one store; pure data, nothing is created here."""

    root: Path

    @property
    def docs_dir(self) -> Path:
        return self.root / DOCS_DIR

    @property
    def schema_path(self) -> Path:
        return self.root / SCHEMA_FILE

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def index_path(self) -> Path:
        return self.state_dir / "index.db"

    @property
    def run_dir(self) -> Path:
        return self.state_dir / "run"

    @property
    def schema_cache_path(self) -> Path:
        """The parsed schema kept for the next command (docir/schema.py); derived, never committed."""
        return self.run_dir / "schema.json"

    @property
    def lock_path(self) -> Path:
        return self.state_dir / "write.lock"

    def relpath(self, path: Path) -> str:
        """The path relative to the store root, with forward slashes."""
        return path.resolve().relative_to(self.root).as_posix()


def ensure_state_dir(root: Path) -> Path:
    """`.docir/` with its .gitignore, before anything is written there: derived files are never committed."""
    state = root / STATE_DIR
    state.mkdir(exist_ok=True)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text(STATE_GITIGNORE, encoding="utf-8")
    return state


def find_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` (absolute) that holds docs-schema.yaml."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / SCHEMA_FILE).is_file():
            return folder
    return None


def open_store(root: Path | None, cwd: str) -> Store:
    """The store at `root` (from --root, relative to `cwd`) or found upward from the caller's folder `cwd`.

    Raises UsageError when there is none, saying how to make one.
    """
    if root is not None:
        path = Path(cwd, root).resolve()
        if not path.is_dir():
            raise UsageError(f"--root {root}: no such folder")
        if not (path / SCHEMA_FILE).is_file():
            raise UsageError(
                f"{path} is not a docir store (no {SCHEMA_FILE}); run 'docir init' there first"
            )
        return Store(path)
    found = find_root(Path(cwd))
    if found is None:
        raise UsageError(
            f"no docir store here or in any parent folder (no {SCHEMA_FILE}); "
            "run 'docir init' or pass --root PATH"
        )
    return Store(found)


def sources_stamp(files: Iterable[Path]) -> list[list[int]]:
    """(size, mtime_ns) of each of `files` that exists: what a derived file kept for the next command
    (the parsed schema, the rendered --help) is checked against, so that an edit or an upgrade of the
    code that made it (even one that keeps docir's version, as an editable checkout does) drops it."""
    stamp = []
    for file in files:
        try:
            st = os.stat(file)
        except OSError:
            continue
        stamp.append([st.st_size, st.st_mtime_ns])
    return stamp


def keep_quietly(path: Path, text: str, *, parents: bool) -> None:
    """Write a derived file for the next command: aside, then renamed, so a reader never sees half of
    it; and not at all where the machine refuses, which only means the next command derives it again.
    Its folder is made (with `parents`, its parents too); a store's `.docir/` never is, by callers that
    pass parents=False: whoever makes it writes its .gitignore first."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=parents, exist_ok=True)
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        try:
            temp.unlink(missing_ok=True)
        except OSError:  # no folder to hold it: nothing was written
            pass
