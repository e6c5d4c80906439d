"""One foreign file, read by the conventions of the format it is written in.

A decision record states its facts in one of a few places, by format:
- frontmatter (MADR 3/4, Docusaurus, log4brains' YAML variant): `status`, `date`, `title`, `description`;
- a preamble between the title and the first section (MADR 2 `* Status:` bullets, log4brains `- Status:`,
  adr-tools' `Date:` line, a bold `**Status**: ...` line, a `| Status | Date | Author(s) |` table, RFC
  headers `- Start Date:`);
- a `Status` section whose first words give the status (adr-tools/Nygard), with its link lines
  ("Superseded by [..](..)", "Amends [..](..)");
- a closing `Links` list (log4brains: "- Superseded by [..](..)").
Only those places are read: a `Status: accepted` inside a fenced example or deep in the body is not the
document's status. What the file is not (a template, a README, an index page) is told here too.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from docir.documents import frontmatter
from docir.documents.fences import FENCE_RE, closes
from docir.documents.files import decode
from docir.documents.headings import Heading, find_headings
from docir.documents.reader_view import hidden_spans
from docir.documents.records import dates, statuses
from docir.documents.records.names import FURNITURE_RE, TEMPLATE_NAME_RE
from docir.errors import InputError

Kind = Literal["adr", "other", "unreadable"]

# Headings that open a section of a record, never its title.
SECTION_NAMES = frozenset((
    "status", "state", "context", "decision", "decisions", "consequences", "summary", "abstract", "motivation",
    "background", "problem", "problem statement", "overview", "links", "references", "introduction", "rationale",
    "options", "proposal", "drawbacks", "alternatives", "notes", "date", "authors", "deciders", "related",
    "prior art", "unresolved questions", "future possibilities", "detailed design", "guide-level explanation",
    "reference-level explanation", "considered options", "decision drivers", "decision outcome",
    "context and problem statement", "pros and cons of the options", "more information", "confirmation",
    "table of contents", "contents", "changelog", "change log", "history", "discussion", "assumptions",
    "constraints", "implications", "positive consequences", "negative consequences", "goals", "non-goals",
    "scope", "description", "solution", "technical story", "validation", "compliance"))
_SECTION_WORDS = frozenset(" ".join(SECTION_NAMES).split())

# A template's title: "{short title ...}", "[short title ...]", "<title>", adr-tools' "NUMBER. TITLE" (in capitals:
# "# Show the title in the header" is a title), "...".
_PLACEHOLDER_RE = re.compile(r"\{\{[^}]*\}\}|\{[a-z][^}]*\}|\[short title|<title>|(?-i:\bTITLE\b)|^[.…]+$", re.I)

# "**Status:** Accepted", "* Status: accepted", "- Start Date: 2018-01-02", "Date: 2021-05-11".
_META_LINE_RE = re.compile(
    r"^\s{0,3}(?:[-*+]\s+)?(?:\*\*|__)?([A-Za-z][A-Za-z ()/'-]{0,30}?)\s*(?::\s*(?:\*\*|__)|(?:\*\*|__)\s*:|:)"
    r"(?!//)\s*(.*?)\s*$")
_BARE_DATE_RE = re.compile(r"^\s{0,3}(?:[-*+]\s+)?(?:\*\*|__)?Date(?:\*\*|__)?\s+(\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4})\s*$",
                           re.I)
_TABLE_ROW_RE = re.compile(r"^\s*\|(.*)\|\s*$")
_TABLE_RULE_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINK_RE = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_LIST_ITEM_RE = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$")

# Metadata keys -> what they state.
STATUS_KEYS = frozenset({"status", "state", "decision status", "adr status"})
DATE_KEYS = frozenset({"date", "start date", "decision date", "date created", "created", "accepted on",
                       "last updated", "updated"})
DECIDER_KEYS = frozenset({"deciders", "decision makers", "decision-makers", "decided by", "author", "authors",
                          "author(s)", "owner", "owners", "participants"})
# Frontmatter keys that name a link, and the direction they name from this document's side.
LINK_KEYS = {"supersedes": "supersedes", "superseded_by": "superseded-by", "superseded-by": "superseded-by",
             "supersededby": "superseded-by", "replaces": "supersedes", "replaced_by": "superseded-by",
             "replaced-by": "superseded-by", "amends": "amends", "amended_by": "amended-by",
             "amended-by": "amended-by"}
SUMMARY_KEYS = ("description", "summary", "abstract", "excerpt")
LINKS_SECTIONS = frozenset({"links", "related", "related decisions", "related adrs", "related records",
                            "see also", "supersedes", "superseded by"})


@dataclass
class Reference:
    """A link another document is named by: its sibling file, else its number or title in the text."""

    direction: str  # statuses.LINK_VERBS' directions
    text: str  # as written: "[20. User models](./0020-user-models.md)", "ADR-0057"
    file: str | None  # the linked file's name, when the link gives a Markdown file


@dataclass
class Foreign:
    """What one file states, read by its format's conventions; nothing here is a guess."""

    path: Path
    text: str  # the file as it is
    kind: Kind = "adr"
    repaired: str = ""  # what adopt mends before it can write (a value quoted so its YAML parses), if anything
    fixed: str = ""  # the mended text, where `repaired` says what changed
    reason: str = ""  # why it is not adopted (kind other or unreadable)
    meta: dict[str, Any] = field(default_factory=dict)
    has_frontmatter: bool = False
    body: str = ""
    format: str = "plain"  # where its status was read: frontmatter, status-section, preamble, table, links
    title: str | None = None  # clean: no number, no markers
    title_written: str | None = None  # as written, where cleaning changed it
    template_title: str | None = None  # the title heading, still the template's placeholder over a written body
    number: int | None = None
    status: statuses.ReadStatus | None = None
    superseded_in_links: bool = False  # a closing Links list says what replaced it, whatever its status says
    title_status: str | None = None  # a status its title carries ("[superseded] Title")
    date: dt.date | None = None
    date_written: str | None = None  # as written, where it is not a plain YYYY-MM-DD
    deciders: str | None = None  # from a preamble line; frontmatter keeps its own
    summary: str | None = None  # a description the source already has
    references: list[Reference] = field(default_factory=list)
    sibling_links: list[str] = field(default_factory=list)  # every Markdown file the body links to
    analysis: str = ""  # the body as a reader sees it: comments blanked, offsets kept
    headings: list[Heading] = field(default_factory=list)
    title_heading: Heading | None = None

    @property
    def edit_text(self) -> str:
        """The text adopt writes its fields into: the file's, or the mended one."""
        return self.fixed or self.text

    def has_date_in_meta(self) -> bool:
        return "date" in self.meta and self.meta["date"] is not None


