"""The lint rules reference page, rendered from the rules themselves (`reference_markdown`)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from docir.documents.conflicts import conflict_markers
from docir.services.lint.registry import Rule
from docir.services.lint.rules import RULES
from docir.services.lint.rules.suppressions import SUPPRESS_RE

_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")  # where Markdown would read raw HTML: '<<<<<<<' is no tag
# Markdown already: its comment is in a code span, and CODE names no rule, so the page suppresses nothing.
INTRO = ("What `docir lint` checks. Each rule has a stable code and a name; `docir rule CODE` prints the same "
         "text. A finding is an error or a warning by default; `lint.severity` in docs-schema.yaml changes "
         "that per code, or turns a rule `off`. An inline `<!-- docir: ignore[CODE] -->` silences one "
         "document's findings of that rule.")


def page(rules: Sequence[Rule[Any]]) -> str:
    parts = [INTRO]
    for rule in rules:
        parts.append(f"## {rule.code} {rule.name}")
        parts.append(f"{rule.severity.capitalize()} by default. {_prose(rule.summary)}")
        parts.append(_explanation(rule.explanation))
        parts.append("Reported:")
        parts.append(_example(rule.bad))
        parts.append("Fixed:")
        parts.append(_example(rule.good))
    return "\n\n".join(parts) + "\n"


def _prose(text: str) -> str:
    """Text written for a terminal, as Markdown that shows it as written: no HTML read as tags, no
    emphasis out of a glob's stars."""
    return _TAG_START.sub("&lt;", text).replace("*", "\\*")


def _explanation(text: str) -> str:
    """An explanation's lines indented by two spaces are a snippet: an indented code block here."""
    blocks: list[str] = []
    prose: list[str] = []
    code: list[str] = []
    for line in text.split("\n"):
        if line.startswith("  "):
            if prose:
                blocks.append(_prose(" ".join(prose)))
                prose = []
            code.append("    " + line[2:])
        else:
            if code:
                blocks.append("\n".join(code))
                code = []
            prose.append(line)
    if prose:
        blocks.append(_prose(" ".join(prose)))
    if code:
        blocks.append("\n".join(code))
    return "\n\n".join(blocks)


def _example(text: str) -> str:
    """A fenced block, or escaped HTML for an example holding what lint reads in any text (a suppression
    comment, a conflict marker), so that the page itself lints clean."""
    if SUPPRESS_RE.search(text) or conflict_markers(text):
        return f"<pre><code>{html.escape(text, quote=False)}</code></pre>"
    fence = "````" if "```" in text else "```"
    return f"{fence}text\n{text}\n{fence}"


def reference_markdown() -> str:
    """The lint rules reference page as Markdown: the body only, without frontmatter (whoever writes the
    page gives it its own), no first-level heading (a document's title is its frontmatter's). One
    section per rule, in code order: code and name, default severity, summary, explanation, and a bad
    and a good example. The page lints clean in a store: examples that hold what lint reads anywhere
    in a file (a suppression comment, a conflict marker) are written as escaped HTML."""
    return page(list(RULES.values()))
