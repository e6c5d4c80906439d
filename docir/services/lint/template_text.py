"""DOC022: a section that holds only template text, so the author sees the empty section before committing.

A section a reader sees nothing in (only its heading, or only an HTML comment) is no section to
the index (adr-b3bfbc7a2dfb); one whose lines are all a template's `{placeholder}` prompts says
nothing either. Either way the author most likely meant to write it, or to delete it.
"""

from __future__ import annotations

import re

from docir.documents.chunk import heading_sections, written_sections
from docir.documents.reader_view import Visible

_PLACEHOLDER = re.compile(r"\{[^{}\n]*\}")
_WORD = re.compile(r"\w+")
# What may stand beside placeholders on a template's line ("* Good, because {argument a}",
# 'Chosen option: "{title of option 1}", because {justification}') and still leave it a prompt.
CONNECTOR_WORDS = 4


def template_only_sections(body: str) -> list[tuple[int, str]]:
    """(offset of its heading in `body`, heading) of each headed section holding only template text."""
    seen = Visible.of(body)
    every = heading_sections(body, seen)
    written = set(written_sections(body, seen, every))
    found: list[tuple[int, str]] = []
    for section in every:
        if not section.path:
            continue
        text = seen.slice(section.content, section.end)
        # A heading over written subsections is written; its own text may still be only prompts.
        if section not in written or (text.strip() and all(_is_prompt(line) for line in text.splitlines())):
            found.append((section.start, section.path[-1]))
    return found


def _is_prompt(line: str) -> bool:
    """A blank line, or a template's prompt: placeholders with a few connecting words at most."""
    if not line.strip():
        return True
    if "`" in line or not _PLACEHOLDER.search(line):
        return False
    return len(_WORD.findall(_PLACEHOLDER.sub(" ", line))) <= CONNECTOR_WORDS
