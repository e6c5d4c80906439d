"""What a commit would hold: a store's documents and schema as git's index has them.

The pre-commit hook and `docir lint --staged` check these staged blobs, never the files on
disk, so an unstaged edit neither blocks nor excuses a commit (adr-b6dd1c2330ab). git is
run as the `git` command (adr-37de4436d256): one `git diff --cached` names the changes, one
`git cat-file --batch` reads every blob the lint needs, however many files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from docir import gitio
from docir.documents.ownership import Ownership
from docir.gitio import BlobReader
from docir.store import DOCS_DIR, SCHEMA_FILE, Store

ABSENT = "0" * 40
# Modes git stores for a regular file; a symlink (120000) or a submodule (160000) is no document.
FILE_MODES = ("100644", "100755")


class Change(NamedTuple):
    """One path of `git diff --cached --raw`: relative to the repository's top level."""

    path: str
    status: str  # git's letter: A added, M modified, D deleted, T type changed
    old_blob: str  # in HEAD (ABSENT for an added path)
    new_blob: str  # staged (ABSENT for a deleted path)
    new_mode: str


def staged_changes(repo: Path, env: Mapping[str, str]) -> list[Change]:
    """The paths this commit changes. Renames come as a deletion and an addition, so the old path
    of a moved document counts as gone and the new one is checked. Works before the first commit."""
    out = gitio.run(["diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff",
                     "--ignore-submodules"], repo, env) or b""
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[Change] = []
    for header, path in zip(fields[0::2], fields[1::2], strict=False):  # the trailing empty field has no pair
        parts = header.lstrip(":").split()
        if len(parts) == 5:
            _old_mode, new_mode, old_blob, new_blob, status = parts
            changes.append(Change(path, status[:1], old_blob, new_blob, new_mode))
    return changes


class Staged(NamedTuple):
    """One store as the commit would hold it; every path store-relative."""

    texts: dict[str, bytes]  # documents added or changed in git's index -> their staged bytes
    schema: bytes | None  # docs-schema.yaml as staged; None when git does not track it
    deleted: dict[str, bytes]  # documents the commit deletes -> their bytes in HEAD
    read: Callable[[str], bytes | None]  # any other staged file of the store
    tracked: Callable[[list[str]], set[str]]  # which of these paths git's index holds


def top_level_prefix(repo: Path, root: Path) -> str | None:
    """The store's folder relative to the repository's top level ('' at the top, None outside it)."""
    relative = os.path.relpath(root.resolve(), repo.resolve())
    if relative == ".":
        return ""
    return None if relative.startswith("..") else Path(relative).as_posix() + "/"


def staged_store(store: Store, repo: Path, changes: list[Change], reader: BlobReader,
                 named: list[str] | None = None) -> Staged | None:
    """The store's part of the commit, or None when the commit touches none of its files. `named`
    (top-level paths, as the pre-commit framework passes them, `--all-files` too): check the staged
    text of these documents rather than of the ones the commit changes; deletions still count.

    A file the staged schema's exclude list names is not the store's: it neither counts as touched
    nor is read (adr-547a50927c6b)."""
    prefix = top_level_prefix(repo, store.root)
    if prefix is None:
        return None
    docs = f"{prefix}{DOCS_DIR}/"
    schema_path = f"{prefix}{SCHEMA_FILE}"
    owned: list[Ownership] = []  # read from the staged schema at the first Markdown path under docs/

    def document(path: str) -> bool:  # by name: checks decides which of them the walk would take
        if not (path.startswith(prefix) and path.endswith(".md")):
            return False
        if not owned:  # a Markdown file outside docs/ may be a record in a folder of records (adr-0c5e2d8f1a47)
            if not path.startswith(docs) and not store.schema_path.is_file():
                return False
            owned.append(staged_ownership(store, reader.read(f":{schema_path}")))
        return owned[0].owns(path[len(prefix):])

    texts: dict[str, bytes] = {}
    deleted: dict[str, bytes] = {}
    touched = False
    for path in named or ():
        if path == schema_path or document(path):
            touched = True
            data = reader.read(f":{path}") if path != schema_path else None
            if data is not None:
                texts[path[len(prefix):]] = data
    for change in changes:
        if change.path == schema_path:
            touched = True
            continue
        if not document(change.path):
            continue
        relative = change.path[len(prefix):]
        if change.new_blob != ABSENT and change.new_mode in FILE_MODES:
            if named is None:
                texts[relative] = reader.read(change.new_blob) or b""
                touched = True
        elif change.old_blob != ABSENT:
            touched = True
            old = reader.read(change.old_blob)
            if old is not None:
                deleted[relative] = old
    if not touched:
        return None

    def read(path: str) -> bytes | None:
        return reader.read(f":{prefix}{path}")

    def tracked(paths: list[str]) -> set[str]:
        if not paths:
            return set()
        out = gitio.run(["--literal-pathspecs", "ls-files", "--cached", "-z", "--", *(prefix + p for p in paths)],
                        repo, reader.env) or b""
        listed = out.decode("utf-8", "surrogateescape").split("\0")
        return {p[len(prefix):] for p in listed if p.startswith(prefix) and p}

    return Staged(texts, read(SCHEMA_FILE), deleted, read, tracked)


def staged_ownership(store: Store, schema: bytes | None) -> Ownership:
    """What the store owns by the staged schema's exclude list (the file on disk when git does not track it)."""
    from docir.schema import parsed_schema, readable_exclude

    try:
        text = schema.decode("utf-8") if schema is not None else store.schema_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Ownership()
    parsed, _problems = parsed_schema(text, store.schema_cache_path)
    return Ownership.of(parsed) if parsed is not None else Ownership(readable_exclude(text))