def read(path: Path) -> Foreign:
    """The file at `path`, read; a file that cannot be read is a Foreign of kind unreadable."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Foreign(path, "", "unreadable", f"cannot be read ({exc.strerror or exc})")
    if b"\x00" in data[:8192]:
        return Foreign(path, "", "unreadable", "binary, not Markdown")
    try:
        text = decode(data, path.name)
    except InputError:
        return Foreign(path, "", "unreadable", "not UTF-8 text; re-save it as UTF-8")
    return parse(path, text)


def parse(path: Path, text: str) -> Foreign:
    src = Foreign(path, text)
    if not text.strip("\ufeff \t\r\n"):
        return _other(src, "an empty file")
    _mend(src)
    lf = src.edit_text.replace("\r\n", "\n")
    try:
        meta, parts = frontmatter.parse(lf)
        src.meta, src.has_frontmatter, src.body = meta, True, parts.body
    except frontmatter.FrontmatterError as exc:
        if not exc.message.startswith("no frontmatter"):
            src.kind, src.reason = "unreadable", f"frontmatter: {exc.message} (line {exc.line}); fix it, then adopt it"
            return src
        src.body = lf.lstrip("\ufeff")
    src.analysis = _blank_comments(src.body)
    src.headings = find_headings(src.analysis)
    _read_title(src)
    _read_number(src)
    _read_frontmatter(src)
    preamble = _preamble(src)
    _read_preamble(src, preamble)
    _read_status_section(src)
    _read_links_section(src)
    _read_summary_links(src)
    _read_notice(src)
    src.sibling_links = [target for _, target in _links(_without_fences(src.analysis))
                         if _is_markdown_file(target)]
    _judge_kind(src)
    return src


_LEADING_BLANKS_RE = re.compile(r"\A(\ufeff?)(?:[ \t]*\r?\n)+(?=---[ \t]*\r?\n)")
_PLAIN_VALUE_RE = re.compile(r"^([A-Za-z_][\w.-]*):[ \t]+(?![\"'\[{|>&*!%@`#])(.*?:[ \t].*?)[ \t]*$")


def _mend(src: Foreign) -> None:
    """Two slips real folders make, mended so the record can be adopted: blank lines above the frontmatter
    (it is then no frontmatter at all), and a plain value holding ": " (`title: ADR002: Format`), which
    YAML refuses; the value is quoted as written. Anything else wrong is left for the person to fix."""
    text = src.text
    blanks = _LEADING_BLANKS_RE.match(text)
    if blanks:
        text = blanks.group(1) + text[blanks.end():]
        src.repaired = "removed the blank lines above the frontmatter"
    try:
        frontmatter.parse(text.replace("\r\n", "\n"))
    except frontmatter.FrontmatterError as exc:
        if not exc.message.startswith(("no frontmatter", "frontmatter is not closed")):
            quoted = _quote_plain_values(text)
            if quoted != text:
                try:
                    frontmatter.parse(quoted.replace("\r\n", "\n"))
                    text = quoted
                    src.repaired = "quoted a frontmatter value holding ': ' so that its YAML parses"
                except frontmatter.FrontmatterError:
                    pass
    if text != src.text:
        src.fixed = text


def _quote_plain_values(text: str) -> str:
    try:
        parts = frontmatter.split(text)
    except frontmatter.FrontmatterError:
        return text
    lines = parts.yaml_text.split("\n")
    for index, line in enumerate(lines):
        ending = "\r" if line.endswith("\r") else ""
        match = _PLAIN_VALUE_RE.match(line.rstrip("\r"))
        if match:
            value = match.group(2).replace("'", "''")
            lines[index] = f"{match.group(1)}: '{value}'{ending}"
    return text[: parts.yaml_start] + "\n".join(lines) + text[parts.yaml_end :]


def _other(src: Foreign, reason: str) -> Foreign:
    src.kind, src.reason = "other", reason
    return src


def _blank_comments(body: str) -> str:
    """`body` with its HTML comments blanked out (newlines kept): what a reader sees, at the same offsets."""
    spans = hidden_spans(body)
    if not spans:
        return body
    out, pos = [], 0
    for start, end in spans:
        out.append(body[pos:start])
        out.append(re.sub(r"[^\n]", " ", body[start:end]))
        pos = end
    out.append(body[pos:])
    return "".join(out)


def _without_fences(text: str) -> str:
    """`text` with fenced code blocks blanked: an example in a fence states nothing about the document."""
    lines = text.split("\n")
    fence: str | None = None
    for index, line in enumerate(lines):
        if fence is not None:
            if closes(fence, line):
                fence = None
            lines[index] = ""
            continue
        match = FENCE_RE.match(line)
        if match:
            fence = match.group(1)
            lines[index] = ""
    return "\n".join(lines)


# --- title and number ---------------------------------------------------------------------------------------

_MARKER_RE = re.compile(r"^\s*\[(?:superseded|superceded|deprecated|rejected|obsolete|draft|proposed|accepted)"
                        r"[^\]]*\]\s*[:\-–—]?\s*", re.I)
_SUFFIX_RE = re.compile(r"\s*(?:[-–—:|]\s*|\(\s*|\[\s*)(?:ADR|RFC)[\s#_-]*\d+\s*[)\]]?\s*$", re.I)
_NUMBERED_RE = re.compile(r"^(?:(?:ADR|RFC|DR|Decision)[\s#_-]*)?#?(\d{1,6})\s*[:.)\-–—]\s*(\S.*)$", re.I)
# A prefix that names the kind of record, not its subject: "Architecture Decision Record: Use ADRs".
_KIND_PREFIX_RE = re.compile(r"^(?:Architectur(?:e|al) Decision(?: Record)?|Decision Record|ADR|RFC|Decision)"
                             r"\s*[:\-–—]\s+(?=\S)", re.I)
_STATUS_MARKER_RE = re.compile(r"\[(superseded|superceded|deprecated|rejected|obsolete)\b[^\]]*\]", re.I)
_PREFIXED_RE = re.compile(r"^(?:ADR|RFC)[\s#_-]*(\d{1,6})\s+(\S.*)$", re.I)
_PLACEHOLDER_NUMBER_RE = re.compile(r"^[nNx#]\.\s+(\S.*)$")
_FILE_NUMBER_RE = re.compile(r"^(?:adr|rfc|dr|decision)?[-_ ]?(\d{1,6})(?=[-_. ]|$)", re.I)
_DATED_NAME_RE = re.compile(r"^(?:19|20)\d{6}(?:[-_]|$)")


def split_title(written: str) -> tuple[int | None, str]:
    """The number a title carries and the title without it, markers and suffixes:
    "21. Multi-cluster" -> (21, "Multi-cluster"); "ADR001: ADR log" -> (1, "ADR log");
    "[Superseded by ADR-7] Use X - ADR 008" -> (8, "Use X")."""
    title = " ".join(written.split())
    title = _MARKER_RE.sub("", title)
    number = None
    suffix = _SUFFIX_RE.search(title)
    if suffix and suffix.start() > 0:
        number = int(re.findall(r"\d+", suffix.group(0))[-1])
        title = title[: suffix.start()].rstrip()
    for pattern in (_NUMBERED_RE, _PREFIXED_RE):
        match = pattern.match(title)
        if match:
            return int(match.group(1)), _MARKER_RE.sub("", match.group(2)).strip()
    placeholder = _PLACEHOLDER_NUMBER_RE.match(title)
    if placeholder:
        return number, placeholder.group(1).strip()
    return number, _KIND_PREFIX_RE.sub("", title)


def _read_title(src: Foreign) -> None:
    """The first heading, where it is a title and not a section; else a frontmatter title; else the file name."""
    heading = _title_heading(src)
    written: str | None = None
    if heading is not None:
        src.title_heading, written = heading, heading.text
        if _PLACEHOLDER_RE.search(heading.text):  # "# {short title ...}": the title is to be found elsewhere
            src.template_title, written = heading.text, None
    own = str(src.meta["title"]).strip() if isinstance(src.meta.get("title"), (str, int, float)) else ""
    if written is None and own and not _PLACEHOLDER_RE.search(own):
        written = own
    if written is None:
        src.title = _title_from_name(src.path)
        return
    _, clean = split_title(_plain_heading(written))
    bare = re.match(r"^0*(\d{1,6})\s+(\S.*)$", clean)
    if bare and int(bare.group(1)) == file_number(src.path):
        clean = bare.group(2)  # "# 34 EKS Fargate" in 034-EKS-Fargate.md: the number, without its stop
    if len(clean) > 2 and clean[0] == clean[-1] and clean[0] in "\"'“”":
        clean = clean[1:-1].strip()  # '# "Use Log4brains to manage the ADRs"', as log4brains' first record has it
    src.title = clean or _title_from_name(src.path)
    marker = _STATUS_MARKER_RE.search(written)
    if marker:  # "ADR013: [superseded] Title": the title says what became of it
        src.title_status = marker.group(1).lower()
    if src.title != written:
        src.title_written = written


def _plain_heading(text: str) -> str:
    """A heading's text without a trailing anchor ({#id}) or emphasis around the whole of it."""
    text = re.sub(r"\s*\{#[^}]*\}\s*$", "", text).strip()
    if len(text) > 4 and text[:2] in ("**", "__") and text.endswith(text[:2]):
        text = text[2:-2]
    return text


