"""The reads' form for a coding agent: compact text, one result in one or two lines (adr-aa663d326ae5).

An agent judges relevance better than any ranking, and pays for every byte it reads. So each entry
says what decides whether to read it, once, and nothing else: id, type and status, title, its
description on one line, where it matched and what passage, why it is there (the link it came in
by), how much reading its body costs. Nothing null or empty is printed. It is what `context`,
`query`, `search` and `get` print off a terminal and what the MCP tools return; `--json` gives
the complete, stable JSON for programs. Built from the JSON payloads, so both say the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from docir.cli.counts import counted
from docir.documents import prose
from docir.documents.headings import find_headings

# `get` shows a body up to this many tokens whole; past it, the outline (adr-aa663d326ae5).
OUTLINE_OVER_TOKENS = 2000
# A listing's description and passage are one line each: enough to judge by, a `get` away from the rest.
DESCRIPTION_CHARS = 70
PASSAGE_CHARS = 50
LINKED_DESCRIPTION_CHARS = 50  # a linked entry is one line: the link says most of why it is there


def of(command: str, request: Any, payload: Mapping[str, Any], *, say_missing: bool = True) -> str:
    """The text form of a read's result, for the CLI off a terminal and for the MCP tool alike (the reads
    are those docir/commands.py says `reads`)."""
    if command == "context":
        return context(payload)
    if command == "get":
        return documents(payload, whole=request.full, say_missing=say_missing)
    stored = f"of {counted(payload.get('stored', 0), 'document')}"
    if command == "query":
        more = "; more match: raise --limit" if payload.get("more") else ""
        return listing(payload, f"{len(payload['results'])} shown {stored}{more}")
    if command == "search":
        return listing(payload, f"{counted(len(payload['results']), 'match')} {stored} for: {request.text}")
    raise ValueError(f"{command} is not a read")


def context(payload: Mapping[str, Any]) -> str:
    """`context`: the ranked results, each linked document under the result it hangs off."""
    rows: Sequence[Mapping[str, Any]] = payload["results"]
    ranked = sum(1 for row in rows if row.get("via") is None)
    head = counted(ranked, "result") + (f" + {len(rows) - ranked} linked" if len(rows) > ranked else "")
    head += f", of {counted(payload.get('stored', 0), 'document')}"
    if payload.get("omitted"):
        limit = (payload.get("budget") or {}).get("limit", 0)
        head += (f"; {counted(payload['omitted'], 'more entry', 'more entries')} held back by the "
                 f"{limit:,}-token budget (--budget 0 shows them)")
    kinds = _kinds(rows)
    if kinds:
        head += f"; {kinds}"
    lines = [head]
    ranks: dict[str, int] = {}  # a ranked result's id -> its number, which a linked entry names it by
    for row in rows:
        if row.get("via") is None:
            ranks[row["id"]] = len(ranks) + 1
            lines += _entry(row, f"{ranks[row['id']]}. ")
        else:  # a linked document, right after the result it hangs off or after every ranked one
            lines += _entry(row, "   ↳ ", ranks)
    return "\n".join(lines) + "\n"


def listing(payload: Mapping[str, Any], head: str) -> str:
    """`query` and `search`: one line per document (id, status, title, description, links), the store's
    catalogue at a glance."""
    rows: Sequence[Mapping[str, Any]] = payload["results"]
    lines = [head]
    for row in rows:
        if row.get("kind") == "reference":
            lines += _entry(row, "")
            continue
        links = _links(row, every=False)
        tail = f" [{links}]" if links else ""
        stale = " (stale)" if row.get("stale") else ""
        said = _clip(row.get("description"), DESCRIPTION_CHARS)
        lines.append(f"{row['id']} {row['status']}{stale}: {row['title']}{f' — {said}' if said else ''}{tail}")
    return "\n".join(lines) + "\n"


def documents(payload: Mapping[str, Any], *, whole: bool = False, say_missing: bool = True) -> str:
    """`get`: each document once (its fields, its links both ways, then its body), or, when its body is
    long and the whole was not asked for, its outline and how to fetch sections. What was not found is
    said last, unless the caller says it elsewhere (the CLI, on stderr)."""
    parts: list[str] = []
    shown: set[str] = set()
    for doc in payload["documents"]:
        if "section" in doc and doc["id"] in shown:  # another section of a document shown above
            parts[-1] += f"\n--- § {doc['section']}\n{(doc.get('body') or '').strip()}"
            continue
        shown.add(doc["id"])
        parts.append(_document(doc, whole))
    for missing in payload.get("missing_sections") or []:
        parts.append(f"{missing['id']} has no section {missing['section']!r}")
    if say_missing:
        parts += [f"no document with id {doc_id}" for doc_id in payload.get("missing") or []]
    return "\n\n".join(parts) + ("\n" if parts else "")


# --- one entry --------------------------------------------------------------------------------------------------

def _kinds(rows: Sequence[Mapping[str, Any]]) -> str:
    """Each id prefix with the type it stands for, said once ("adr = decision"): an entry need not repeat it."""
    found: dict[str, str] = {}
    for row in rows:
        if row.get("type") and row.get("kind") != "reference":
            found.setdefault(str(row["id"]).split("-", 1)[0], row["type"])
    return ", ".join(f"{prefix} = {kind}" for prefix, kind in found.items() if prefix != kind)


def _entry(row: Mapping[str, Any], lead: str, ranks: Mapping[str, int] | None = None) -> list[str]:
    size = _tokens(row.get("size"))
    if row.get("kind") == "reference":
        where = " > ".join(row.get("heading_path") or [])
        first = f"{lead}{row['id']} (reference {row['ref']}{size}) {row['title']}"
        return [first + (f" > {where}" if where else "")]
    facts = ", ".join(part for part in (row["status"], "stale" if row.get("stale") else None) if part)
    first = f"{lead}{row['id']} ({facts}{size}) {row['title']}"
    via = row.get("via")
    if row.get("store") and row["store"] != ".":
        first += f" [store {row['store']}]"
    if via:
        first += " — " + _why(via, ranks or {})
        if row.get("description"):
            first += ": " + _clip(row["description"], LINKED_DESCRIPTION_CHARS)
        return [first]
    lines = [first]
    second: list[str] = []
    if row.get("description"):
        second.append(_clip(row["description"], DESCRIPTION_CHARS))
    if row.get("matched_glob"):
        second.append(f"governs {row['matched_glob']}")
    section = row.get("matched_section")
    if section:
        passage = row.get("matched_passage")
        if passage and _says_again(passage, f"{row['title']} {row.get('description') or ''}"):
            passage = None  # the description says it already
        shown = "" if _same_words(section, row["title"]) else f"§ {section}"  # the title's own heading
        if passage:
            shown = (f"{shown} " if shown else "§ ") + f"\"{_clip(passage, PASSAGE_CHARS)}\""
        if shown:
            second.append(shown)
    if second:
        lines.append(" " * (len(lead) if lead.strip() else 5) + " | ".join(second))
    return lines


_WORDS_RE = re.compile(r"[^\W_]+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORDS_RE.findall(text) if len(w) > 2}


def _same_words(a: str, b: str) -> bool:
    return _words(a) == _words(b)


def _says_again(passage: str, said: str) -> bool:
    """Whether most of the passage's words are already in `said` (the title and description)."""
    words = _words(passage)
    return bool(words) and len(words & _words(said)) >= 0.6 * len(words)


