"""Status wording as teams write it, and the links a status line carries ("Superseded by [3. X](0003-x.md)").

A status is read from its first words, whatever decorates it (emoji, bold, brackets, a trailing date), and
mapped onto a normalised word; the type's own statuses then decide what docir stores (planning.py).
A line may hold several clauses ("accepted; supersedes ADR-0045"): each is a status or a link.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# The normalised statuses adopt knows -> the words teams write for them (lower case, as the text starts).
STATUS_WORDS: dict[str, tuple[str, ...]] = {
    "accepted": ("accepted", "approved", "adopted", "agreed", "decided", "done", "implemented", "final", "active",
                 "living", "current", "in effect", "effective", "complete", "completed", "merged", "ratified",
                 "enacted", "chosen", "valid"),
    "proposed": ("proposed", "proposal", "draft", "in review", "under review", "review", "reviewing", "pending",
                 "open", "on hold", "onhold", "hold", "wip", "work in progress", "in progress", "in discussion",
                 "discussion", "discussing", "last call", "idea", "planned", "suggested", "request for comments",
                 "rfc", "new", "todo", "backlog", "exploring", "experimental", "trial", "tentative", "postponed",
                 "deferred", "parked", "blocked"),
    "rejected": ("rejected", "declined", "withdrawn", "abandoned", "not accepted", "refused", "denied", "dismissed",
                 "cancelled", "canceled", "dropped", "won't do", "wont do", "stagnant"),
    "deprecated": ("deprecated", "obsolete", "retired", "outdated", "sunset", "no longer valid", "invalid",
                   "archived", "moved"),
    "superseded": ("superseded", "superceded", "replaced", "obsoleted", "overridden", "overruled"),
}

# Link verbs a status line or a "Links" list uses -> the direction it names, from this document's side.
LINK_VERBS: tuple[tuple[str, str], ...] = (
    ("superseded by", "superseded-by"), ("superceded by", "superseded-by"), ("replaced by", "superseded-by"),
    ("obsoleted by", "superseded-by"), ("overridden by", "superseded-by"), ("deprecated by", "superseded-by"),
    ("deprecated in favour of", "superseded-by"), ("deprecated in favor of", "superseded-by"),
    ("supersedes", "supersedes"), ("supercedes", "supersedes"), ("replaces", "supersedes"),
    ("obsoletes", "supersedes"), ("overrides", "supersedes"),
    ("amended by", "amended-by"), ("clarified by", "amended-by"), ("extended by", "amended-by"),
    ("refined by", "amended-by"), ("updated by", "amended-by"), ("revised by", "amended-by"),
    ("amends", "amends"), ("clarifies", "amends"), ("extends", "amends"), ("refines", "amends"),
    ("updates", "amends"), ("revises", "amends"),
    ("depends on", "depends-on"), ("relates to", "relates-to"), ("related to", "relates-to"),
    ("see also", "relates-to"),
)
# The verbs' directions that make the document itself superseded.
REPLACED = "superseded-by"

_DECORATION_RE = re.compile(r"^[^\w\[]+|^_+", re.UNICODE)  # emoji, bullets, marks before the words
_VERBS = "|".join(re.escape(verb) for verb, _ in LINK_VERBS)
# Where one clause ends and the next begins: ";", a line break, " - ", or before a link verb.
_SEPARATOR_RE = re.compile(r"\s*(?:;|\n|\s[-–—]\s)\s*|[,.]?\s+(?=(?:and\s+)?(?:%s)\b)" % _VERBS, re.I)
# A template's status lists its choices ("Proposed, Accepted, Rejected", "[proposed | accepted]") or a
# placeholder ("{{ STATUS }}", "{status}").
_CHOICES_RE = re.compile(r"\b(?:proposed|accepted|rejected|deprecated|superseded)\b\s*(?:,|/|\||\bor\b)\s*"
                         r"\b(?:proposed|accepted|rejected|deprecated|superseded)\b", re.I)
_PLACEHOLDER_RE = re.compile(r"\{[^}]*\}|\[[^\]]*\|[^\]]*\]")


class StatusLink(NamedTuple):
    direction: str  # one of LINK_VERBS' directions
    ref: str  # the rest of the clause: "[20. User models](./0020-user-models.md)", "ADR-0057"


class ReadStatus(NamedTuple):
    """What one status text says."""

    word: str | None  # normalised (accepted, proposed, ...) or None when it names none
    original: str  # the wording, without decoration
    links: tuple[StatusLink, ...]
    unknown: bool  # it names a status adopt does not know
    template: bool  # it lists the choices, as a template does


def clean(text: str) -> str:
    """The wording without Markdown decoration: bold and italics marks, emoji, quotes around it, extra space."""
    text = text.replace("**", "").replace("__", "")
    text = re.sub(r"(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])", "", text)
    text = " ".join(text.split())
    text = _DECORATION_RE.sub("", text)
    return text.strip().strip("\"'`_").strip()


def clauses(text: str) -> list[str]:
    """`text` cut at its separators, never inside a link's [text] or (target)."""
    parts, start = [], 0
    for match in _SEPARATOR_RE.finditer(text):
        before = text[: match.start()]
        if before.count("[") > before.count("]") or before.count("(") > before.count(")"):
            continue
        parts.append(text[start : match.start()])
        start = match.end()
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def read(text: str) -> ReadStatus:
    """The status and links one status text names ("Accepted", "⌛️ Superseded by [..](..)",
    "accepted; supersedes ADR-0045")."""
    original = clean(text)
    if not original:
        return ReadStatus(None, "", (), False, False)
    if _CHOICES_RE.search(original) or _PLACEHOLDER_RE.search(text):
        return ReadStatus(None, original, (), False, True)
    word: str | None = None
    named_any = False
    links: list[StatusLink] = []
    for clause in clauses(original):
        clause = _DECORATION_RE.sub("", clause).strip()
        link = link_of(clause)
        if link is not None:
            links.append(link)
            if link.direction == REPLACED:
                word = "superseded"
            continue
        named = word_of(clause)
        if named is not None:
            named_any = True
            word = word if word == "superseded" else named
    unknown = word is None and not named_any and not links
    return ReadStatus(word, original, tuple(links), unknown, False)


def link_of(clause: str) -> StatusLink | None:
    """The link a clause starting with a link verb names ("Superseded by [3. X](0003-x.md)")."""
    lowered = clause.lower()
    for verb, direction in LINK_VERBS:
        if lowered.startswith(verb) and (len(lowered) == len(verb) or not lowered[len(verb)].isalnum()):
            ref = clause[len(verb):].strip(" :-–—\t")
            return StatusLink(direction, ref) if ref else None
    return None


def word_of(clause: str) -> str | None:
    """The normalised status a clause starts with ("Accepted (2021-05-11)" -> accepted), or None."""
    lowered = clause.lower().replace("-", " ").replace("_", " ")
    best: tuple[int, str] | None = None
    for status, words in STATUS_WORDS.items():
        for word in words:
            if lowered == word or (lowered.startswith(word) and not lowered[len(word)].isalnum()):
                if best is None or len(word) > best[0]:
                    best = (len(word), status)
    return best[1] if best else None
