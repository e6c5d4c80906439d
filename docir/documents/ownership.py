"""Which files under docs/ are the store's documents: the one answer the walk, lint, the hooks and init share.

A document is a `*.md` file below docs/, reached through no dot-file or dot-folder, that the
schema's `exclude:` list leaves in; or a record in one of the schema's `records:` folders, inside
docs/ or not, read where it lies in its team's format (adr-0c5e2d8f1a47): any `*.md` there but a
README, an index page or a template (documents/records/names.py). A repository's README, its API
pages or a site generator's pages may sit in docs/ beside the documents; listed there, they are never indexed, linted or
returned (adr-547a50927c6b). The list holds gitignore-style globs relative to docs/, read by
documents/globs.py: a glob without `/` matches a name at any depth, a leading `/` anchors it to
docs/, a folder's glob covers what is inside it, and the last glob that matches a path decides,
so `!GLOB` takes back a path an earlier glob left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from docir.documents import globs
from docir.documents.records.names import RecordFolder, is_record_name
from docir.store import DOCS_DIR


class Owning(Protocol):
    """What a schema says of the files a store owns (docir/schema.py's Schema; named so that this module,
    which the schema's parser uses, need not import it)."""

    @property
    def exclude(self) -> tuple[str, ...]: ...

    @property
    def records(self) -> tuple[RecordFolder, ...]: ...

PREFIX = f"{DOCS_DIR}/"


def problem(glob: str) -> str | None:
    """Why an exclude glob can never name a path under docs/, or None when it is usable."""
    body = glob[1:] if glob.startswith("!") else glob
    if not body.strip().strip("/"):
        return f"'{glob}' is an empty glob"
    if re.match(r"^[A-Za-z]:[\\/]", body) or body.startswith("\\"):
        return f"'{glob}' is absolute; write it relative to docs/"
    if ".." in body.replace("\\", "/").split("/"):
        return f"'{glob}' leaves docs/ ('..')"
    if body.startswith(PREFIX):
        return f"'{glob}' starts with {PREFIX}; the globs are relative to docs/ (write '{body[len(PREFIX):]}')"
    return None


class Ownership:
    """Whether a path under docs/ is one of the store's documents, from the schema's exclude globs.

    A plain class with slots: the walk of every command asks it of every file (adr-d5e80517405b).
    """

    __slots__ = ("exclude", "records", "_rules", "_prunable", "_folders")

    def __init__(self, exclude: Iterable[str] = (), records: Iterable[RecordFolder] = ()) -> None:
        self.exclude = tuple(exclude)
        self.records = tuple(records)
        self._rules = tuple((glob.startswith("!"), globs.compiled(glob.removeprefix("!")))
                            for glob in self.exclude if problem(glob) is None)
        # Without a '!' glob nothing inside an excluded folder comes back, so the walk need not list it:
        # one a glob names, or whose every path `folder/**` names (what `docir init` writes; the folder
        # is anchored to docs/, as the glob's '/' made it).
        self._prunable = bool(self._rules) and not any(negated for negated, _ in self._rules)
        self._folders = tuple(globs.compiled("/" + glob[:-3].lstrip("/")) for glob in self.exclude
                              if glob.endswith("/**") and glob[:-3].strip("/") and problem(glob) is None)

    @classmethod
    def of(cls, schema: Owning) -> Ownership:
        """What a store with this schema owns: its exclude list and its folders of records."""
        return cls(schema.exclude, schema.records)

    @property
    def key(self) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
        """What tells one ownership from another, as plain tuples of text (a forked walk sends it back)."""
        return self.exclude, tuple(tuple(folder) for folder in self.records)

    def record_folder(self, relpath: str) -> RecordFolder | None:
        """The folder of records a store-relative path is a record of, by its name; None for any other path."""
        return record_folder(self.records, relpath)

    def excluded(self, inside: str) -> bool:
        """Whether the list leaves out this path relative to docs/ ('/'-separated): the last glob that
        matches it decides."""
        verdict = False
        for negated, pattern in self._rules:
            if pattern.fullmatch(inside) is not None:
                verdict = not negated
        return verdict

    def skips_folder(self, inside: str) -> bool:
        """Whether a walk may leave out this folder (relative to docs/) and all it holds."""
        return self._prunable and (self.excluded(inside)
                                   or any(folder.fullmatch(inside) is not None for folder in self._folders))

    def owns(self, relpath: str) -> bool:
        """Whether a store-relative path names one of the store's documents, by the name alone."""
        if self.records and self.in_records(relpath):
            if self.record_folder(relpath) is None:
                return False
            if not relpath.startswith(PREFIX):
                return True
        if not (relpath.startswith(PREFIX) and relpath.endswith(".md")):
            return False
        inside = relpath[len(PREFIX):]
        if any(part.startswith(".") for part in inside.split("/")):
            return False
        return not self._rules or not self.excluded(inside)


    def in_records(self, relpath: str) -> bool:
        """Whether a store-relative path lies in one of the folders of records (a record or its furniture)."""
        return any(relpath.startswith(folder.path + "/") for folder in self.records)


def record_folder(records: Iterable[RecordFolder], relpath: str) -> RecordFolder | None:
    """The folder of `records` a store-relative path is a record of, by its name; None for any other path."""
    for folder in records:
        if relpath.startswith(folder.path + "/"):
            inside = relpath[len(folder.path) + 1:]
            hidden = any(part.startswith(".") for part in inside.split("/"))
            return None if hidden or not is_record_name(inside.rsplit("/")[-1]) else folder
    return None


EVERYTHING = Ownership()  # a store with no exclude list owns every Markdown file under docs/
