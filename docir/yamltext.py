"""Loading YAML written by people: safe, bounded, and with errors at the line to fix.

Anchors and aliases are refused: a 500-byte "alias bomb" expands to gigabytes,
and a self-referencing alias cannot be stored. Frontmatter and the schema
never need them.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import yaml

# The C loader is several times faster; every command reads YAML.
Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_DATE_RE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")


class YamlProblem(Exception):
    """`line`/`col` are 1-based within the YAML text."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


def load(text: str) -> Any:
    """The YAML value of `text`; raise YamlProblem naming the line to fix."""
    if "&" in text or "*" in text:
        _refuse_aliases(text)
    try:
        return yaml.load(text, Loader=Loader)
    except yaml.MarkedYAMLError as exc:
        raise _problem(exc, text) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"invalid YAML: {exc}", 1, 1) from None
    except (ValueError, TypeError, OverflowError) as exc:
        # Raised while building values, e.g. the date 2026-13-45 or an unhashable key.
        line = _bad_date_line(text)
        raise YamlProblem(f"invalid value: {exc}", line, 1) from None


def _refuse_aliases(text: str) -> None:
    try:
        for token in yaml.scan(text, Loader=Loader):
            if isinstance(token, (yaml.AliasToken, yaml.AnchorToken)):
                mark = token.start_mark
                raise YamlProblem("anchors and aliases (&name, *name) are not allowed; write the value out",
                                  mark.line + 1, mark.column + 1)
    except yaml.MarkedYAMLError as exc:
        raise _problem(exc, text) from None


def _problem(exc: yaml.MarkedYAMLError, text: str) -> YamlProblem:
    tab = _indenting_tab(exc, text)
    if tab is not None:
        # The parser says "found character that cannot start any token", which names neither the
        # tab nor the fix.
        return YamlProblem("invalid YAML: a tab indents this line; YAML does not allow tabs for indentation, "
                           "indent with spaces", *tab)
    line, col = _position(exc)
    return YamlProblem(f"invalid YAML: {exc.problem or exc}", line, col)


def _indenting_tab(exc: yaml.MarkedYAMLError, text: str) -> tuple[int, int] | None:
    """(line, col) of the tab the parser stopped at, when a tab in a line's indentation is the problem."""
    mark = exc.problem_mark
    if mark is None or "\t" not in text:
        return None
    lines = text.split("\n")
    if mark.line >= len(lines):
        return None
    line = lines[mark.line]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if "\t" not in indent or mark.column > len(indent):
        return None
    return mark.line + 1, indent.index("\t") + 1


def _position(exc: yaml.MarkedYAMLError) -> tuple[int, int]:
    # An unclosed flow collection or quote is reported where the parser gave up
    # (often the next line); the line to fix is where it was opened.
    context = exc.context or ""
    unclosed = "flow" in context or "quoted" in context
    mark = (exc.context_mark if unclosed else None) or exc.problem_mark or exc.context_mark
    return (mark.line + 1, mark.column + 1) if mark else (1, 1)


def _bad_date_line(text: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _DATE_RE.finditer(line):
            try:
                dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            except ValueError:
                return number
    return 1