def _title_heading(src: Foreign) -> Heading | None:
    if not src.headings:
        return None
    first = src.headings[0]
    name = heading_name(first.text)
    if name in SECTION_NAMES or (len(name.split()) <= 3 and set(name.split()) <= _SECTION_WORDS):
        return None
    if first.level == 1:
        return first
    before = src.analysis[: first.start]
    text_before = [line for line in before.split("\n") if line.strip() and not _META_LINE_RE.match(line)
                   and not _TABLE_ROW_RE.match(line) and not line.lstrip().startswith(">")]
    return first if first.level == 2 and not text_before else None


def _title_from_name(path: Path) -> str:
    stem = path.stem
    stem = re.sub(r"^(?:(?:19|20)\d{6}|(?:adr|rfc|dr)?[-_ ]?\d{1,6})[-_ ]+", "", stem, flags=re.I)
    words = re.sub(r"[-_]+", " ", stem).strip()
    return (words[:1].upper() + words[1:]) if words else path.stem


def _read_number(src: Foreign) -> None:
    for written in (src.title_written, src.meta.get("title") if isinstance(src.meta.get("title"), str) else None):
        if written:
            number, _ = split_title(_plain_heading(written))
            if number is not None:
                src.number = number
                return
    src.number = file_number(src.path)


