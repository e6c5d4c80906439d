"""The passage that matched: the sentence of a result's matched section that says most of what was asked.

A section's heading often says nothing a judge can use ("Alpha -> Beta Graduation"); the sentence
holding the most of the need's words does (adr-aa663d326ae5). Words only, no model: a section found
by meaning alone, whose sentences hold none of those words, has no passage (its first sentence would
say nothing about why it matched).
"""

from __future__ import annotations

import re

from docir.index.fts import query_terms

PASSAGE_MAX = 240  # characters: about one sentence of a design document
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[`*_]?[A-Z0-9])")
_WORD_RE = re.compile(r"[^\W_][\w-]*", re.UNICODE)
_MARKUP_RE = re.compile(r"^\s{0,3}(?:#{1,6}\s.*|[-*+]\s+|\d+[.)]\s+|>\s?|\|.*\||```.*|~~~.*)$")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def best_sentence(section_text: str, needs: list[str]) -> str | None:
    """The sentence of `section_text` (a section as a reader sees it, its heading line included) with the most
    distinct words of `needs`; None when no sentence holds any of them."""
    wanted = {term for need in needs for term in query_terms(need)}
    sentences = _sentences(section_text)
    if not sentences:
        return None
    scored = [(len(wanted & {w.lower() for w in _WORD_RE.findall(s)}), -n, s) for n, s in enumerate(sentences)]
    hits, _, best = max(scored)
    if not hits:
        return None
    return best if len(best) <= PASSAGE_MAX else best[: PASSAGE_MAX - 1].rsplit(" ", 1)[0] + "…"


def _sentences(text: str) -> list[str]:
    lines, fence = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):  # a fenced block is code, not a sentence
            fence = "" if fence and stripped.startswith(fence) else (fence or stripped[:3])
        elif not fence and stripped and not re.match(r"^\s{0,3}#{1,6}\s", line) and not line.startswith("    "):
            lines.append(line)
    prose = " ".join(_LINK_RE.sub(r"\1", line.strip().lstrip("-*+> ").strip()) for line in lines
                     if not _MARKUP_RE.match(line) or re.match(r"^\s{0,3}[-*+]\s+\S", line))
    prose = re.sub(r"(\*\*|__)", "", " ".join(prose.split()))
    return [s.strip() for s in _SENTENCE_END_RE.split(prose) if len(s.strip()) > 20]
