"""What a lint rule is, what its check is given, and the one way a finding is made.

A rule is declared once, beside its check, with `@rule(...)` (docir/services/lint/rules/):
its code, name, default severity, summary, explanation and a bad and a good example. A
check yields (path, line, col, message) hits and never names a code; `Collector.run` turns
them into findings of that rule, so no finding can carry a code that no rule documents
(adr-8138eb74f7af). Plain classes, and a NamedTuple for the finding: a pre-commit lint of one
file pays for no dataclasses and no class it can do without (adr-d5e80517405b).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, ParamSpec, TypedDict

from docir.services.indexing.convert import is_archived_path

if TYPE_CHECKING:
    from docir.documents.model import Document, Edge
    from docir.schema import Schema, TypeSpec


class FindingJSON(TypedDict):
    """One finding as `docir lint --format json` prints it (defined at run time: the reference page reads it)."""

    path: str
    line: int
    col: int
    code: str
    alias: str
    severity: str
    message: str


P = ParamSpec("P")
Hit = tuple[str, int, int, str]  # path, line, col, message: what a check yields
SEVERITIES = ("error", "warning")


class Finding(NamedTuple):
    """One finding of one rule. Made only by `Rule.findings` (a test walks the code for others)."""

    path: str
    line: int
    col: int
    code: str
    message: str
    severity: str

    @property
    def alias(self) -> str:
        return REGISTRY[self.code].name

    def as_dict(self) -> FindingJSON:
        return {"path": self.path, "line": self.line, "col": self.col, "code": self.code, "alias": self.alias,
                "severity": self.severity, "message": self.message}


class LintReport:
    """Filled in by the checks, the deep lint and the suppressions in turn. (Plain classes and NamedTuples
    here: a pre-commit lint of one file must not pay for importing dataclasses, docir/request_options.py.)"""

    __slots__ = ("findings", "files", "semantic")

    def __init__(self, files: int = 0) -> None:
        self.findings: list[Finding] = []
        self.files = files
        self.semantic: str | None = None  # set by the deep lint

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")


class Rule(Generic[P]):
    """A lint rule: its documentation and its check, which takes what its stage of the lint hands it."""

    __slots__ = ("code", "name", "severity", "summary", "explanation", "bad", "good", "check")

    def __init__(self, code: str, name: str, severity: str, summary: str, explanation: str, bad: str, good: str,
                 check: Callable[P, Iterable[Hit]]) -> None:
        self.code = code  # DOC014: stable, what suppressions and docs-schema.yaml lint.severity name
        self.name = name  # stale: the alias `docir rule` also takes
        self.severity = severity  # the default; docs-schema.yaml lint.severity may override it, or turn it off
        self.summary = summary
        self.explanation = explanation
        self.bad = bad  # an example that the rule reports
        self.good = good  # the same example, fixed
        self.check = check

    @property
    def alias(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<Rule {self.code} {self.name}>"

    def severity_in(self, severities: Mapping[str, str]) -> str:
        """This rule's severity under a schema's lint.severity: error, warning or off."""
        return severities.get(self.code, self.severity)

    def findings(self, severity: str, *args: P.args, **kwargs: P.kwargs) -> Iterator[Finding]:
        """Run the check and make its hits findings of this rule, at `severity`."""
        for path, line, col, message in self.check(*args, **kwargs):
            yield Finding(path, line, col, self.code, message, severity)


# Every rule by code, in the order the rule modules declare them; docir/services/lint/rules/ imports them all.
REGISTRY: dict[str, Rule[Any]] = {}


def rule(code: str, name: str, severity: str, summary: str, explanation: str, *, bad: str,
         good: str) -> Callable[[Callable[P, Iterable[Hit]]], Rule[P]]:
    """Declare the decorated check a rule. Raises ValueError for a malformed, taken or unknown field,
    at import, so a rule that could not be documented or named never runs."""

    def declare(check: Callable[P, Iterable[Hit]]) -> Rule[P]:
        if len(code) != 6 or not code.startswith("DOC") or not code[3:].isdigit():
            raise ValueError(f"rule code {code!r} is not DOC followed by three digits")
        if severity not in SEVERITIES:
            raise ValueError(f"rule {code}: severity {severity!r} is not one of {SEVERITIES}")
        taken = [r for r in REGISTRY.values() if code == r.code or name == r.name]
        if taken:
            raise ValueError(f"rule {code} {name}: code or name taken by {taken[0].code} {taken[0].name}")
        if not (name and summary and explanation and bad and good):
            raise ValueError(f"rule {code}: name, summary, explanation and both examples are required")
        declared = Rule(code, name, severity, summary, explanation, bad, good, check)
        REGISTRY[code] = declared
        return declared

    return declare


class Collector:
    """The findings of a lint so far, at the severities the schema sets."""

    __slots__ = ("severities", "found")

    def __init__(self, severities: Mapping[str, str]) -> None:
        self.severities = severities
        self.found: list[Finding] = []

    def run(self, rule: Rule[P], *args: P.args, **kwargs: P.kwargs) -> None:
        """Run `rule`'s check on `args` unless the schema turns the rule off."""
        severity = rule.severity_in(self.severities)
        if severity != "off":
            self.found.extend(rule.findings(severity, *args, **kwargs))