def file_number(path: Path) -> int | None:
    """The sequence number a file name starts with (0021-x.md, adr-021-x.md, 036-x.md); None for a name that
    starts with a date, as log4brains names files (YYYYMMDD is no sequence number)."""
    if _DATED_NAME_RE.match(path.stem):
        return None
    match = _FILE_NUMBER_RE.match(path.stem)
    return int(match.group(1)) if match else None


@functools.lru_cache(maxsize=4096)  # asked of each heading for every section looked for; folders repeat them
def heading_name(text: str) -> str:
    """A heading as a section name: no decoration, no trailing colon, lower case ("**Status:**" -> status)."""
    text = statuses.clean(text)
    return " ".join(re.sub(r"[:.]+$", "", text).lower().split())


# --- frontmatter --------------------------------------------------------------------------------------------

def _read_frontmatter(src: Foreign) -> None:
    meta = src.meta
    if "status" in meta and meta["status"] is not None:
        raw = meta["status"]
        if isinstance(raw, list) and len(raw) == 1:
            raw = raw[0]
        raw = _braced(raw)
        if isinstance(raw, (str, int, float, bool)):
            src.status, src.format = statuses.read(str(raw)), "frontmatter"
        else:
            src.status = statuses.ReadStatus(None, str(raw), (), True, False)
            src.format = "frontmatter"
        src.references.extend(_status_references(src.status))
    for key, direction in LINK_KEYS.items():
        for value in _listed(_field(meta, key)):
            src.references.append(_reference(direction, value))
    if "date" in meta and meta["date"] is not None:
        read = dates.read(meta["date"])
        src.date = read.date
        if read.date is None:  # `date: 2024-023-2706`: kept as written, for a person to mend
            src.date_written = frontmatter.raw_value(src.edit_text.replace("\r\n", "\n"), "date") or str(meta["date"])
    for key in SUMMARY_KEYS:
        summary = meta.get(key)
        if isinstance(summary, str) and summary.strip():
            src.summary = summary.strip()
            break


