"""Plain prose as the readers that quote a document cut it: into sentences, and to a length.

One rule for each, so a description adopt writes, the passage `context` quotes and the line an
agent reads end a sentence and clip a long one the same way (adr-aa663d326ae5).
"""

from __future__ import annotations

import re

# After a stop (and any closing quote or bracket), before a space and a sentence's first character.
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]*(?=\s+[\"'(\[`*_]?[A-Z0-9])")


def sentences(text: str) -> list[str]:
    """`text` cut into sentences, each stripped; a closing quote or bracket stays with its sentence."""
    return [part.strip() for part in _SENTENCE_END_RE.split(text) if part.strip()]


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut at a word before `limit` characters (with "…") when longer."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
