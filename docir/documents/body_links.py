"""The relative links a Markdown body makes, and the anchors its headings give, as a reader's renderer sees them.

What lint checks a link against (DOC026): a link to a file of the repository (`[ADR 7](0007-x.md)`,
`../guides/setup.md#install`, an image) names a file relative to the document's folder, and its `#anchor`
a heading of that file by the slug a git host gives it (lower case, punctuation dropped, spaces as '-',
a repeated heading numbered `-1`, `-2`). Links in code (fenced or inline) and in HTML comments are no
links; a link with a scheme (`https:`, `mailto:`) or a site-rooted path (`/docs/x`) is not a file's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple
from urllib.parse import unquote

from docir.documents.fences import FENCE_RE, closes
from docir.documents.headings import find_headings
from docir.documents.reader_view import Visible

_INLINE_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_DEFINITION_RE = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")  # not a footnote: [^1]: ...
_CODE_SPAN_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_SCHEME_RE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


class BodyLink(NamedTuple):
    line: int  # 1-based, within the body
    target: str  # the file part, URL-decoded; "" for a link to an anchor of the document itself
    anchor: str | None  # the part after '#', if any


def links(body: str) -> Iterator[BodyLink]:
    """Every relative link of `body` outside code and comments, in order."""
    text = Visible.of(body).masked()  # comments blanked, every line where it was
    fence: str | None = None
    for number, line in enumerate(text.split("\n"), 1):
        if fence is not None:
            if closes(fence, line):
                fence = None
            continue
        opened = FENCE_RE.match(line)
        if opened:
            fence = opened.group(1)
            continue
        if line.startswith(("    ", "\t")) and not line.strip().startswith(("-", "*", "+")):
            continue  # an indented code block, or a list's wrapped line that holds no link of interest
        plain = _CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
        found = [m.group(1) for m in _INLINE_RE.finditer(plain)]
        definition = _DEFINITION_RE.match(plain)
        if definition:
            found.append(definition.group(1))
        for raw in found:
            link = _relative(raw)
            if link is not None:
                yield BodyLink(number, *link)


def anchors(body: str) -> set[str]:
    """The anchors a git host gives the headings of `body`."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in find_headings(body):
        slug = slug_of(heading.text)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def slug_of(heading: str) -> str:
    """A heading's anchor: lower case, Markdown marks and punctuation dropped, each space a '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _relative(raw: str) -> tuple[str, str | None] | None:
    if not raw or _SCHEME_RE.match(raw) or raw.startswith(("/", "//", "{", "<")):
        return None
    path, _, anchor = raw.partition("#")
    path = unquote(path.split("?", 1)[0])
    return path, (anchor or None) if "#" in raw else None
