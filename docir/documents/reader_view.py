"""What a reader of the rendered document sees: its text without HTML comments.

Templates carry their instructions to authors in HTML comments, repeated in every
document written from them and invisible once rendered; indexing, searching,
embedding and chunking them finds the template instead of the document
(adr-b3bfbc7a2dfb). The file keeps every byte: only the derived views read
through this module. A comment inside a fenced or indented code block or an
inline code span is code, shown as written, so it stays. An unclosed `<!--` hides nothing:
leaving text in is the safe side of doubt.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from docir.documents.fences import FENCE_RE, closes

Span = tuple[int, int]

_OPENERS = re.compile(r"`+|<!--")
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")
_NOT_NEWLINE = re.compile(r"[^\r\n]")
# Four spaces or a tab after a blank line open an indented code block (a list item's indented paragraph
# reads the same here, and keeps its comments: in doubt, text stays searchable).
_INDENTED_CODE = re.compile(r"(?: {4}|\t)")


def hidden_spans(text: str) -> tuple[Span, ...]:
    """The HTML comments outside code, as (start, end) offsets in document order."""
    if "<!--" not in text:  # most documents: no scan at all
        return ()
    spans: list[Span] = []
    pos, size = 0, len(text)
    code_may_start = True  # after a blank line (or none at all), or inside an indented code block
    while pos < size:
        eol = _line_end(text, pos)
        line = text[pos:eol]
        if not line.strip():
            code_may_start, pos = True, eol
            continue
        if code_may_start and _INDENTED_CODE.match(line):
            pos = eol  # an indented code block: shown as written, its comments too
            continue
        code_may_start = False
        opening = FENCE_RE.match(line)
        if opening is not None:
            pos = _past_fence(text, eol, opening.group(1))
            continue
        pos = _scan_inline(text, pos, eol, spans)
    return tuple(spans)


def _scan_inline(text: str, pos: int, eol: int, spans: list[Span]) -> int:
    """Scan one line from `pos` for code spans and comments; return where the next line starts.

    Both may run past the line: a comment to its `-->`, a code span to its closing
    backticks within the paragraph. Whichever opens first wins, as CommonMark reads them.
    """
    while True:
        found = _OPENERS.search(text, pos, eol)
        if found is None:
            return eol
        if found.group() == "<!--":
            # From the third character on, so `<!-->` and `<!--->` close themselves as CommonMark says.
            close = text.find("-->", found.start() + 2)
            if close < 0:
                return eol
            spans.append((found.start(), close + 3))
            pos = close + 3
        else:
            pos = _past_code_span(text, found.end(), len(found.group()))
        if pos >= eol:
            # Whatever ran past this line ends mid-line: the rest of that line is scanned, never as a fence.
            eol = _line_end(text, pos)
            if pos >= eol:
                return pos


def _past_code_span(text: str, start: int, ticks: int) -> int:
    """Past the closing run of exactly `ticks` backticks in the same paragraph, else just past the opener."""
    blank = _BLANK_LINE.search(text, start)
    limit = blank.start() if blank is not None else len(text)
    closing = re.compile(r"(?<!`)`{%d}(?!`)" % ticks)
    found = closing.search(text, start, limit)
    return start if found is None else found.end()


def _past_fence(text: str, pos: int, fence: str) -> int:
    """Where the line after the fence's closing line starts (the end of the text for an unclosed fence)."""
    size = len(text)
    while pos < size:
        eol = _line_end(text, pos)
        if closes(fence, text[pos:eol]):
            return eol
        pos = eol
    return size


def _line_end(text: str, pos: int) -> int:
    newline = text.find("\n", pos)
    return len(text) if newline < 0 else newline + 1


class Visible(NamedTuple):
    """A text and what of it a reader does not see; slices of it read as the reader sees them."""

    text: str
    cuts: tuple[Span, ...] = ()  # what a reader does not see, in order, never overlapping

    @classmethod
    def of(cls, text: str) -> Visible:
        return cls(text, _removals(text, hidden_spans(text)))

    def slice(self, start: int = 0, end: int | None = None) -> str:
        """text[start:end] without its comments; a line that held only comments goes whole."""
        end = len(self.text) if end is None else end
        if not self.cuts:
            return self.text[start:end]
        pieces: list[str] = []
        pos = start
        first = bisect.bisect_right(self.cuts, (start, len(self.text) + 1)) - 1
        for s, e in self.cuts[max(first, 0):]:
            if s >= end:
                break
            if e <= pos:
                continue
            pieces.append(self.text[pos:max(s, pos)])
            pos = max(pos, min(e, end))
        pieces.append(self.text[pos:end])
        return "".join(pieces)

    def masked(self) -> str:
        """The text with what a reader does not see blanked to spaces, line breaks kept: every offset
        into the text still points at the same place, so spans found in the one serve the other."""
        if not self.cuts:
            return self.text
        pieces: list[str] = []
        pos = 0
        for s, e in self.cuts:
            pieces.append(self.text[pos:s])
            pieces.append(_NOT_NEWLINE.sub(" ", self.text[s:e]))
            pos = e
        pieces.append(self.text[pos:])
        return "".join(pieces)

    def hidden_bytes(self, start: int = 0, end: int | None = None) -> int:
        """How many bytes (UTF-8) of text[start:end] a reader does not see."""
        end = len(self.text) if end is None else end
        return sum(len(self.text[max(s, start):min(e, end)].encode("utf-8")) for s, e in self.cuts
                   if s < end and e > start)

    def is_hidden(self, pos: int) -> bool:
        """Whether the character at `pos` is part of what a reader does not see."""
        index = bisect.bisect_right(self.cuts, (pos, len(self.text) + 1)) - 1
        return index >= 0 and self.cuts[index][0] <= pos < self.cuts[index][1]


def visible_text(text: str) -> str:
    """The whole text as a reader sees it."""
    return Visible.of(text).slice()


def _removals(text: str, comments: tuple[Span, ...]) -> tuple[Span, ...]:
    """What to cut for each comment: a comment alone on its line(s) takes the line with it, one that
    ends a line takes the blanks before it, so no empty line or trailing space is left where it stood."""
    cuts: list[Span] = []
    for s, e in comments:
        left, right = s, e
        while left > 0 and text[left - 1] in " \t":
            left -= 1
        while right < len(text) and text[right] in " \t":
            right += 1
        starts_line = left == 0 or text[left - 1] == "\n"
        ends_line = right == len(text) or text[right] in "\r\n"
        if starts_line and ends_line:
            right = _line_end(text, right)
        elif not ends_line:
            left, right = (left, right) if starts_line else (s, e)
        if cuts and left <= cuts[-1][1]:
            before = cuts.pop()
            left, right = before[0], max(before[1], right)
            # Two comments that fill a line between them take the line too.
            if (left == 0 or text[left - 1] == "\n") and (right == len(text) or text[right] in "\r\n"):
                right = _line_end(text, right)
        cuts.append((left, right))
    return tuple(cuts)
