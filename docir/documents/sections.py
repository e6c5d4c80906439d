"""Edits to a body's `##` sections; pure string functions."""

from __future__ import annotations

from docir.documents.headings import find_headings, normalise_heading, section_span


class SectionExists(ValueError):
    pass


class SectionMissing(LookupError):
    pass


def has_section(body: str, heading: str) -> bool:
    wanted = normalise_heading(heading)
    return any(h.level == 2 and normalise_heading(h.text) == wanted for h in find_headings(body))


def append_section(body: str, heading: str, text: str) -> str:
    """The body with `## heading` and `text` added at the end; the rest unchanged."""
    heading = clean_heading(heading)
    if has_section(body, heading):
        raise SectionExists(heading)
    base = body.rstrip("\n")
    separator = "\n\n" if base.strip() else "\n"
    return f"{base}{separator}## {heading}\n\n{_block(text)}"


def replace_section(body: str, heading: str, text: str) -> str:
    """The body with the `## heading` section's content replaced; other sections byte-identical."""
    span = section_span(body, clean_heading(heading), level=2)
    if span is None:
        raise SectionMissing(heading)
    start, end, found = span
    tail = "\n" if end < len(body) else ""
    return body[:start] + f"## {found.text}\n\n{_block(text)}{tail}" + body[end:]


def replace_body(text: str) -> str:
    return "\n" + _block(text)


def clean_heading(heading: str) -> str:
    cleaned = " ".join(heading.strip().lstrip("#").split())
    if not cleaned:
        raise ValueError("a section heading cannot be empty")
    return cleaned


def _block(text: str) -> str:
    stripped = text.strip("\n")
    return f"{stripped}\n" if stripped else ""
