"""Records written the way their team's tool writes them: a new record, and a status where the record states it.

Each format (adr-tools, MADR, log4brains) names its files and lays out a new record its own way; docir
writes what that tool would (adr-0c5e2d8f1a47), so `adr list`, `adr generate toc` and log4brains keep
reading the folder: the title line first (never a `---` above an adr-tools title), the next number, the
status in the words the tool uses ("Superseded by [10. Implement in Python](0010-implement-in-python.md)").
A status is rewritten where the record states it (its frontmatter, a `Status:` line under the title, or
its Status section), as reading.py finds it, and nowhere else: the body, the frontmatter and the index
never disagree. Nothing here touches the disk: callers write what it returns, atomically.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from docir.documents import frontmatter
from docir.documents.records import reading, statuses
from docir.documents.records.names import is_record_name
from docir.errors import UsageError

_DIGITS_RE = re.compile(r"^\d+")
_STATUS_HEADING_RE = re.compile(r"^#{1,6}\s*Status\s*:?\s*$", re.I)
_HEADING_RE = re.compile(r"^#{1,6}\s")
_PREAMBLE_STATUS_RE = re.compile(
    r"^(\s{0,3}(?:[-*+]\s+)?(?:\*\*|__)?Status(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*)(.*?)\s*$", re.I)


class Link(NamedTuple):
    """A link line a record holds: its verb as the format writes it, and the record it names."""

    verb: str  # "Supersedes", "Superseded by", "Amends", ...
    title: str  # the linked record's title as its tool shows it: "2. Implement as shell scripts"
    target: str  # the linked file, relative to the record's folder


def verb(direction: str) -> str:
    """How a link line says a direction ("supersedes" -> "Supersedes", "superseded-by" -> "Superseded by"):
    the first of the words statuses.py reads back as it, so what docir writes, docir and the tool read."""
    said = next((words for words, named in statuses.LINK_VERBS if named == direction), direction.replace("-", " "))
    return said[:1].upper() + said[1:]


def slug(title: str) -> str:
    """adr-tools' slug: runs of anything but letters and digits become one '-', lower case, no '-' at the ends."""
    return re.sub(r"[^0-9A-Za-z]+", "-", title).strip("-").lower()


def new_name(folder: Path, form: str, title: str, today: dt.date) -> tuple[str, int | None]:
    """The file name of a new record in `folder` and its number: the next number after the folder's highest,
    as wide as its names write it (`0010-title.md`), or log4brains' date (`20261207-title.md`, no number)."""
    if form == "log4brains":
        stem = f"{today:%Y%m%d}-{slug(title) or 'decision'}"
        name, counter = f"{stem}.md", 2
        while (folder / name).exists():
            name, counter = f"{stem}-{counter}.md", counter + 1
        return name, None
    numbers, width = [], 4
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for name in names:
        number = reading.file_number(Path(name)) if is_record_name(name) else None
        if number is not None:
            numbers.append(number)
            digits = _DIGITS_RE.match(name)
            width = len(digits.group(0)) if digits else width  # "001-x.md": the folder writes three
    number = max(numbers, default=0) + 1
    return f"{number:0{width}d}-{slug(title) or 'decision'}.md", number


def shown_title(number: int | None, title: str, form: str) -> str:
    """A record's title as its tool shows it in a link: adr-tools puts the number in front."""
    return f"{number}. {title}" if number is not None and form == "adr-tools" else title


def status_words(form: str, status: str, successor: Link | None = None) -> str:
    """A status in the words the format writes it: adr-tools capitalises it; a superseded record names its
    successor in the status itself, except in adr-tools, whose link line says it."""
    if successor is not None and form != "adr-tools":
        return f"superseded by [{successor.title}]({successor.target})"
    return status.capitalize() if form == "adr-tools" else status


# The formats whose records keep a frontmatter block their tools read past: docir's own fields (owner, tags,
# applies_to, ...) can live there. adr-tools takes a record's first line for its title, and log4brains' records
# state their facts in bullets, so neither is given one.
TAKES_FIELDS = frozenset({"madr"})


