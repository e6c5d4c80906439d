"""How right `docir adopt` is on real ADR folders, against hand-checked truth.

    python -m benchmarks.adopt_folders [--truth PATH] [--folders a,b] [--verbose] [--no-check] [--keep]

The folders and their truth are ../shared/benchdata/adr-folders/ (six real ADR folders,
173 ADRs: adr-tools/Nygard, MADR 2-4, log4brains, a status-table format; truth.yaml says
what a careful reader finds in each file). `--truth PATH` takes any folder set with a truth
file in the same schema, each folder beside it (`<truth dir>/<folder>`, or its `path:`); a
truth file may also give a file's `number` and a `description_hint` (the words its
description should start with), and they are checked where given.

For each folder: a temporary git repository (`git init`, an identity, `docir init`), the
folder copied to `docs/adr/` and committed, then `docir adopt docs/adr --dry-run --json`
(every file must stay byte-identical), `docir adopt docs/adr --json`, `docir lint --format
json`, and one `docir context "<title>" --json --no-refs --budget 0` per superseded ADR,
each a `python -m docir` process with DOCIR_WORKER=0, no model (ranking by words; `--model`
to use the installed one) and no vector vault. What adopt did is read from the files on
disk; its JSON is used only to find a file adopt moved. Per folder:

    exit     adopt's exit code; `crash` counts exit 3, a signal, a timeout or a traceback (of adopt or its dry run)
    status   adopted `status` == truth status, over ADRs whose truth states one
    non-acc  the same over the superseded, deprecated and rejected ones
    links    supersede pairs recovered: the newer file's `related` holds {supersedes: <older's id>}
             (or the older's holds {superseded-by: <newer's id>}); `wrong`: supersede edges not in truth
    titles   adopted `title` == truth title (leniently where the truth's title is not the file's own:
             case, punctuation and spacing ignored, or one containing the other)
    descr    descriptions the judge (judge_description) accepts
    dates    adopted `date` == truth date, as ISO text, where truth has one
    numbers  adopted `number` == truth number, where truth has one
    lost     lines of an original body missing, reordered or changed after the adopted frontmatter
    keys     original frontmatter keys missing, or changed without being kept as `<key>_original`
    other    templates, READMEs and index pages (truth `kind: other`) that adopt changed at all
    lint     errors in `docir lint --format json`
    current  superseded ADRs that `context` on their own title lists with a status other than superseded
    dry      files that `adopt --dry-run` changed, added or removed

Ratios are counted over the folder's cases, the ALL row over every folder's (not a mean of
means). Prints a table, writes benchmarks/results/adopt_folders.json with every mismatch
(`--verbose` prints them too), and exits 1 with a one-line message when a target is missed
(`--no-check`: report only): status >= 0.97 (>= 0.90 non-accepted), links >= 0.95, titles
1.00, descriptions >= 0.90, dates >= 0.95, and no crash, lost line or key, changed non-ADR,
lint error, superseded ADR ranked as current or file changed by a dry run.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from benchmarks import _harness as harness

NAME = "adopt_folders"
DEFAULT_TRUTH = harness.REPO.parent / "shared" / "benchdata" / "adr-folders" / "truth.yaml"
ADR_DIR = "docs/adr"
NON_ACCEPTED = ("superseded", "deprecated", "rejected")
TRACEBACK = "Traceback (most recent call last)"
FALLBACK_DESCRIPTION = "adopted without a summary"

# ratio targets: (metric, at least); the count targets are all zero
RATIO_TARGETS: tuple[tuple[str, str, float], ...] = (
    ("status", "status fidelity", 0.97),
    ("status_non_accepted", "status fidelity, non-accepted", 0.90),
    ("links", "supersede links recovered", 0.95),
    ("titles", "clean titles", 1.0),
    ("descriptions", "descriptions acceptable", 0.90),
    ("dates", "dates kept", 0.95),
)
ZERO_TARGETS: tuple[tuple[str, str], ...] = (
    ("crash", "adopt crashes"),
    ("lost_lines", "lost body lines"),
    ("lost_keys", "lost frontmatter keys"),
    ("non_adr_changed", "non-ADR files changed"),
    ("lint_errors", "lint errors after adopt"),
    ("superseded_current", "superseded ADRs ranked as current"),
    ("dry_run_changed", "files changed by --dry-run"),
)
RATIOS = ("status", "status_non_accepted", "links", "titles", "descriptions", "dates", "numbers")
COUNTS = ("crash", "links_wrong", "lost_lines", "lost_keys", "non_adr_changed", "lint_errors",
          "superseded_current", "dry_run_changed")


# --- the truth ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TruthFile:
    file: str
    kind: str  # adr | other
    title: str | None = None
    lenient_title: bool = False  # the truth's title is not the file's own (title_source)
    status: str | None = None
    status_original: str | None = None
    date: str | None = None
    superseded_by: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    number: int | None = None
    description_hint: str | None = None


@dataclass(frozen=True)
class TruthFolder:
    name: str
    path: Path
    files: tuple[TruthFile, ...]
    format: str = ""

    def adrs(self) -> list[TruthFile]:
        return [f for f in self.files if f.kind == "adr"]

    def pairs(self) -> set[tuple[str, str]]:
        """(older, newer) file pairs: each superseded_by and each supersedes the files state."""
        found: set[tuple[str, str]] = set()
        for entry in self.files:
            found.update((entry.file, newer) for newer in entry.superseded_by)
            found.update((older, entry.file) for older in entry.supersedes)
        return found


def iso(value: object) -> str | None:
    """A date as YYYY-MM-DD text, whether YAML loaded it as a date or a string; None for none."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value).strip()


