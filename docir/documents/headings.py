"""Find Markdown headings, ATX and setext, never inside fenced code blocks or HTML comments."""

from __future__ import annotations

import re
from typing import NamedTuple

from docir.documents.fences import FENCE_RE, closes
from docir.documents.reader_view import Visible

ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


class Heading(NamedTuple):
    level: int
    text: str
    line: int  # 0-based index of the first line of the heading
    start: int  # character offset where the heading's first line starts
    end: int  # character offset just past the heading's last line


def split_lines(text: str) -> list[str]:
    """Lines with their endings kept, so offsets add up to the original text."""
    return text.splitlines(keepends=True)


def find_headings(text: str, seen: Visible | None = None) -> list[Heading]:
    """Every heading in document order, with character offsets into `text`.

    A `#` line inside a ``` or ~~~ fence (of any length) is code, not a heading;
    a fence closes only with the same character at least as long. A line inside an
    HTML comment is not shown, so it is neither (a template's commented-out section).
    `seen` is `Visible.of(text)`, passed by a caller that already holds it: the scan is not repeated.
    """
    seen = seen if seen is not None else Visible.of(text)
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    headings: list[Heading] = []
    fence: str | None = None
    prev_is_paragraph = False
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        if fence is not None:
            if closes(fence, line):
                fence = None
            prev_is_paragraph = False
            continue
        if seen.cuts and seen.is_hidden(offsets[i]):
            prev_is_paragraph = False
            continue
        fence_match = FENCE_RE.match(line)
        if fence_match:
            fence = fence_match.group(1)
            prev_is_paragraph = False
            continue
        atx = ATX_RE.match(line)
        if atx:
            headings.append(Heading(len(atx.group(1)), (atx.group(2) or "").strip(), i, offsets[i], offsets[i + 1]))
            prev_is_paragraph = False
            continue
        setext = SETEXT_RE.match(line)
        if setext and prev_is_paragraph and i > 0:
            # Only a single paragraph line directly above becomes the heading text.
            above = lines[i - 1].strip()
            if headings and headings[-1].line == i - 1:
                prev_is_paragraph = False
                continue
            level = 1 if setext.group(1)[0] == "=" else 2
            headings.append(Heading(level, above, i - 1, offsets[i - 1], offsets[i + 1]))
            prev_is_paragraph = False
            continue
        prev_is_paragraph = bool(line.strip()) and not line.startswith(("    ", "\t"))
    return headings


def section_span(text: str, heading_text: str, *, level: int | None = None) -> tuple[int, int, Heading] | None:
    """The (start, end) offsets of the first section titled `heading_text`.

    The section runs from its heading to the next heading of the same or a
    higher level. Titles match case-insensitively, ignoring outer whitespace
    and leading '#' marks. With `level`, only headings of that level count.
    """
    wanted = normalise_heading(heading_text)
    headings = find_headings(text)
    for index, heading in enumerate(headings):
        if normalise_heading(heading.text) != wanted or (level is not None and heading.level != level):
            continue
        end = len(text)
        for later in headings[index + 1 :]:
            if later.level <= heading.level:
                end = later.start
                break
        return heading.start, end, heading
    return None


def normalise_heading(text: str) -> str:
    return " ".join(text.strip().lstrip("#").split()).casefold()
