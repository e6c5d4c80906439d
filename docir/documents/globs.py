"""`applies_to` globs: which files of the repository a document governs.

Globs are relative to the repository root and read the way .gitignore reads them,
because that is the syntax people who write them already know:

- `*` and `?` stay inside one path segment; `[abc]` is a character class;
- `**` spans any number of segments (`src/**/test_*.py`, `src/auth/**`);
- a glob without a `/` matches a file name at any depth (`*.proto`);
- a glob that names a folder matches everything under it (`src/auth`, `src/auth/`).

The `exclude:` list of docs-schema.yaml reads the same globs relative to docs/
(documents/ownership.py), where, as in .gitignore, a leading `/` anchors a name to docs/.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

FIELD = "applies_to"


def problem(glob: str) -> str | None:
    """Why a glob can never match a path of this repository, or None when it is usable."""
    if not glob.strip():
        return "an empty glob"
    if glob.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", glob):
        return f"'{glob}' is absolute; write it relative to the repository root"
    if ".." in glob.replace("\\", "/").split("/"):
        return f"'{glob}' leaves the repository ('..')"
    return None


def as_globs(value: object) -> list[str] | None:
    """The globs of an applies_to value (one string or a list of strings); None if it is neither."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


@lru_cache(maxsize=4096)
def compiled(glob: str) -> re.Pattern[str]:
    """The pattern a path (relative to where the glob is read from, '/'-separated) must fullmatch."""
    text = glob.strip().replace("\\", "/").removeprefix("./")
    anchored = "/" in text.rstrip("/")
    text = text.strip("/")
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if text.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = text.find("]", i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                inner = text[i + 1 : end]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append(f"[{inner}]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    body = "".join(out)
    prefix = "" if anchored else "(?:.*/)?"
    # Matching a folder matches what is inside it.
    return re.compile(f"{prefix}{body}(?:/.*)?")


def matches(glob: str, path: str) -> bool:
    if problem(glob) is not None:
        return False
    return compiled(glob).fullmatch(path.replace("\\", "/").removeprefix("./")) is not None


def first_match(globs: Iterable[str], paths: Iterable[str]) -> tuple[str, str] | None:
    """The first (glob, path) pair that matches, globs in their written order."""
    listed = list(paths)
    for glob in globs:
        for path in listed:
            if matches(glob, path):
                return glob, path
    return None
