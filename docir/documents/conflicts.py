"""Unresolved merge conflicts: the marker lines git writes into a file it could not merge.

A file with them is neither side of the merge, so lint names the markers (DOC023) and the
index skips the file with a warning saying it is in conflict, instead of a YAML error that
points at a missing ':' or a document silently holding both sides.
"""

from __future__ import annotations

import re

# git writes seven characters, then a space and a label for the outer markers; `|||||||` opens
# the base section of a diff3 conflict.
# What the index remembers as the reason a file is skipped; reads find conflicted files by it.
IN_CONFLICT = "it is in conflict (unresolved merge markers); resolve the conflict and 'git add' it"
_MARKER_RE = re.compile(r"^(<{7}|\|{7}|={7}|>{7})(?:[ \t].*)?\r?$")


def conflict_markers(text: str) -> list[tuple[int, str]]:
    """(1-based line, marker) of each conflict marker line in `text`. A `=======` or `|||||||` line
    counts only between a `<<<<<<<` and its `>>>>>>>`, since `=======` alone underlines a heading."""
    if "<<<<<<<" not in text and ">>>>>>>" not in text:
        return []
    found: list[tuple[int, str]] = []
    inside = False
    for number, line in enumerate(text.split("\n"), start=1):
        match = _MARKER_RE.match(line)
        if match is None:
            continue
        marker = match.group(1)
        if marker.startswith("<"):
            inside = True
        elif marker.startswith(">"):
            inside = False
        elif not inside:
            continue
        found.append((number, marker))
    return found


def ours(text: str) -> str:
    """`text` with each conflict resolved to its first side (the branch merged into): what the
    document is likely to say once resolved, so that the links to it are not reported as broken."""
    kept: list[str] = []
    side = "outside"
    for line in text.split("\n"):
        match = _MARKER_RE.match(line)
        marker = match.group(1) if match else ""
        if marker.startswith("<"):
            side = "ours"
        elif marker.startswith(">") and side != "outside":
            side = "outside"
        elif marker and marker[0] in "|=" and side != "outside":
            side = "theirs"
        elif side != "theirs":
            kept.append(line)
    return "\n".join(kept)
