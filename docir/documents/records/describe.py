"""A description of whole sentences for an adopted record, from what its source already says.

In order: a description, summary or abstract the source has (frontmatter or a Summary/Abstract section),
else the first real paragraph of its context or problem statement, else of its decision, else of its
body. A real paragraph is prose: not a heading, list, table, quote, fenced block, link list or a
metadata line ("**Parent Requirement**: ...", "Technical Story: ..."). Its sentences are taken whole, up
to a length a listing can show; a lead-in that ends in ":" is left out, since what it introduces is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from docir.documents import prose
from docir.documents.fences import FENCE_RE, closes
from docir.documents.records.reading import SECTION_NAMES, Foreign, heading_name

# Sections whose first paragraph says what a record is about, best first.
SUMMARY_SECTIONS = ("summary", "tl;dr", "tldr", "abstract", "simple summary", "executive summary", "what's proposed",
                    "what’s proposed", "what is proposed", "proposal")
CONTEXT_SECTIONS = ("context and problem statement", "context", "problem statement", "problem", "motivation",
                    "background", "overview", "introduction", "issue", "description")
DECISION_SECTIONS = ("decision outcome", "decision", "solution")
# The last word of a lead-in to a list: "Chosen option: "X", because" is followed by its reasons.
_LEAD_IN_RE = re.compile(r"(?::|\b(?:because|and|or|to|with|of|the|as|following|like|including|are|is|were|was))$",
                         re.I)
TARGET_LENGTH = 300  # characters: enough for two or three sentences a judge reads at a glance

_LINK_RE = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)")
_REF_LINK_RE = re.compile(r"\[([^\[\]]+)\]\[[^\]]*\]|\[([^\[\]]+)\](?!\()")
_AUTOLINK_RE = re.compile(r"<(?:https?|ftp|mailto):[^>]*>|\(\s*https?://[^)\s]*\s*\)|\bhttps?://\S+")
_TAG_RE = re.compile(r"</?[A-Za-z][^>]*>")
_EMPHASIS_RE = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"
                          r"|(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)")
# A metadata line ("**Parent Requirement**: ...", "Technical Story: ...") or a bold label alone; MADR's
# "Chosen option: X, because Y" is the decision itself, not metadata.
_META_RE = re.compile(r"^(?!\s*(?:\*\*|__)?(?i:chosen option))\s*(?:\*\*|__)?[A-Z][\w ()/'-]{0,30}?(?:\*\*|__)?"
                      r"\s*:(?:\*\*|__)?\s+\S|^\s*(?:\*\*|__)[^*_]{1,40}(?:\*\*|__)\s*$")
_NOTE_RE = re.compile(r"^\s*(?:note|nb|todo|fixme|warning|tip|important|disclaimer)\b\s*[:!-]", re.I)
_TERMINAL_RE = re.compile(r"[.!?][\"')\]]*$")
_LIST_ITEM_RE = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+")


class Described(NamedTuple):
    text: str
    source: str  # where it came from: "frontmatter", "section: Context", "body", "title"
    derived: bool  # written by adopt from the body (a person should review it), not the source's own


def describe(src: Foreign, min_length: int, max_length: int) -> Described:
    """The record's description; never empty, never longer than `max_length`."""
    if src.summary:
        text = _plain(src.summary)
        if text and not _TERMINAL_RE.search(text) and not text.endswith((":", ",", ";")):
            text += "."  # the source's own sentence, written without its stop
        if len(text) > max_length:
            text = sentences(text, min_length, max_length) or prose.clip(text, max_length)
        if len(text) >= min_length:
            return Described(text, "frontmatter", False)
    for names in (SUMMARY_SECTIONS, CONTEXT_SECTIONS, DECISION_SECTIONS):
        for name in names:
            found = _from_section(src, name, min_length, max_length)
            if found:
                return Described(found[1], f"section: {found[0]}", True)
    for paragraph in _prose(_after_preamble(src), max_length):
        text = sentences(paragraph, min_length, max_length)
        if text:
            return Described(text, "body", True)
    title = (src.title or src.path.stem).rstrip(".")
    return Described(prose.clip(f"Records the decision: {title}.", max_length), "title", True)


def sentences(paragraph: str, min_length: int, max_length: int) -> str:
    """Whole sentences of `paragraph`, from its start, up to TARGET_LENGTH (at least `min_length`, at most
    `max_length` characters); "" when it has none (a lead-in ending in ':' is none)."""
    parts = prose.sentences(paragraph)
    fragment = ""
    if parts and not _TERMINAL_RE.search(parts[-1]) and not parts[-1].endswith((":", ",", ";")) \
            and not _LEAD_IN_RE.search(parts[-1]) and len(parts[-1].split()) >= 4:
        fragment = parts[-1].rstrip() + "."  # the paragraph's last sentence, written without its stop
    if parts and not _TERMINAL_RE.search(parts[-1]):
        last = parts.pop()  # a fragment, or a lead-in to a list ("The key reasoning was:")
        if not parts and not last.endswith(":") and len(last.split()) >= 6 and len(paragraph.split("\n")) == 1:
            parts = [last.rstrip(",;") + "."]  # one unpunctuated line of prose: a sentence without its stop
    taken: list[str] = []
    for part in parts:
        candidate = " ".join([*taken, part])
        if len(candidate) > max_length:
            break
        taken.append(part)
        if len(candidate) >= TARGET_LENGTH:
            break
    text = " ".join(taken)
    if len(text) < min_length and fragment and len(f"{text} {fragment}") <= max_length:
        text = f"{text} {fragment}".strip()
    if not text and parts:
        return prose.clip(parts[0], max_length)
    return text if len(text) >= min_length else ""


