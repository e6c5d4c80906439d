"""The passage that matched: the sentence of a result's matched section that says most of what was asked.

A section's heading often says nothing a judge can use ("Alpha -> Beta Graduation"); the sentence
holding the most of the need's words does (adr-aa663d326ae5). Words only, no model: a section found
by meaning alone, whose sentences hold none of those words, has no passage (its first sentence would
say nothing about why it matched).
"""

from __future__ import annotations

import re

from docir.documents import prose
from docir.documents.fences import FENCE_RE, closes
from docir.index.fts import query_terms

PASSAGE_MAX = 240  # characters: about one sentence of a design document
_WORD_RE = re.compile(r"[^\W_][\w-]*", re.UNICODE)
_MARKUP_RE = re.compile(r"^\s{0,3}(?:#{1,6}\s.*|[-*+]\s+|\d+[.)]\s+|>\s?|\|.*\|)$")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def best_sentence(section_text: str, needs: list[str]) -> str | None:
    """The sentence of `section_text` (a section as a reader sees it, its heading line included) with the most
    distinct words of `needs`; None when no sentence holds any of them."""
    return quote(section_text, words_of(needs))


def words_of(needs: list[str]) -> frozenset[str]:
    """The words a passage is chosen by: the needs' query terms, found once for every result of a read."""
    return frozenset(term for need in needs for term in query_terms(need))


def quote(section_text: str, wanted: frozenset[str]) -> str | None:
    """best_sentence, by words already found."""
    found = _sentences(section_text)
    if not found:
        return None
    scored = [(len(wanted & {w.lower() for w in _WORD_RE.findall(s)}), -n, s) for n, s in enumerate(found)]
    hits, _, best = max(scored)
    return prose.clip(best, PASSAGE_MAX) if hits else None


def _sentences(text: str) -> list[str]:
    """The section's prose in sentences: no fenced or indented code, heading, table or quote marks."""
    lines: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        if fence is not None:
            fence = None if closes(fence, line) else fence
            continue
        opened = FENCE_RE.match(line)
        if opened:  # a fenced block is code, not a sentence
            fence = opened.group(1)
        elif line.strip() and not re.match(r"^\s{0,3}#{1,6}\s", line) and not line.startswith("    "):
            lines.append(line)
    said = " ".join(_LINK_RE.sub(r"\1", line.strip().lstrip("-*+> ").strip()) for line in lines
                    if not _MARKUP_RE.match(line) or re.match(r"^\s{0,3}[-*+]\s+\S", line))
    said = re.sub(r"(\*\*|__)", "", " ".join(said.split()))
    return [s for s in prose.sentences(said) if len(s) > 20]