def _braced(raw: Any) -> Any:
    """`status: { accepted }`, MADR's template braces left around the value, is to YAML a mapping of one key
    with no value: that key is the status when it reads as one; anything else stays as YAML read it."""
    if isinstance(raw, dict) and len(raw) == 1:
        key, value = next(iter(raw.items()))
        said = statuses.read(key) if value is None else None
        if said is not None and said.word is not None and not said.template:
            return key
    return raw


def _field(meta: dict[str, Any], key: str) -> Any:
    for name, value in meta.items():
        if name.lower() == key:
            return value
    return None


def _listed(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value if v is not None and str(v).strip()]
    if isinstance(value, (str, int, float)):
        return [v.strip() for v in re.split(r"[,;]", str(value)) if v.strip()]
    return []


# --- preamble: the lines between the title and the first section --------------------------------------------

def _preamble(src: Foreign) -> list[str]:
    """The lines before the first section heading: before and after the title, outside fences. A heading
    that is itself a field ("## Status: Accepted", "## Date: 2024-06-03") is one of those lines."""
    fields = [h for h in src.headings if h is not src.title_heading and _is_field(h.text)]
    sections = [h for h in src.headings if h is not src.title_heading and h not in fields]
    end = sections[0].start if sections else len(src.analysis)
    text = _without_fences(src.analysis[:end])
    replaced = [h for h in (src.title_heading, *fields) if h is not None and h.start < end]
    for heading in sorted(replaced, key=lambda h: h.start, reverse=True):  # from the end: offsets hold
        kept = heading.text if heading in fields else ""
        text = (text[: heading.start] + kept + "\n" * text.count("\n", heading.start, heading.end)
                + text[heading.end:])
    lines: list[str] = []
    for line in text.split("\n"):  # "**Status:** Accepted · **Date:** 2024-07-01": two fields on one line
        lines.extend(_FIELD_SEPARATOR_RE.split(line))
    return lines