def _from_section(src: Foreign, name: str, min_length: int, max_length: int) -> tuple[str, str] | None:
    headings = src.headings
    for index, heading in enumerate(headings):
        if heading is src.title_heading or heading_name(heading.text) != name:
            continue
        end = len(src.analysis)
        for later in headings[index + 1:]:
            if later.level <= heading.level or heading_name(later.text) in SECTION_NAMES:
                end = later.start
                break
        for paragraph in _prose(src.analysis[heading.end:end], max_length):
            text = sentences(paragraph, min_length, max_length)
            if text:
                return heading.text, text
    return None


def _after_preamble(src: Foreign) -> str:
    """The body after its title and metadata lines: where prose starts."""
    start = src.title_heading.end if src.title_heading is not None else 0
    return src.analysis[start:]


def _prose(text: str, max_length: int = 400) -> Iterator[str]:
    """The plain paragraphs of `text`, in order, Markdown taken out. A lead-in that ends in ":" and the
    short list it introduces make one sentence ("We need to decide X: a; b; or c."); a lead-in whose list
    is too long to say in a description is left out. Each is given as soon as it is known: a description
    takes the first that makes a sentence, and a long body is not read to its end for it."""
    found: list[str] = []
    block: list[str] = []
    items: list[list[str]] = []  # the list after a lead-in, item by item
    lead: list[str] = []  # a closed paragraph ending in ":", waiting for its list
    fence: str | None = None

    def close() -> None:
        if block:
            paragraph = " ".join(line.strip() for line in block)
            plain = _plain(paragraph)
            metadata = all(_META_RE.match(line) for line in block)  # "Technical Story: ...", not a sentence
            aside = plain.startswith("(") and plain.endswith((")", ").", ")."))  # a parenthesis, said in passing
            if plain and re.search(r"[A-Za-z]{3}", plain) and not metadata and not aside \
                    and not _NOTE_RE.match(plain) and not _links_only(paragraph):
                if _LEAD_IN_RE.search(plain):
                    lead[:] = [plain]
                else:
                    found.append(plain)
            block.clear()

    def end_list() -> None:
        if lead and items:
            said = [_plain(" ".join(item)).rstrip(",;. ") for item in items]
            if not lead[0].endswith(":") and said and said[0][1:2].islower():
                said[0] = said[0][:1].lower() + said[0][1:]  # "because" runs on into its first reason
            sentence = f"{lead[0]} {'; '.join(said)}."
            if all(said) and len(sentence) <= max_length and not any(":" in s or ". " in s for s in said):
                found.append(sentence)
        lead.clear()
        items.clear()

    in_list = False  # inside a list: an item's wrapped lines and indented paragraphs are the list's
    given = 0
    for line in text.split("\n"):
        while given < len(found):
            yield found[given]
            given += 1
        stripped = line.strip()
        if fence is None and in_list:
            item = _LIST_ITEM_RE.match(line)
            if item and not line.startswith((" ", "\t")):
                items.append([line[item.end():]])
                continue
            if stripped and line.startswith((" ", "\t")):
                if items and not _LIST_ITEM_RE.match(line):
                    items[-1].append(stripped)
                else:
                    lead.clear()  # a nested list: more than a sentence can say
                continue
            if not stripped:
                continue
            in_list = False
            end_list()
        if fence is not None:
            fence = None if closes(fence, line) else fence
            continue
        opened = FENCE_RE.match(line)
        if opened:
            close()
            lead.clear()
            fence = opened.group(1)
            continue
        item = _LIST_ITEM_RE.match(line)
        if item:
            close()
            in_list = True
            items.clear()
            items.append([line[item.end():]])
            continue
        if (not stripped or stripped.startswith(("#", "|", ">", "<", "---", "***", "===", "![", "[!"))
                or line.startswith(("    ", "\t")) and not block):
            close()
            if stripped:
                lead.clear()
            continue
        lead.clear()
        block.append(line)
    close()
    end_list()
    yield from found[given:]


def _links_only(paragraph: str) -> bool:
    rest = _LINK_RE.sub("", paragraph)
    return len(_LINK_RE.findall(paragraph)) >= 2 and len(re.sub(r"[\W_]+", "", rest)) < 20


def _plain(text: str) -> str:
    """Text as a reader reads it: link text without targets, no bare URLs, tags or emphasis marks."""
    text = _AUTOLINK_RE.sub("", text)
    text = _LINK_RE.sub(lambda m: m.group(1), text)
    text = _REF_LINK_RE.sub(lambda m: m.group(1) or m.group(2), text)
    text = _TAG_RE.sub("", text)
    text = _EMPHASIS_RE.sub(lambda m: next(g for g in m.groups()[1:] if g is not None), text)
    text = " ".join(text.split())
    return re.sub(r"\s+([,.;:!?])", r"\1", text).strip()