def _why(via: Mapping[str, Any], ranks: Mapping[str, int]) -> str:
    """Why a linked document is there, from its side: it replaces a result, or a result links to it (named
    by its number above when it is one of the results)."""
    seed = f"#{ranks[via['id']]}" if via["id"] in ranks and not via.get("store") else via["id"]
    if via.get("direction") == "successor":
        return f"replaces {seed}"
    return f"{seed} {via['kind']} this"


def _links(row: Mapping[str, Any], *, every: bool = True) -> str:
    """Its links both ways, each once (a symmetric kind names the same pair from both sides); in a listing
    (`every` false) only those that say more than "relates to": what replaces it, what it builds on."""
    said: list[str] = []
    for link in [*(row.get("related") or []), *(row.get("incoming") or [])]:
        text = f"{link['kind']} {link['id']}"
        if text not in said and (every or link["kind"] != "relates-to"):
            said.append(text)
    return "; ".join(said)


def _tokens(size: Mapping[str, Any] | None) -> str:
    return f", {size['tokens']:,} tok" if size else ""


def _one_line(text: object) -> str:
    return " ".join(str(text or "").split())


def _clip(text: object, limit: int) -> str:
    return prose.clip(str(text or ""), limit)


# --- get ----------------------------------------------------------------------------------------------------------

# Shown in a document's header line or its links line, so not repeated among its other fields.
_SHOWN = frozenset({"id", "type", "title", "description", "status", "related", "path"})


def _document(doc: Mapping[str, Any], whole: bool) -> str:
    if doc.get("kind") == "reference":
        where = " > ".join(doc.get("heading_path") or [])
        return f"=== {doc['id']} (reference {doc['ref']}) {doc['title']}" + (f" > {where}" if where else "") \
            + f"\n{doc.get('source_uri', '')}\n\n{doc.get('text', '').strip()}"
    size = doc.get("size") or {}
    facts = ", ".join(p for p in (doc.get("type"), doc.get("status"), "archived" if doc.get("archived") else None,
                                  "stale" if doc.get("stale") else None) if p)
    lines = [f"=== {doc['id']} ({facts}{_tokens(size)}) {doc['title']}", f"path: {doc['path']}"]
    if doc.get("description"):
        lines.append(f"description: {_one_line(doc['description'])}")
    links = _links(doc)
    if links:
        lines.append(f"links: {links}")
    for key, value in (doc.get("frontmatter") or {}).items():
        if key not in _SHOWN and value not in (None, "", [], {}):
            lines.append(f"{key}: {_field(value)}")
    body: str = doc.get("body") or ""
    if "section" in doc:
        lines += [f"--- § {doc['section']}", body.strip()]
    elif whole or int(size.get("tokens") or 0) <= OUTLINE_OVER_TOKENS:
        lines += ["---", body.strip()]
    else:
        lines += _outline(doc["id"], body, int(size.get("tokens") or 0))
    return "\n".join(lines)


def _field(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(_field(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_field(v)}" for k, v in value.items())
    return _one_line(value)


def _outline(doc_id: str, body: str, tokens: int) -> list[str]:
    """The body's sections with what each costs, and how to fetch the ones needed in one call."""
    heads = [(h.level, h.text, h.start) for h in find_headings(body)]  # never one inside a fence or comment
    lines = [f"--- outline: the body is ~{tokens:,} tokens; fetch sections in one call with "
             f"docir get {doc_id} --section \"Heading\" [--section \"Other\"], or all of it with --full"]
    top = min((level for level, _, _ in heads), default=1)  # a body's sections are usually "##": not indented
    for index, (level, heading, start) in enumerate(heads):
        end = next((s for lv, _, s in heads[index + 1:] if lv <= level), len(body))
        lines.append(f"{'  ' * (level - top)}{heading} (~{max(1, (end - start) // 4):,} tok)")
    if not heads:
        lines.append("(no headings: --full shows the body)")
    return lines