class Parsed:
    """One file as lint sees it: its text, and its document if it parsed."""

    __slots__ = ("path", "text", "doc", "lines", "body_line", "conflicted", "in_place")

    def __init__(self, path: str, text: str, doc: Document | None, lines: dict[str, int], body_line: int = 1,
                 conflicted: bool = False, in_place: bool = False) -> None:
        self.path = path
        self.text = text
        self.doc = doc
        self.lines = lines  # top-level key -> file line
        self.body_line = body_line  # the file line the body starts on
        self.conflicted = conflicted  # `doc` is the first side of a merge conflict: known to the others, not checked
        # `doc` is a record read in place (adr-0c5e2d8f1a47): its id, title, description and status are derived
        # from what its format states, so the rules on fields the format has no place for leave it alone.
        self.in_place = in_place


class Facts:
    """What the checks of one document need to know of the others."""

    __slots__ = ("by_id", "successors")

    def __init__(self, by_id: dict[str, list[str]], successors: dict[str, list[str]]) -> None:
        self.by_id = by_id  # id -> the paths carrying it, in path order
        self.successors = successors  # id -> ids of the active documents that replace it


class Subject:
    """One parsed document as a per-document rule sees it, with what the lint knows of the others.
    `outside` tells an id git holds off disk (a sparse checkout), asked only for a link otherwise broken."""

    __slots__ = ("schema", "parsed", "doc", "path", "spec", "facts", "today", "outside", "_edges")

    def __init__(self, schema: Schema, parsed: Parsed, doc: Document, facts: Facts, today: dt.date,
                 outside: Callable[[str], bool]) -> None:
        self.schema = schema
        self.parsed = parsed
        self.doc = doc
        self.path = parsed.path
        self.spec: TypeSpec | None = schema.type_spec(doc.type)
        self.facts = facts
        self.today = today
        self.outside = outside
        self._edges: list[tuple[Edge, int]] | None = None

    def at(self, key: str) -> int:
        """The file line of a top-level frontmatter key (1, the opening '---', when it is absent)."""
        return self.parsed.lines.get(key, 1)

    @property
    def archived(self) -> bool:
        return is_archived_path(self.path)

    @property
    def closed(self) -> bool:
        """Whether its status is one of its type's inactive ones."""
        return self.spec is not None and self.doc.status in self.spec.inactive_statuses

    def related_is_malformed(self) -> bool:
        raw = self.doc.meta.get("related")
        return raw is not None and not (isinstance(raw, list) and all(isinstance(i, dict) and len(i) == 1
                                                                       for i in raw))

    def edges(self) -> list[tuple[Edge, int]]:
        """Each related entry with the file line naming its target; none when related is malformed (DOC017)."""
        if self._edges is None:
            self._edges = []
            if self.doc.meta.get("related") is not None and not self.related_is_malformed():
                start = self.at("related")
                text_lines = self.parsed.text.splitlines()
                for edge in self.doc.related:
                    line = next((n + 1 for n in range(start - 1, len(text_lines)) if edge.target in text_lines[n]),
                                start)
                    self._edges.append((edge, line))
        return self._edges