_FIELD_SEPARATOR_RE = re.compile(r"\s+[·•|]\s+(?=(?:\*\*|__)?[A-Z][\w ()-]{0,30}(?::|\*\*:|__:))")


def _is_field(text: str) -> bool:
    match = _META_LINE_RE.match(text)
    if match is None:
        return False
    key = " ".join(statuses.clean(match.group(1)).lower().split())
    return key in STATUS_KEYS or key in DATE_KEYS or key in DECIDER_KEYS


def _read_preamble(src: Foreign, lines: list[str]) -> None:
    fields = _meta_lines(lines)
    fields.update({k: v for k, v in _table(lines).items() if k not in fields})
    for key, value in fields.items():
        if key in STATUS_KEYS and src.status is None:
            read = statuses.read(value)
            if read.original:
                src.status, src.format = read, "preamble"
                src.references.extend(_status_references(read))
        elif key in DATE_KEYS and src.date is None and not src.has_date_in_meta():
            found = dates.read(value)
            if found.date is not None or value.strip():
                src.date = found.date
                if found.date is None or found.swapped or value.strip() != found.date.isoformat():
                    src.date_written = f"{value.strip()}"
        elif key in DECIDER_KEYS and src.deciders is None and value.strip():
            src.deciders = statuses.clean(value)
        elif key.replace("_", " ") in ("superseded by", "supersedes", "amends", "amended by", "replaced by"):
            link = statuses.link_of(f"{key} {value}")
            if link is not None:
                src.references.append(_reference(link.direction, link.ref))
                if link.direction == statuses.REPLACED and (src.status is None or src.status.word != "superseded"):
                    src.superseded_in_links = True


def _meta_lines(lines: list[str]) -> dict[str, str]:
    """`key: value` lines (bulleted, bold or plain), a value wrapped onto indented lines joined to it."""
    found: dict[str, str] = {}
    last: str | None = None
    for line in lines:
        if not line.strip():
            last = None
            continue
        bare = _BARE_DATE_RE.match(line)
        if bare and "date" not in found:  # "Date 09/04/2018": a date line written without its colon
            found["date"] = bare.group(1)
            continue
        match = _META_LINE_RE.match(line)
        if match and not _TABLE_ROW_RE.match(line):
            key = " ".join(statuses.clean(match.group(1)).lower().split())
            if key not in found:
                found[key] = match.group(2).strip()
                last = key
            else:
                last = None
            continue
        if last is not None and line.startswith((" ", "\t")) and not _LIST_ITEM_RE.match(line):
            found[last] = f"{found[last]} {line.strip()}"
            continue
        last = None
    return found


def _table(lines: list[str]) -> dict[str, str]:
    """The first table's header cells mapped to its first row's: `| Status | Date | Author(s) |`."""
    rows = [line for line in lines if _TABLE_ROW_RE.match(line)]
    if len(rows) < 2:
        return {}
    header = _cells(rows[0])
    body = [row for row in rows[1:] if not _TABLE_RULE_RE.match(row)]
    if not body:
        return {}
    return {" ".join(statuses.clean(h).lower().split()): v for h, v in zip(header, _cells(body[0]), strict=False)}


def _cells(row: str) -> list[str]:
    inner = _TABLE_ROW_RE.match(row)
    assert inner is not None
    cells, depth, current = [], 0, ""
    for char in inner.group(1):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth = max(0, depth - 1)
        if char == "|" and depth == 0:
            cells.append(current.strip())
            current = ""
        else:
            current += char
    cells.append(current.strip())
    return cells


# --- the Status section (adr-tools) and a closing Links list (log4brains) -------------------------------------

def _section(src: Foreign, names: frozenset[str]) -> str | None:
    """The text of the first section whose heading is one of `names`, up to the next heading of any level."""
    for index, heading in enumerate(src.headings):
        if heading is src.title_heading or heading_name(heading.text) not in names:
            continue
        end = src.headings[index + 1].start if index + 1 < len(src.headings) else len(src.analysis)
        return _without_fences(src.analysis[heading.end : end])
    return None