def new_record(form: str, *, number: int | None, title: str, date: dt.date, status: str, description: str,
               body: str, links: list[Link], fields: dict[str, Any] | None = None) -> str:
    """The text of a new record in the format: adr-tools' `# N. Title`, `Date:` and `## Status` with its link
    lines; MADR's frontmatter status and date over its title, with docir's `fields` (or, given no fields,
    MADR 2's `* Status:` bullets); log4brains' `- Status:` bullets. The body follows as given, else a Context
    section saying the description."""
    said = body.strip("\n") if body.strip() else f"## Context\n\n{description}"
    if form == "adr-tools":
        lines = [f"# {shown_title(number, title, form)}", "", f"Date: {date.isoformat()}", "", "## Status", "",
                 status_words(form, status)]
        for link in links:
            lines += ["", f"{link.verb} [{link.title}]({link.target})"]
        return "\n".join(lines) + f"\n\n{said}\n"
    # MADR 2 and log4brains close with a Links list; MADR 3/4 keep one where their template has it.
    related = "".join(f"- {link.verb} [{link.title}]({link.target})\n" for link in links)
    tail = f"\n\n## Links\n\n{related}" if related else "\n"
    if form == "madr" and fields is not None:
        extra = "".join(f"{frontmatter.render_field(key, value)}\n" for key, value in fields.items())
        return f"---\nstatus: {status}\ndate: {date.isoformat()}\n{extra}---\n\n# {title}\n\n" + said + tail
    bullet = "*" if form == "madr" else "-"  # MADR 2's bullets; log4brains' dashes
    return f"# {title}\n\n{bullet} Status: {status}\n{bullet} Date: {date.isoformat()}\n\n" + said + tail


def with_frontmatter(folder: Path) -> bool:
    """Whether a MADR folder's records state their facts in frontmatter (MADR 3/4), as its newest record does,
    rather than in bullets under the title (MADR 2)."""
    try:
        names = sorted((name for name in os.listdir(folder) if is_record_name(name)), reverse=True)
    except OSError:
        return True
    for name in names:
        try:
            head = (folder / name).read_text(encoding="utf-8")[:4096]
        except (OSError, UnicodeDecodeError):
            continue
        src = reading.parse(Path(name), head if head.startswith("---") else head.split("\n## ", 1)[0])
        if src.status is not None:
            return src.format == "frontmatter"
    return True


def set_status(form: str, text: str, status: str, successor: Link | None = None) -> str:
    """`text` with its status rewritten where it states it: its frontmatter `status`, a `Status:` line
    under its title, or the first paragraph of its Status section, in the format's words; a successor is
    named there too (adr-tools: a "Superseded by" line in the Status section, as `adr new -s` writes it).
    UsageError for a record that states its status nowhere docir can rewrite (a status table, say)."""
    src = reading.parse(Path("record.md"), text)
    words = status_words(form, status, successor)
    lf = text.replace("\r\n", "\n")
    if src.format == "frontmatter":
        return frontmatter.set_field(lf, "status", words)
    if src.format == "status-section" or (src.format == "plain" and _status_section(lf) is not None):
        return _in_status_section(lf, words, successor if form == "adr-tools" else None)
    if src.format == "preamble":
        lines = lf.split("\n")
        for index, line in enumerate(lines):
            match = _PREAMBLE_STATUS_RE.match(line)
            if match:
                lines[index] = match.group(1) + words
                return "\n".join(lines)
    raise UsageError(f"cannot rewrite the status of a record that states it as a {src.format}; "
                     "change it by hand, with the team's own tool")


def _status_section(lines_text: str) -> tuple[int, int] | None:
    """The line numbers of a Status section's heading and of the line after its last, or None."""
    lines = lines_text.split("\n")
    for index, line in enumerate(lines):
        if _STATUS_HEADING_RE.match(line):
            end = next((i for i in range(index + 1, len(lines)) if _HEADING_RE.match(lines[i])), len(lines))
            return index, end
    return None


def _in_status_section(text: str, words: str, successor: Link | None) -> str:
    """The Status section with its status paragraph (the first, unless that is a link line) replaced by
    `words`, its link lines and notes kept; with `successor` (adr-tools), the status paragraph goes and a
    "Superseded by" line is added after the others, as `adr new -s` does."""
    found = _status_section(text)
    if found is None:
        raise UsageError("the record has no Status section to write its status in")
    start, end = found
    lines = text.split("\n")
    paragraphs: list[list[str]] = []
    for line in lines[start + 1 : end]:
        if not line.strip():
            if paragraphs and paragraphs[-1]:
                paragraphs.append([])
        elif paragraphs and paragraphs[-1]:
            paragraphs[-1].append(line)
        else:
            paragraphs.append([line])
    paragraphs = [p for p in paragraphs if p]
    first_is_status = bool(paragraphs) and _link(paragraphs[0]) is None
    rest = paragraphs[1:] if first_is_status else paragraphs
    if successor is not None:
        kept = [*rest, [f"{successor.verb} [{successor.title}]({successor.target})"]]
    else:
        kept = [[words], *rest]
    section = [""]
    for paragraph in kept:
        section += [*paragraph, ""]
    return "\n".join([*lines[: start + 1], *section, *lines[end:]])


def _link(paragraph: list[str]) -> statuses.StatusLink | None:
    return statuses.link_of(statuses.clean(" ".join(paragraph)))
