"""Split Markdown into heading sections that each fit an embedding model's window.

The model reads a bounded window and silently ignores the rest, so a chunk
that overflows would vanish from the semantic index one level down
(arch-e57e49b10a90). Every chunk is therefore measured whole, breadcrumb
included, with the caller's `count_tokens` (the model's own tokenizer in
production).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from docir.documents.fences import FENCE_RE, closes
from docir.documents.headings import find_headings, split_lines
from docir.documents.model import text_sha
from docir.documents.reader_view import Visible

# What a document's vectors are made of: this chunker and embedded_text (docir/documents/model.py).
# Bump it whenever either changes what they produce from the same document: chunk plans kept in the
# vector vault and in exported vector files are keyed by it, and are never mixed across versions.
# 2: HTML comments and empty sections make no chunk (adr-b3bfbc7a2dfb); 3: nor a text-less heading under
# another heading (adr-5d1c0a7e94b2).
CHUNKING_VERSION = 3

Span = tuple[int, int]
Fits = Callable[[int, int], bool]

_WORD = re.compile(r"\S+")
# Coarsest first: a section splits between paragraphs if it can, and only a
# unit that alone overflows is cut at the next, finer boundary.
_PARAGRAPHS, _LINES, _WORDS, _CHARS = range(4)


class Chunk(NamedTuple):
    ordinal: int  # 0.. in document order
    heading_path: tuple[str, ...]  # () for text before the first heading
    text: str  # what is embedded: breadcrumb line, blank line, then the section (piece) text
    continuation: bool  # True on pieces 2..n of a section split for size
    start: int  # this chunk's span in the input; a split section's pieces tile its span
    end: int


def window_budget(max_tokens: int, reserve: int = 8) -> int:
    """The chunk budget for a model that reads `max_tokens` tokens.

    The tokenizer wraps every input in special tokens ([CLS] ... [SEP]) that
    take window positions but are not part of the chunk text we count; the
    rest of the reserve is slack so a chunk at the budget is never truncated.
    """
    if max_tokens <= reserve:
        raise ValueError(f"a window of {max_tokens} tokens leaves nothing after a reserve of {reserve}")
    return max_tokens - reserve


class Section(NamedTuple):
    """One heading section of a body: its heading path and where it and the text under its heading are."""

    path: tuple[str, ...]  # the headings above it and its own, outermost first; () before the first
    start: int  # where its heading begins (0 for the text before the first heading)
    end: int  # where the next heading of any level begins
    content: int  # just past its heading: where what the author wrote under it begins


def chunk_markdown(body: str, *, title: str, count_tokens: Callable[[str], int], budget: int) -> list[Chunk]:
    """One chunk per written section (more if a section overflows `budget`), in document order.

    A chunk's text is what a reader sees (no HTML comments, documents/reader_view.py), and a
    section with nothing under its heading but comments makes no chunk: its vector would be
    its heading's or its template's, alike in every document that left it empty. Nor does a
    heading with no text of its own under another heading (`## Pros and Cons of the Options`
    over its options): its chunk would be the breadcrumb that each of its subsections' chunks
    begins with. A top heading keeps its chunk, the document's title and one of its main
    parts, a short sharp vector that measured worth its text (adr-5d1c0a7e94b2).
    """
    if budget < 1:
        raise ValueError("the chunk budget must be at least one token")
    seen = Visible.of(body)
    chunks: list[Chunk] = []
    for path, start, end, content in written_sections(body, seen):
        if len(path) > 1 and not said(seen, Section(path, start, end, content)):
            continue
        prefix = _prefix(title, path, count_tokens, budget)

        def fits(s: int, e: int, prefix: str = prefix) -> bool:
            return count_tokens(prefix + seen.slice(s, e).strip()) <= budget

        spans = [(start, end)] if fits(start, end) else _merge_blank(seen, _pack(body, start, end, _PARAGRAPHS, fits))
        for piece, (s, e) in enumerate(spans):
            chunks.append(Chunk(len(chunks), path, prefix + seen.slice(s, e).strip(), piece > 0, s, e))
    return chunks


def heading_sections(body: str, seen: Visible | None = None) -> list[Section]:
    """Every section; a section ends at the next heading of any level (`seen`: see find_headings)."""
    headings = find_headings(body, seen)
    bounds = [h.start for h in headings] + [len(body)]
    sections: list[Section] = []
    if body[: bounds[0]].strip():
        sections.append(Section((), 0, bounds[0], 0))
    stack: list[tuple[int, str]] = []
    for heading, end in zip(headings, bounds[1:], strict=True):
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.text))
        sections.append(Section(tuple(text for _, text in stack), heading.start, end, min(heading.end, end)))
    return sections


def written_sections(body: str, seen: Visible | None = None, sections: list[Section] | None = None) -> list[Section]:
    """The sections with something a reader sees under their heading: not only a heading, not only comments.

    What a heading heads is what `get --section` returns, its subsections included, so a heading
    whose text is all in written subsections is written too: its chunk is what the document's
    headings say, and measured, leaving those out cost ranking quality (adr-b3bfbc7a2dfb). One
    whose subsections are empty as well is not.
    """
    seen = seen if seen is not None else Visible.of(body)
    sections = sections if sections is not None else heading_sections(body, seen)
    own = [bool(said(seen, s)) for s in sections]
    written = list(own)
    for i in range(len(sections) - 1, -1, -1):
        if not written[i] and sections[i].path:
            depth, j = len(sections[i].path), i + 1
            while j < len(sections) and len(sections[j].path) > depth and not written[i]:
                written[i] = written[j]
                j += 1
    return [s for s, keep in zip(sections, written, strict=True) if keep]


def said(seen: Visible, section: Section) -> str:
    """What a section says under its heading, as a reader sees it, whitespace folded; "" for nothing
    (only a heading, only comments, or a heading over subsections only)."""
    return " ".join(seen.slice(section.content, section.end).split())


def body_key(seen: Visible, section: Section) -> str | None:
    """The hash of what a section says (`said`): two sections with the same key say the same thing
    ("TBD", a licence line, a template's prompt). None when it says nothing. Sections of several
    documents sharing one key make no vector (adr-5d1c0a7e94b2)."""
    text = said(seen, section)
    return text_sha(text) if text else None


def _prefix(title: str, path: tuple[str, ...], count_tokens: Callable[[str], int], budget: int) -> str:
    parts = (" ".join(part.split()) for part in (title, *path))
    crumb = " > ".join(part for part in parts if part)
    # A breadcrumb that filled the window would leave no room for the section
    # it names, so an absurdly long one is cut to half the budget.
    limit = budget // 2
    if count_tokens(crumb) > limit:
        crumb = crumb[: _longest(len(crumb), lambda n: count_tokens(crumb[:n]) <= limit)].rstrip()
    return f"{crumb}\n\n" if crumb else ""


def _pack(body: str, start: int, end: int, level: int, fits: Fits) -> list[Span]:
    """Greedily pack the units of `level` into spans that fit, cutting finer only where one unit overflows."""
    bounds = _cuts(body, start, end, level) + [end]
    units = len(bounds) - 1
    spans: list[Span] = []
    i = 0
    while i < units:
        take = _fitting_units(bounds, i, fits)
        if take:
            spans.append((bounds[i], bounds[i + take]))
            i += take
        elif level < _CHARS:
            spans.extend(_pack(body, bounds[i], bounds[i + 1], level + 1, fits))
            i += 1
        else:
            raise ValueError("the chunk budget cannot hold a single character after the breadcrumb")
    return spans


def _fitting_units(bounds: list[int], i: int, fits: Fits) -> int:
    """How many units from the i-th fit together in one chunk (0 if not even one)."""
    return _longest(len(bounds) - 1 - i, lambda k: fits(bounds[i], bounds[i + k]))


def _cuts(body: str, start: int, end: int, level: int) -> list[int]:
    """Offsets where the units of `level` begin; the first is always `start`, so units tile the span."""
    if level == _PARAGRAPHS:
        return _paragraph_cuts(body, start, end)
    if level == _LINES:
        cuts = [start]
        for line in split_lines(body[start:end])[:-1]:
            cuts.append(cuts[-1] + len(line))
        return cuts
    if level == _WORDS:
        return [start] + [start + m.start() for m in _WORD.finditer(body[start:end]) if m.start() > 0]
    return list(range(start, end))


def _paragraph_cuts(body: str, start: int, end: int) -> list[int]:
    """Paragraphs start after blank lines; a fenced block is one unit, so a split never lands inside it."""
    cuts = [start]
    pos = start
    fence: str | None = None
    broken = False  # a blank line or a closing fence ended the previous unit
    for line in split_lines(body[start:end]):
        bare = line.rstrip("\r\n")
        if fence is not None:
            if closes(fence, bare):
                fence, broken = None, True
        elif not bare.strip():
            broken = True
        else:
            opening = FENCE_RE.match(bare)
            if (broken or opening) and pos > cuts[-1]:
                cuts.append(pos)
            broken = False
            if opening:
                fence = opening.group(1)
        pos += len(line)
    return cuts


def _merge_blank(seen: Visible, spans: list[Span]) -> list[Span]:
    """Fold spans a reader sees nothing in into a neighbour: they add nothing, and an empty chunk is useless."""
    merged: list[Span] = []
    for s, e in spans:
        if merged and (not seen.slice(s, e).strip() or not seen.slice(*merged[-1]).strip()):
            merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged


def _longest(n: int, ok: Callable[[int], bool]) -> int:
    """The largest k in 0..n with ok(k), assuming ok is monotone; galloping keeps each probe near the budget."""
    good, bad = 0, 1
    while bad <= n and ok(bad):
        good, bad = bad, bad * 2
    bad = min(bad, n + 1)
    while bad - good > 1:
        mid = (good + bad) // 2
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good