def _paragraphs(text: str) -> list[str]:
    """Blocks of text, a list item each on its own, lines of one paragraph joined by spaces."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        item = _LIST_ITEM_RE.match(line)
        if not line.strip() or item:
            if current:
                blocks.append(" ".join(current))
                current = []
            if item:
                current = [item.group(1).strip()]
            continue
        current.append(line.strip())
    if current:
        blocks.append(" ".join(current))
    return [block for block in blocks if block]


def _read_status_section(src: Foreign) -> None:
    section = _section(src, frozenset({"status", "state", "decision status"}))
    if section is None:
        return
    paragraphs = [p.lstrip("> ").strip() for p in _paragraphs(section)]
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        return
    # The first paragraph is the status; a later one counts only as a link line ("Superseded by [..](..)"),
    # not the notes a team appends there ("**June 2020 Update** ...").
    said = [paragraphs[0]] + [p for p in paragraphs[1:] if statuses.link_of(statuses.clean(p)) is not None]
    read = statuses.read("\n".join(said))
    if src.status is None or src.status.word is None:
        src.status, src.format = read, "status-section"
        src.references.extend(_status_references(read))
    else:  # a frontmatter or preamble status came first; the section may still link
        src.references.extend(_status_references(statuses.ReadStatus(None, "", read.links, False, False)))
        if any(link.direction == statuses.REPLACED for link in read.links):
            src.superseded_in_links = True


def _read_links_section(src: Foreign) -> None:
    section = _section(src, LINKS_SECTIONS)
    if section is None:
        return
    for paragraph in _paragraphs(section):
        link = statuses.link_of(statuses.clean(paragraph))
        if link is None:
            continue
        src.references.append(_reference(link.direction, link.ref))
        if link.direction == statuses.REPLACED and (src.status is None or src.status.word != "superseded"):
            src.superseded_in_links = True


_PROSE_LINK_RE = re.compile(r"\b(supersedes|supercedes|replaces|obsoletes|amends)\s+(?:the\s+)?"
                            r"((?:RFC|ADR)[\s#-]*\d+|\[[^\]]*\]\([^)]*\))", re.I)
_PARTLY_RE = re.compile(r"\b(?:only|partly|partially|in part)\b", re.I)


def _read_summary_links(src: Foreign) -> None:
    """An RFC states what it replaces in its summary ("This RFC supersedes RFC 0003: ..."); "supersedes RFC 1
    only where ..." replaces part of it, which is an amendment: the older one stays in force."""
    section = _section(src, frozenset({"summary", "abstract", "simple summary"}))
    if section is None:
        return
    for sentence in re.split(r"(?<=[.!?])\s+", " ".join(section.split())):
        for match in _PROSE_LINK_RE.finditer(sentence):
            verb = match.group(1).lower()
            direction = "amends" if verb == "amends" or _PARTLY_RE.search(sentence[match.end():]) else "supersedes"
            src.references.append(_reference(direction, match.group(2)))


_NOTICE_RE = re.compile(r"\b(?:has\s+been|is|was|got)\s+(?:now\s+)?(superseded|superceded|replaced|obsoleted)\s+"
                       r"(?:by|with|in\s+favou?r\s+of)\s+(\[(?:[^\[\]]|\[[^\]]*\])*\]\([^)]*\)|(?:ADR|RFC)[\s#-]*\d+)",
                       re.I)
_NOTICE_WORD_RE = re.compile(r"supersed|supercede|replaced|obsoleted", re.I)
NOTICE_LINES = 25  # a notice stands at the top: a Docusaurus admonition, a "> [!NOTE]" callout, a first line


def _read_notice(src: Foreign) -> None:
    """A notice at the top that the record was replaced ("This ADR has been superseded by [ADR014](...)"), as
    Docusaurus and GitHub callouts put it where a reader sees it first."""
    top = "\n".join(src.analysis.split("\n", NOTICE_LINES)[:NOTICE_LINES])
    if _NOTICE_WORD_RE.search(top) is None:  # most records: no word of a notice at all, nothing to clean
        return
    top = _without_fences(top)
    for match in _NOTICE_RE.finditer(" ".join(statuses.clean(line) for line in top.split("\n"))):
        src.references.append(_reference("superseded-by", match.group(2)))
        if src.status is None or src.status.word != "superseded":
            src.superseded_in_links = True


