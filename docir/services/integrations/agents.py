"""The marked block in AGENTS.md that tells a coding agent how to use docir.

Only the text between the markers is ever written; the rest of the file stays
byte-identical, and running it again replaces the block instead of adding one.
"""

from __future__ import annotations

from pathlib import Path

from docir.documents.files import atomic_write

BEGIN = "<!-- docir:begin (managed by `docir agents`; edits inside are overwritten) -->"
END = "<!-- docir:end -->"
BLOCK = f"""{BEGIN}
## Design knowledge: docir

This repository keeps its decisions, architecture notes, issues and guides in `docs/`,
indexed by docir. Before you change code, ask it what matters for your task:

    docir context "what you are about to do, in plain words" \\
        --sketch "what the answering document would say, in its words" --path FILE --path FILE2

Write the `--sketch` as the answer's own summary would read: one or two sentences naming
the mechanism you expect, in the vocabulary such a document uses, no question words
("Failed deliveries are retried with exponential backoff, then parked in a dead-letter
queue."). It finds what the task's wording misses; leave it out when you cannot guess
what the answer says (a sketch that disagrees with the task is given little weight).
Put exact identifiers, option names or error strings in `--terms`.

Pass every file you will touch with `--path` (or `--changed` for what git reports as
changed): decisions whose `applies_to` globs cover those files come first ("governs GLOB").
Each result is two lines: id, type, status, body size in tokens and title; then its
description, and the section that matched. Judge relevance from those, then fetch the few
bodies you need in ONE call: `docir get ID1 ID2 ...`. A long document comes as its outline
with each section's size: ask for the sections you need, several at once
(`docir get ID --section "Decision" --section "Consequences"`), or `--full`.
Closed documents (superseded, resolved) are hidden unless you pass `--include-inactive`;
a superseded decision's replacement comes along with it ("replaces ID").
The first line of `context`, `query` and `search` says how many documents the store holds.
On a small store (up to a hundred or so), `docir query` lists every current document in one
line each (id, status, title, description; raise `--limit` when it says more match):
reading it is the cheapest way to judge them all. Output is text for you; add `--json` only when a program parses it.
Record a new decision with `docir add decision --title ... --description ...` (and
`--applies-to GLOB` for the files it governs; `--related supersedes:ID` marks the one it
replaces superseded once the new one is accepted); keep a document true with
`docir update ID ...`. Run `docir lint` before committing docs.
{END}
"""


def render_block() -> str:
    return BLOCK


def write_block(path: Path) -> str:
    """Create or refresh the block in `path`; return "created", "updated" or "unchanged"."""
    if not path.exists():
        atomic_write(path, BLOCK)
        return "created"
    text = path.read_bytes().decode("utf-8")  # not read_text: universal newlines would turn \r\n into \n
    start = text.find(BEGIN)
    end = text.find(END, start) if start != -1 else -1
    if start != -1 and end != -1:
        end += len(END)
        if text[end : end + 1] == "\n":
            end += 1
        new = text[:start] + BLOCK + text[end:]
    else:
        separator = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        new = text + separator + BLOCK
    if new == text:
        return "unchanged"
    atomic_write(path, new)
    return "updated"
