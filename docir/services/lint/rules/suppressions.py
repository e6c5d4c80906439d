"""Inline suppressions (`<!-- docir: ignore[CODE] -->`), and the rule of one that silences nothing."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from docir.services.lint.registry import REGISTRY, Finding, Hit, Parsed, rule

if TYPE_CHECKING:
    from docir.services.lint.registry import LintReport

SUPPRESS_RE = re.compile(r"<!--\s*docir:\s*ignore\[([^\]]*)\]\s*-->")


class Suppression:
    __slots__ = ("code", "pair", "line", "used")

    def __init__(self, code: str, pair: str | None, line: int) -> None:
        self.code = code
        self.pair = pair  # DOC030:other-id
        self.line = line
        self.used = False  # set when a finding it names was silenced


@rule("DOC090", "unused-suppression", "warning", "A docir: ignore comment suppresses nothing.",
      "Remove the comment, or fix its code; stale suppressions hide future findings.",
      bad="verified: 2026-12-01\n---\n\n<!-- docir: ignore[DOC014] -->",
      good="verified: 2026-12-01\n---\n")
def unused_suppression(path: str, entries: Iterable[Suppression]) -> Iterator[Hit]:
    """The suppressions of `path` that silenced no finding, of the codes a rule has (others are not docir's)."""
    for entry in entries:
        if not entry.used and entry.code in REGISTRY:
            label = entry.code + (f":{entry.pair}" if entry.pair else "")
            yield path, entry.line, 1, f"ignore[{label}] suppresses nothing"


def apply_suppressions(report: LintReport, corpus: Mapping[str, Parsed], paths: list[str] | None) -> None:
    """Drop findings an inline `<!-- docir: ignore[CODE] -->` asks to, and report unused ones."""
    suppressions = {path: _suppressions(parsed.text) for path, parsed in corpus.items()}
    kept: list[Finding] = []
    for finding in report.findings:
        entries = suppressions.get(finding.path, [])
        match = next((s for s in entries
                      if s.code == finding.code and (s.pair is None or s.pair in finding.message)), None)
        if match is None:
            kept.append(finding)
        else:
            match.used = True
    wanted = None if paths is None else set(paths)
    for path, entries in sorted(suppressions.items()):
        if wanted is None or path in wanted:
            # Always a warning: the schema's lint.severity does not reach it.
            kept.extend(unused_suppression.findings(unused_suppression.severity, path, entries))
    report.findings = sorted(kept, key=lambda f: (f.path, f.line, f.col, f.code))


def _suppressions(text: str) -> list[Suppression]:
    entries: list[Suppression] = []
    for match in SUPPRESS_RE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for item in match.group(1).split(","):
            code, _, pair = item.strip().partition(":")
            if code:
                entries.append(Suppression(code.strip().upper(), pair.strip() or None, line))
    return entries