def _status_references(read: statuses.ReadStatus) -> list[Reference]:
    return [_reference(link.direction, link.ref) for link in read.links]


def _reference(direction: str, text: str) -> Reference:
    files = [target for _, target in _links(text) if _is_markdown_file(target)]
    return Reference(direction, text.strip(), file_name(files[0]) if files else None)


def _links(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _LINK_RE.finditer(text)]


def _is_markdown_file(target: str) -> bool:
    if re.match(r"^[a-z][a-z0-9+.-]*://", target, re.I) or target.startswith(("#", "mailto:")):
        return False
    return bool(re.search(r"\.(?:md|markdown|mdx)(?:#.*)?$", target, re.I)) or "/" not in target and "." not in target


_LINK_TEXT_RE = re.compile(r"^\[((?:[^\[\]]|\[[^\]]*\])*)\]")
_REF_NUMBER_RE = re.compile(r"^(?:(?:ADR|RFC|DR|decision)[\s#_-]*|#)?0*(\d{1,6})\b", re.I)


def named(ref: Reference) -> tuple[str, int | None]:
    """What a reference says of the record it names when it gives no file: its words (a link's text, not its
    target: "[ADR-7](...)" says "ADR-7"), and the number they start with ("ADR-0007", "#7", "7. Title")."""
    text = statuses.clean(ref.text)
    link = _LINK_TEXT_RE.match(text)
    if link:
        text = link.group(1)
    number = _REF_NUMBER_RE.match(text)
    return text, int(number.group(1)) if number else None


def file_name(target: str) -> str:
    from urllib.parse import unquote

    return unquote(target.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1])


# --- what the file is -----------------------------------------------------------------------------------------

def _judge_kind(src: Foreign) -> None:
    name = src.path.name
    if FURNITURE_RE.match(name):
        _other(src, "an index or README page, not a decision")
    elif TEMPLATE_NAME_RE.search(src.path.stem):
        _other(src, "a template, not a decision")
    elif src.status is not None and src.status.template:
        _other(src, "a template: its status lists the choices")
    elif src.template_title is not None and not _has_own_text(src):
        _other(src, "a template: its title is a placeholder")
    elif src.meta.get("has_children") is True:
        _other(src, "an index page (has_children), not a decision")
    elif src.status is None and _mostly_links(src):
        _other(src, "an index page: it lists other files")


def _mostly_links(src: Foreign) -> bool:
    """A page of links to sibling files with little text of its own: a hand-kept index."""
    if len(src.sibling_links) < 3:
        return False
    prose = [p for p in _paragraphs(_without_fences(src.analysis)) if not _LINK_RE.search(p) and len(p) > 80]
    return len(prose) <= 1


# What a template puts in its sections for the author to replace: MADR's "{...}" (nested: "{... {force} ...}"),
# MADR 2 and log4brains' "[...]" (not a link's text), "{{ ... }}".
_BODY_PLACEHOLDER_RE = re.compile(r"\{[^{}]*\}|\[[^\[\]\n]*\](?![(\[:])")
# adr-tools' template words its sections itself: prose, but not the author's.
_TEMPLATE_PROSE = ("the issue motivating this decision", "the change that we're proposing or have agreed",
                   "what becomes easier or more difficult to do")
OWN_WORDS = 5  # a template's leftovers ("Chosen option: , because") have fewer words than any sentence a person writes


def _has_own_text(src: Foreign) -> bool:
    """Whether the body holds a paragraph its author wrote: words that are no placeholder, no heading, no
    field line, not a template's own sentence. A record begun from a template whose title line was never
    filled in has one; a template copied under a new name has none."""
    text = src.analysis
    for heading in reversed(src.headings):  # from the end: offsets hold
        text = text[: heading.start] + "\n" * text.count("\n", heading.start, heading.end) + text[heading.end:]
    for paragraph in _paragraphs(_without_fences(text)):
        if _is_field(paragraph) or paragraph.lower().lstrip("*_ ").startswith(_TEMPLATE_PROSE):
            continue
        left, previous = paragraph, ""
        while left != previous:  # innermost first: "{justification ... {force} ...}"
            previous, left = left, _BODY_PLACEHOLDER_RE.sub(" ", left)
        if len(re.findall(r"[^\W\d_]{2,}", left)) >= OWN_WORDS:
            return True
    return False