def _names(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    raise harness.BenchmarkError(f"truth: expected a file name or a list of them, got {value!r}")


def _truth_file(raw: dict[str, Any]) -> TruthFile:
    number = raw.get("number")
    title = raw.get("title")
    hint = raw.get("description_hint")
    return TruthFile(
        file=str(raw["file"]), kind=str(raw.get("kind", "adr")), title=None if title is None else str(title),
        lenient_title=bool(raw.get("title_source")), status=raw.get("status"),
        status_original=None if raw.get("status_original") is None else str(raw["status_original"]),
        date=iso(raw.get("date")), superseded_by=_names(raw.get("superseded_by")),
        supersedes=_names(raw.get("supersedes")), number=None if number is None else int(number),
        description_hint=None if hint is None else str(hint))


def load_truth(path: Path) -> list[TruthFolder]:
    """The folders a truth file describes, each found beside it."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise harness.BenchmarkError(f"cannot read the truth file {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("folders"), list):
        raise harness.BenchmarkError(f"{path}: no `folders:` list")
    folders = []
    for raw in data["folders"]:
        name = str(raw["folder"])
        files = tuple(_truth_file(entry) for entry in raw.get("files") or [])
        folders.append(TruthFolder(name, path.parent / str(raw.get("path", name)), files, str(raw.get("format", ""))))
    return folders


# --- reading a file -------------------------------------------------------------------------------

# Blank lines above the opening `---` do not make it something else (the truth reads such a block as frontmatter).
_OPEN_RE = re.compile(r"\A(?:[ \t]*\r?\n)*---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(the YAML between the opening and closing `---`, or None when there is none; the body after it).
    A leading BOM is dropped: adopt may put its frontmatter before or after one."""
    text = text.removeprefix("\ufeff")
    opening = _OPEN_RE.match(text)
    if opening is None:
        return None, text
    closing = _CLOSE_RE.search(text, opening.end())
    if closing is None:
        return None, text
    return text[opening.end():closing.start()], text[closing.end():]


def _mapping(yaml_text: str | None, loader: type[yaml.SafeLoader] | type[yaml.BaseLoader]) -> dict[str, Any] | None:
    if yaml_text is None:
        return {}
    try:
        data = yaml.load(yaml_text, Loader=loader)
    except yaml.YAMLError:
        return None
    if data is None:
        return {}
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else None


@dataclass(frozen=True)
class Doc:
    """One file as read: its bytes, frontmatter (typed, and as written: every scalar a string), body."""

    data: bytes
    meta: dict[str, Any] | None  # None: the frontmatter is not a YAML mapping
    raw: dict[str, Any] | None  # yaml.BaseLoader: `0032` stays "0032", `"accepted"` is "accepted"
    body: str
    has_frontmatter: bool

    @classmethod
    def read(cls, path: Path) -> Doc | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        return cls.parse(data)

    @classmethod
    def parse(cls, data: bytes) -> Doc:
        text = data.decode("utf-8", errors="surrogateescape")
        yaml_text, body = split_frontmatter(text)
        return cls(data, _mapping(yaml_text, yaml.SafeLoader), _mapping(yaml_text, yaml.BaseLoader), body,
                   yaml_text is not None)

    def get(self, key: str) -> Any:
        return (self.meta or {}).get(key)


# --- the judges -----------------------------------------------------------------------------------

_CODE_SPAN_RE = re.compile(r"`+[^`]*`+")
_SENTENCE_END_RE = re.compile(r"[.!?][\"'\u201d\u2019)\]\u00bb*_]*$")
_HEADING_RE = re.compile(r"(?m)^\s*#{1,6}(?:\s|$)")
_LIST_RE = re.compile(r"\s*(?:[-*+\u2022]|\d{1,3}[.)])\s")
_INLINE_LINK_RE = re.compile(r"\[[^\]]*\]\([^)]*\)")
_REF_LINK_RE = re.compile(r"\[[^\]]+\]\[[^\]]*\]")
_HTML_RE = re.compile(r"<!--|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_METADATA_RE = re.compile(
    r"\s*(?:\*\*[^*\n]+\*\*\s*:|\*\*[^*\n]+:\*\*|__[^_\n]+__\s*:|"
    r"(?:status|date|deciders?|decision[- ]makers?|authors?|author\(s\)|tags|technical story|consulted|informed|"
    r"parent requirement|supersedes|superseded[- ]by|nav_order|parent)\s*:)", re.IGNORECASE)


def normal(text: str) -> str:
    """Case folded, punctuation and runs of spaces as one space: the lenient form of titles and hints."""
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


def judge_description(description: object, title: object = None, hint: str | None = None) -> list[str]:
    """Why a description is not acceptable; [] when it is.

    Acceptable: 20-400 characters of whole sentences (the last ends with . ! or ?, a closing quote
    or bracket allowed after it; not with a colon, an ellipsis or mid-word), with no Markdown
    heading, no list marker at the start, no table pipe, no more than one link, no HTML tag, no
    `{` placeholder, not a metadata line (`**Key**: ...`, `Status: ...`), not docir's fallback
    text, not the title again, and starting with `hint` when one is given. Inline code spans are
    left out of the pipe, tag and brace checks.
    """
    if not isinstance(description, str) or not description.strip():
        return ["missing"]
    text = description.strip()
    prose = _CODE_SPAN_RE.sub("code", text)
    reasons = []
    if len(text) < 20:
        reasons.append(f"too short ({len(text)} characters)")
    if len(text) > 400:
        reasons.append(f"too long ({len(text)} characters)")
    if text.endswith(("\u2026", "...")):
        reasons.append("ends with an ellipsis")
    elif text.endswith(":"):
        reasons.append("ends with a colon")
    elif not _SENTENCE_END_RE.search(text):
        reasons.append("does not end a sentence")
    if _HEADING_RE.search(text):
        reasons.append("a Markdown heading")
    if _LIST_RE.match(text):
        reasons.append("starts with a list marker")
    if "|" in prose:
        reasons.append("a table pipe")
    if len(_INLINE_LINK_RE.findall(text)) + len(_REF_LINK_RE.findall(text)) > 1:
        reasons.append("a list of links")
    if _HTML_RE.search(prose):
        reasons.append("an HTML tag")
    if "{" in prose:
        reasons.append("a placeholder")
    if _METADATA_RE.match(text):
        reasons.append("a metadata line")
    if FALLBACK_DESCRIPTION in text.casefold():
        reasons.append("docir's fallback text")
    if isinstance(title, str) and normal(title) and normal(text) == normal(title):
        reasons.append("repeats the title")
    if hint and not normal(text).startswith(normal(hint)):
        reasons.append(f"does not start with {hint!r}")
    return reasons


def title_matches(got: object, want: str, lenient: bool) -> bool:
    """Exact, or with `lenient` the same words (case, punctuation and spacing aside) or one within the other."""
    if not isinstance(got, str):
        return False
    if got == want:
        return True
    if not lenient:
        return False
    a, b = f" {normal(got)} ", f" {normal(want)} "  # whole words within each other
    return bool(a.strip() and b.strip()) and (a in b or b in a)


def lost_lines(original: str, adopted: str) -> list[tuple[int, str]]:
    """The lines of `original` (1-based number, text) that do not appear, in order and unchanged, in
    `adopted`: those outside a longest common subsequence of the two lists of lines."""
    a, b = original.split("\n"), adopted.split("\n")
    # the common case: every original line is found in order
    position = 0
    for line in a:
        try:
            position = b.index(line, position) + 1
        except ValueError:
            break
    else:
        return []
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    # lengths[i][j]: the longest common subsequence of mid_a[i:] and mid_b[j:]
    lengths = [[0] * (len(mid_b) + 1) for _ in range(len(mid_a) + 1)]
    for i in range(len(mid_a) - 1, -1, -1):
        row, below = lengths[i], lengths[i + 1]
        for j in range(len(mid_b) - 1, -1, -1):
            row[j] = below[j + 1] + 1 if mid_a[i] == mid_b[j] else max(below[j], row[j + 1])
    lost, i, j = [], 0, 0
    while i < len(mid_a):
        if j < len(mid_b) and mid_a[i] == mid_b[j]:
            i, j = i + 1, j + 1
        elif j < len(mid_b) and lengths[i][j + 1] >= lengths[i + 1][j]:
            j += 1
        else:
            lost.append((head + i + 1, mid_a[i]))
            i += 1
    return lost


def lost_keys(original: dict[str, Any], adopted: dict[str, Any]) -> list[str]:
    """Original frontmatter keys (as written: yaml.BaseLoader) absent from the adopted frontmatter, or
    holding another value there with the original nowhere as `<key>_original`."""
    return [key for key, value in original.items()
            if adopted.get(key) != value and adopted.get(f"{key}_original") != value]


def related_edges(meta: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(kind, target id) of every item of `related`: `{kind: id}` (or a list of ids), or `{kind:, id:}`."""
    items = (meta or {}).get("related")
    found: list[tuple[str, str]] = []
    if not isinstance(items, list):
        return found
    for item in items:
        if not isinstance(item, dict):
            continue
        if "kind" in item and ("id" in item or "target" in item):
            found.append((str(item["kind"]), str(item.get("id", item.get("target")))))
            continue
        for kind, target in item.items():
            for one in target if isinstance(target, list) else [target]:
                found.append((str(kind), str(one)))
    return found


# --- scoring one folder ---------------------------------------------------------------------------


@dataclass
class Ratio:
    hit: int = 0
    total: int = 0

    def add(self, ok: bool) -> bool:
        self.hit += int(ok)
        self.total += 1
        return ok

    def value(self) -> float | None:
        return self.hit / self.total if self.total else None

    def json(self) -> dict[str, Any]:
        value = self.value()
        return {"hit": self.hit, "total": self.total, "ratio": None if value is None else round(value, 4)}


@dataclass
class Runs:
    """What the processes of one folder reported: adopt's exit, what the dry run changed, lint's
    findings, and the `context` results for each superseded ADR (a string when context failed)."""

    adopt_code: int | None = 0
    adopt_crashed: bool = False
    adopt_error: str = ""
    moved: dict[str, str] = field(default_factory=dict)  # original file -> store-relative path, from adopt's JSON
    dry_run_code: int | None = 0
    dry_run_error: str = ""  # set when the dry run crashed
    dry_run_changed: list[str] = field(default_factory=list)
    lint_findings: list[dict[str, Any]] | None = field(default_factory=list)  # None: no JSON from lint
    lint_error: str = ""
    contexts: dict[str, list[dict[str, Any]] | str] = field(default_factory=dict)


@dataclass
class Score:
    name: str
    adrs: int
    ratios: dict[str, Ratio] = field(default_factory=lambda: {key: Ratio() for key in RATIOS})
    counts: dict[str, int | None] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    adopt_code: int | None = 0
    details: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    error: str = ""

    def note(self, kind: str, **what: Any) -> None:
        self.details.setdefault(kind, []).append(what)

    def bump(self, key: str, by: int = 1) -> None:
        self.counts[key] = (self.counts[key] or 0) + by

    def json(self) -> dict[str, Any]:
        return {"adrs": self.adrs, "adopt_exit": self.adopt_code, "error": self.error or None,
                **{key: ratio.json() for key, ratio in self.ratios.items()}, **self.counts, "details": self.details}


def score_folder(truth: TruthFolder, original: Path, adopted: Path, runs: Runs, *, root: Path | None = None) -> Score:
    """Every metric of one folder: `original` holds the files as they were, `adopted` the folder after
    adopt (`root`, the store, resolves the paths adopt's JSON and `context` report; default adopted's
    grandparent, as for docs/adr)."""
    root = adopted.parent.parent if root is None else root
    score = Score(truth.name, len(truth.adrs()), adopt_code=runs.adopt_code)
    score.counts["crash"] = int(runs.adopt_crashed) + int(bool(runs.dry_run_error))
    if runs.adopt_crashed or runs.adopt_code:
        score.note("adopt", exit=runs.adopt_code, error=runs.adopt_error[-2000:])
    if runs.dry_run_error:
        score.note("adopt_dry_run", exit=runs.dry_run_code, error=runs.dry_run_error[-2000:])
    score.counts["dry_run_changed"] = len(runs.dry_run_changed)
    for path in runs.dry_run_changed:
        score.note("dry_run_changed", file=path, exit=runs.dry_run_code)

    def rel(file: str) -> str:
        return f"{adopted.relative_to(root).as_posix()}/{file}" if adopted.is_relative_to(root) else file

    docs: dict[str, Doc | None] = {}
    paths: dict[str, str] = {}
    for entry in truth.files:
        where = adopted / entry.file
        paths[entry.file] = rel(entry.file)
        if not where.exists() and entry.file in runs.moved:  # adopt moved it: its JSON says where
            where, paths[entry.file] = root / runs.moved[entry.file], runs.moved[entry.file]
        docs[entry.file] = Doc.read(where)
    ids = {file: doc.get("id") for file, doc in docs.items() if doc is not None and isinstance(doc.get("id"), str)}
    file_of = {doc_id: file for file, doc_id in ids.items()}

    for entry in truth.files:
        before = Doc.read(original / entry.file)
        after = docs[entry.file]
        if before is None:
            score.note("truth_without_file", file=entry.file)
            continue
        if entry.kind != "adr":
            if after is None or after.data != before.data:
                score.bump("non_adr_changed")
                score.note("non_adr_changed", file=entry.file, gone=after is None,
                           id=None if after is None else after.get("id"))
            continue
        _score_adr(score, entry, before, after)

    _score_links(score, truth, docs, ids, file_of)
    _score_lint(score, runs)
    _score_context(score, truth, runs, ids, paths)
    return score


def _score_adr(score: Score, entry: TruthFile, before: Doc, after: Doc | None) -> None:
    r = score.ratios
    got: dict[str, Any] = {} if after is None or after.meta is None else after.meta
    if entry.status is not None:
        ok = r["status"].add(got.get("status") == entry.status)
        if entry.status in NON_ACCEPTED:
            r["status_non_accepted"].add(ok)
        if not ok:
            score.note("status", file=entry.file, got=got.get("status"), want=entry.status,
                       original=entry.status_original)
    if entry.title is not None and not r["titles"].add(title_matches(got.get("title"), entry.title,
                                                                     entry.lenient_title)):
        score.note("titles", file=entry.file, got=got.get("title"), want=entry.title)
    reasons = judge_description(got.get("description"), entry.title, entry.description_hint)
    if not r["descriptions"].add(not reasons):
        score.note("descriptions", file=entry.file, got=got.get("description"), why=reasons)
    if entry.date is not None and not r["dates"].add(iso(got.get("date")) == entry.date):
        score.note("dates", file=entry.file, got=iso(got.get("date")), want=entry.date)
    if entry.number is not None:
        number = got.get("number")
        if not r["numbers"].add(type(number) is int and number == entry.number):
            score.note("numbers", file=entry.file, got=number, want=entry.number)
    if after is None:
        lines = [(n, line) for n, line in enumerate(before.body.split("\n"), 1)]
        keys = list((before.raw or {}).keys())
    else:
        lines = lost_lines(before.body, after.body)
        keys = lost_keys(before.raw or {}, after.raw or {}) if before.has_frontmatter else []
    if lines:
        score.bump("lost_lines", len(lines))
        score.note("lost_lines", file=entry.file, gone=after is None, lines=[{"line": n, "text": t} for n, t in lines])
    if keys:
        score.bump("lost_keys", len(keys))
        score.note("lost_keys", file=entry.file, keys=keys)


def _score_links(score: Score, truth: TruthFolder, docs: dict[str, Doc | None], ids: dict[str, str],
                 file_of: dict[str, str]) -> None:
    """Recall of the truth's (older, newer) pairs; every other supersede edge is wrong."""
    edges: set[tuple[str, str]] = set()  # (older, newer) as file names, or as ids when no file has the id
    for file, doc in docs.items():
        if doc is None or file not in ids:
            continue
        for kind, target in related_edges(doc.meta):
            other = file_of.get(target, target)
            if kind == "supersedes":
                edges.add((other, file))
            elif kind in ("superseded-by", "superseded_by"):
                edges.add((file, other))
    pairs = truth.pairs()
    for older, newer in sorted(pairs):
        if not score.ratios["links"].add((older, newer) in edges):
            score.note("links_missed", older=older, newer=newer, older_id=ids.get(older), newer_id=ids.get(newer))
    for older, newer in sorted(edges - pairs):
        score.bump("links_wrong")
        score.note("links_wrong", older=older, newer=newer)


def _score_lint(score: Score, runs: Runs) -> None:
    if runs.lint_findings is None:
        score.counts["lint_errors"] = None
        score.note("lint_errors", error=runs.lint_error or "no JSON from lint")
        return
    errors = [f for f in runs.lint_findings if f.get("severity") == "error"]
    score.counts["lint_errors"] = len(errors)
    for code, n in Counter(str(f.get("code")) for f in errors).most_common():
        example = next(f for f in errors if str(f.get("code")) == code)
        score.note("lint_errors", code=code, count=n, example=f"{example.get('path')}: {example.get('message')}")


def _score_context(score: Score, truth: TruthFolder, runs: Runs, ids: dict[str, str], paths: dict[str, str]) -> None:
    for entry in truth.adrs():
        if entry.status != "superseded":
            continue
        found = runs.contexts.get(entry.file, "not run")
        if isinstance(found, str):
            score.bump("superseded_current")
            score.note("superseded_current", file=entry.file, error=found)
            continue
        for rank, hit in enumerate(found, 1):
            same = hit.get("path") == paths[entry.file] or (entry.file in ids and hit.get("id") == ids[entry.file])
            if same and hit.get("status") != "superseded":
                score.bump("superseded_current")
                score.note("superseded_current", file=entry.file, rank=rank, status=hit.get("status"),
                           via=hit.get("via"))
                break


def total(scores: Sequence[Score]) -> Score:
    """The ALL row: the cases of every folder counted together."""
    everything = Score("ALL", sum(s.adrs for s in scores))
    for key in RATIOS:
        everything.ratios[key] = Ratio(sum(s.ratios[key].hit for s in scores), sum(s.ratios[key].total for s in scores))
    for key in COUNTS:
        values = [s.counts[key] for s in scores]
        everything.counts[key] = None if any(v is None for v in values) else sum(v or 0 for v in values)
    everything.adopt_code = None
    return everything


def targets(overall: Score) -> list[dict[str, Any]]:
    """PASS/FAIL/SKIP per target, on the ALL row."""
    found: list[dict[str, Any]] = []
    for key, what, limit in RATIO_TARGETS:
        ratio = overall.ratios[key]
        value = ratio.value()
        if value is None:
            found.append({"name": what, "status": "SKIP", "detail": "no case in these folders", "limit": limit})
            continue
        found.append({"name": what, "status": "PASS" if value >= limit - 1e-9 else "FAIL", "value": round(value, 4),
                      "limit": limit, "detail": f"{value:.3f} ({ratio.hit}/{ratio.total}), target >= {limit:.2f}"})
    for key, what in ZERO_TARGETS:
        count = overall.counts[key]
        if count is None:
            found.append({"name": what, "status": "FAIL", "value": None, "limit": 0, "detail": "not measured"})
        else:
            found.append({"name": what, "status": "PASS" if count == 0 else "FAIL", "value": count, "limit": 0,
                          "detail": f"{count}, target 0"})
    return found


COLUMNS: list[harness.Column] = [
    ("folder", ""), ("ADRs", "d"), ("exit", ">"), ("crash", "d"), ("status", ".2f"), ("non-acc", ".2f"),
    ("links", ".2f"), ("wrong", "d"), ("titles", ".2f"), ("descr", ".2f"), ("dates", ".2f"), ("numbers", ".2f"),
    ("lost", "d"), ("keys", "d"), ("other", "d"), ("lint", "d"), ("current", "d"), ("dry", "d")]


def row(score: Score) -> list[object]:
    r, c = score.ratios, score.counts
    exit_text = "-" if score.name == "ALL" else ("none" if score.adopt_code is None else str(score.adopt_code))
    if score.error:
        exit_text = "setup"
    return [score.name, score.adrs, exit_text, c["crash"], r["status"].value(), r["status_non_accepted"].value(),
            r["links"].value(), c["links_wrong"], r["titles"].value(), r["descriptions"].value(), r["dates"].value(),
            r["numbers"].value(), c["lost_lines"], c["lost_keys"], c["non_adr_changed"], c["lint_errors"],
            c["superseded_current"], c["dry_run_changed"]]


def detail_lines(scores: Iterable[Score]) -> list[str]:
    """--verbose: every mismatch, folder by folder."""
    lines: list[str] = []
    for score in scores:
        if score.error:
            lines.append(f"\n{score.name}: not measured: {score.error}")
        for kind, items in score.details.items():
            lines.append(f"\n{score.name}: {kind} ({len(items)})")
            for item in items:
                if kind == "status":
                    lines.append(f"  {item['file']}: got {item['got']!r}, want {item['want']!r} "
                                 f"(original {item['original']!r})")
                elif kind == "lost_lines":
                    shown = "; ".join(f"{x['line']}: {x['text'][:60]!r}" for x in item["lines"][:3])
                    more = f" (+{len(item['lines']) - 3} more)" if len(item["lines"]) > 3 else ""
                    lines.append(f"  {item['file']}: {len(item['lines'])} lost: {shown}{more}")
                else:
                    lines.append("  " + ", ".join(f"{k}={_short(v)}" for k, v in item.items()))
    return lines


def _short(value: object, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --- running docir in a folder --------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One process: its exit code (None when it did not finish: a timeout, or it could not start)."""

    code: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def crashed(self) -> bool:
        return self.code is None or self.code == 3 or self.code < 0 or TRACEBACK in self.stdout + self.stderr

    def json(self) -> Any:
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None

    def why(self) -> str:
        code = "did not finish" if self.code is None else f"exit {self.code}"
        return f"{code}: {(self.stderr or self.stdout).strip()[-1500:]}"


def call(argv: Sequence[str], cwd: Path, env: dict[str, str], timeout: float) -> Outcome:
    started = time.perf_counter()
    try:
        proc = subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
        return Outcome(None, out, f"timed out after {timeout:.0f} s", time.perf_counter() - started)
    except OSError as exc:
        return Outcome(None, "", str(exc), time.perf_counter() - started)
    return Outcome(proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"),
                   time.perf_counter() - started)


def docir_env(with_model: bool) -> dict[str, str]:
    """git_env (DOCIR_WORKER=0, a fixed git identity), no vector vault and, unless `with_model`, no model."""
    env = harness.git_env()
    env["DOCIR_VECTORS"] = "off"
    if not with_model:
        harness.NO_MODEL.mkdir(parents=True, exist_ok=True)
        env["DOCIR_MODEL_PATH"] = str(harness.NO_MODEL)
    return env


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the store a person would commit: not .git/, not .docir/'s derived files."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or rel.startswith(".git/"):
            continue
        if rel.startswith(".docir/") and rel not in (".docir/stores.yaml", ".docir/.gitignore"):
            continue
        found[rel] = path.read_bytes()
    return found


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return sorted(rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel))


def copy_writable(source: Path, target: Path) -> None:
    """The folder's files (read-only in the shared data) as writable copies."""
    shutil.copytree(source, target, copy_function=shutil.copyfile)
    for path in [target, *target.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


@dataclass(frozen=True)
class Settings:
    docir: tuple[str, ...]  # the command that runs docir
    env: dict[str, str]
    timeout: float


def adopt_folder(truth: TruthFolder, repo: Path, settings: Settings, log: Callable[[str], None]) -> Score:
    """Build the store at `repo`, run adopt and the checks after it, score what is on disk."""
    env, timeout = settings.env, settings.timeout

    def docir(*args: str, limit: float = timeout) -> Outcome:
        return call([*settings.docir, *args], repo, env, limit)

    repo.mkdir(parents=True)
    for argv in (["git", "init", "-q"], ["git", "config", "user.name", "Adopt Bench"],
                 ["git", "config", "user.email", "adopt-bench@example.invalid"],
                 ["git", "config", "commit.gpgsign", "false"]):
        done = call(argv, repo, env, 60)
        if done.code != 0:
            raise harness.BenchmarkError(f"{' '.join(argv)}: {done.why()}")
    init = docir("init", "--json")
    if init.code != 0:
        raise harness.BenchmarkError(f"docir init: {init.why()}")
    target = repo / ADR_DIR
    target.parent.mkdir(parents=True, exist_ok=True)
    copy_writable(truth.path, target)
    for argv in (["git", "add", "-A"], ["git", "commit", "-q", "-m", f"{truth.name} as it was"]):
        done = call(argv, repo, env, 60)
        if done.code != 0:
            raise harness.BenchmarkError(f"{' '.join(argv)}: {done.why()}")

    runs = Runs()
    before = snapshot(repo)
    dry = docir("adopt", ADR_DIR, "--dry-run", "--json")
    runs.dry_run_code = dry.code
    runs.dry_run_changed = changed(before, snapshot(repo))
    log(f"{truth.name}: adopt --dry-run: exit {dry.code} in {dry.seconds:.1f} s, "
        f"{len(runs.dry_run_changed)} files changed")
    if dry.crashed:
        runs.dry_run_error = dry.why()
        log(f"{truth.name}: adopt --dry-run crashed: {dry.why()[:300]}")

    adopt = docir("adopt", ADR_DIR, "--json")
    runs.adopt_code, runs.adopt_crashed = adopt.code, adopt.crashed
    if adopt.code != 0 or adopt.crashed:
        runs.adopt_error = adopt.why()
    log(f"{truth.name}: adopt: exit {adopt.code} in {adopt.seconds:.1f} s" + (" (crash)" if adopt.crashed else ""))
    runs.moved = moved_files(adopt.json(), repo, target)

    lint = docir("lint", "--format", "json")
    report = lint.json()
    if isinstance(report, dict) and isinstance(report.get("findings"), list):
        runs.lint_findings = [f for f in report["findings"] if isinstance(f, dict)]
    else:
        runs.lint_findings, runs.lint_error = None, lint.why()

    for entry in truth.adrs():
        if entry.status != "superseded" or not entry.title:
            continue
        found = docir("context", entry.title, "--json", "--no-refs", "--budget", "0")
        answer = found.json()
        if found.code == 0 and isinstance(answer, dict) and isinstance(answer.get("results"), list):
            runs.contexts[entry.file] = [hit for hit in answer["results"] if isinstance(hit, dict)]
        else:
            runs.contexts[entry.file] = f"context failed: {found.why()[:500]}"
    return score_folder(truth, truth.path, target, runs, root=repo)


def moved_files(report: Any, repo: Path, target: Path) -> dict[str, str]:
    """Original file name -> store-relative path, for the files adopt's JSON says it wrote elsewhere."""
    moved: dict[str, str] = {}
    documents = report.get("documents") if isinstance(report, dict) else None
    for item in documents if isinstance(documents, list) else []:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("source", "path")):
            continue
        source = Path(item["source"])
        source = source if source.is_absolute() else repo / source
        if source.parent.resolve() == target.resolve() and (repo / item["path"]).resolve() != source.resolve():
            moved[source.name] = item["path"]
    return moved


def measure(truth: TruthFolder, settings: Settings, keep: bool, log: Callable[[str], None]) -> Score:
    """One folder in a temporary repository; a folder whose set-up failed is scored as not measured."""
    failure: list[str] = []

    def work(repo: Path, _hooks: Path) -> Score:
        try:
            return adopt_folder(truth, repo, settings, log)
        except harness.BenchmarkError as exc:
            failure.append(str(exc))
            raise
        except OSError as exc:  # copying the folder, reading the store
            failure.append(str(exc))
            raise harness.BenchmarkError(str(exc)) from None

    done = harness.in_temp_repo(f"{NAME}-{truth.name}", keep, work)
    if done is not None:
        return done
    broken = Score(truth.name, len(truth.adrs()), adopt_code=None, error=failure[0] if failure else "set-up failed")
    broken.counts = dict.fromkeys(COUNTS, None)
    return broken


# --- the command ----------------------------------------------------------------------------------


def pick(folders: list[TruthFolder], wanted: str | None) -> list[TruthFolder]:
    if not wanted:
        return folders
    names = [n.strip() for n in wanted.split(",") if n.strip()]
    known = {f.name: f for f in folders}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise harness.BenchmarkError(f"unknown folder {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[n] for n in names]


def main(argv: list[str] | None = None) -> int:
    parser = harness.arguments(NAME, __doc__)
    parser.add_argument("--truth", type=Path, default=DEFAULT_TRUTH,
                        help="truth file; its folders sit beside it (default ../shared/benchdata/adr-folders)")
    parser.add_argument("--folders", help="comma-separated folder names (default: every folder of the truth file)")
    parser.add_argument("--verbose", action="store_true", help="print every mismatch")
    parser.add_argument("--no-check", action="store_true", help="report only: exit 0 even when a target is missed")
    parser.add_argument("--keep", action="store_true", help="keep the temporary repositories")
    parser.add_argument("--model", action="store_true", help="let context rank with the installed model too")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per docir process (default 600)")
    args = parser.parse_args(argv)
    if not args.truth.is_file():
        raise harness.BenchmarkError(f"no truth file at {args.truth} (the folders are in ../shared/benchdata; "
                                     "--truth PATH for another set)")
    folders = pick(load_truth(args.truth), args.folders)
    machine = harness.machine_info()
    settings = Settings(tuple(harness.docir_argv()), docir_env(args.model), args.timeout)
    warnings: list[str] = []
    started = time.perf_counter()
    scores = []
    for folder in folders:
        if not folder.path.is_dir():
            harness.warn_once(NAME, warnings, f"{folder.name}: no folder at {folder.path}")
            continue
        on_disk = {p.relative_to(folder.path).as_posix() for p in folder.path.rglob("*") if p.is_file()}
        untracked = sorted(on_disk - {f.file for f in folder.files})
        if untracked:
            harness.warn_once(NAME, warnings, f"{folder.name}: files with no truth entry: {', '.join(untracked)}")
        scores.append(measure(folder, settings, args.keep, lambda text: print(f"{NAME}: {text}", file=sys.stderr)))
    if not scores:
        raise harness.BenchmarkError("no folder measured")
    for score in scores:
        if score.error:
            harness.warn_once(NAME, warnings, f"{score.name}: not measured: {score.error.splitlines()[0][:300]}")
    overall = total(scores)
    checked = targets(overall)
    head = f"{machine.get('git_head', '?')}" + (" (docir/ modified)" if machine.get("docir_tree_dirty") else "")
    load = machine.get("loadavg_at_start")
    title = [f"docir adopt on {len(scores)} folders, {overall.adrs} ADRs ({args.truth}); docir {head}, "
             f"load {load} on {machine.get('cpus_usable', machine.get('cpu_count'))} CPUs"]
    notes = ["\nstatus/non-acc/titles/descr/dates/numbers/links: share right; wrong, lost, keys, other, lint, current, "
             "dry: counts (see the module docstring); exit: adopt's exit code"]
    if args.verbose:
        notes += detail_lines(scores)
    payload = {"truth": str(args.truth), "folders": {s.name: s.json() for s in scores}, "all": overall.json(),
               "targets": checked, "warnings": warnings, "machine": machine,
               "duration_s": round(time.perf_counter() - started, 1)}
    harness.report(NAME, payload, title=title, columns=COLUMNS, rows=[*map(row, scores), None, row(overall)],
                   notes=notes, out=args.out)
    missed = [t for t in checked if t["status"] == "FAIL"]
    if missed and not args.no_check:
        print(f"{NAME}: {len(missed)} of {len(checked)} targets missed: "
              + "; ".join(f"{t['name']} {t['detail'].split(',')[0]}" for t in missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
