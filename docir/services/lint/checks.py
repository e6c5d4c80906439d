"""Tier 1 lint: schema, frontmatter, ids, statuses, dates, links, descriptions, freshness.

`docir lint` with no paths reads and checks every document (CI). Given paths (a
pre-commit hook hands over the staged files) only those files are read and checked;
what the cross-document checks need to know of the rest of the store (which paths
carry an id, what replaces a document) comes from the index, kept fresh by the usual
stat walk. So a hook's cost follows the change, not the store (adr-ca887c9c526d).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from docir.documents import frontmatter, globs
from docir.documents.conflicts import conflict_markers, ours
from docir.documents.files import MAX_DOCUMENT_BYTES, decode, read_text
from docir.documents.frontmatter import FrontmatterError, declared_id
from docir.documents.ids import id_prefix
from docir.documents.model import Document, as_date
from docir.documents.scan import Links, link_reason, scan_docs
from docir.errors import InputError
from docir.index.records import Identity
from docir.schema import CORE_REQUIRED, Schema, parsed_schema
from docir.services.indexing.convert import is_archived_path
from docir.services.lint.rules import RULES
from docir.services.lint.template_text import template_only_sections
from docir.services.retrieval.skeleton import is_stale
from docir.store import SCHEMA_FILE, Store

if TYPE_CHECKING:
    from docir.services.lint.staged import Staged

SUPPRESS_RE = re.compile(r"<!--\s*docir:\s*ignore\[([^\]]*)\]\s*-->")
DATE_FIELDS = ("verified", "date")


class FindingJSON(TypedDict):
    path: str
    line: int
    col: int
    code: str
    alias: str
    severity: str
    message: str


class Finding(NamedTuple):
    path: str
    line: int
    col: int
    code: str
    message: str
    severity: str

    @property
    def alias(self) -> str:
        return RULES[self.code].alias

    def as_dict(self) -> FindingJSON:
        return {"path": self.path, "line": self.line, "col": self.col, "code": self.code, "alias": self.alias,
                "severity": self.severity, "message": self.message}


class LintReport:
    """Filled in by the checks, the deep lint and the suppressions in turn. (Plain classes and NamedTuples
    here: a pre-commit lint of one file must not pay for importing dataclasses, docir/requests.py.)"""

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


class Parsed(NamedTuple):
    """One file as lint sees it: its text, and its document if it parsed."""

    path: str
    text: str
    doc: Document | None
    lines: dict[str, int]  # top-level key -> file line
    body_line: int = 1  # the file line the body starts on
    conflicted: bool = False  # `doc` is the first side of a merge conflict: known to the others, not checked


class Suppression:
    __slots__ = ("code", "pair", "line", "used")

    def __init__(self, code: str, pair: str | None, line: int) -> None:
        self.code = code
        self.pair = pair  # DOC030:other-id
        self.line = line
        self.used = False  # set when a finding it names was silenced


class _Collector:
    def __init__(self, severities: dict[str, str]) -> None:
        self.severities = severities
        self.found: list[Finding] = []

    def add(self, path: str, line: int, col: int, code: str, message: str) -> None:
        severity = self.severities.get(code, RULES[code].severity)
        if severity != "off":
            self.found.append(Finding(path, line, col, code, message, severity))


class Facts(NamedTuple):
    """What the checks of one document need to know of the others."""

    by_id: dict[str, list[str]]  # id -> the paths carrying it, in path order
    successors: dict[str, list[str]]  # id -> ids of the active documents that replace it


def lint_store(store: Store, paths: list[str] | None = None, today: dt.date | None = None,
               staged: Staged | None = None) -> tuple[LintReport, Schema | None, dict[str, Parsed]]:
    """Lint the schema and every document, or, given `paths` (store-relative), those documents only,
    or, given `staged`, the documents and schema a commit would hold (`paths` is then ignored)."""
    today = today or dt.date.today()
    if staged is not None:
        return _lint_staged(store, staged, today)
    schema, out = _schema_checked(store, _read(store.schema_path))
    if paths is None:
        disk = scan_docs(store.root, store.docs_dir)
        for path, (size, _) in sorted(disk.items()):
            if size < 0:  # a symlink the walk did not follow (scan.py, adr-7c2e94a0d5b1)
                out.add(path, 1, 1, "DOC024", link_reason(size))
        corpus = _load_corpus(store, sorted(p for p, (size, _) in disk.items() if size >= 0), out)
        facts = None  # check() takes them from the corpus
    else:
        corpus = _load_corpus(store, [p for p in sorted(set(paths)) if _is_document(store, p)], out)
        facts = None if schema is None else _facts_from_index(store, schema, corpus)
    if schema is not None:
        out.found.extend(check(schema, corpus, today, out.severities, facts, _outside_lookup(store)))
    _check_applies_to(store, corpus, out)
    wanted = None if paths is None else set(paths)
    report = LintReport(files=len(corpus))
    report.findings = [f for f in out.found if wanted is None or f.path in wanted]
    return report, schema, corpus


def _schema_checked(store: Store, schema_text: str | None) -> tuple[Schema | None, _Collector]:
    """The schema parsed, and a collector that holds its findings (DOC020) and its severities.

    Through the session's cache: a lint of named files opens a session next, which then finds it parsed."""
    schema, problems = parsed_schema(schema_text, store.schema_cache_path) if schema_text is not None else (None, ())
    out = _Collector(dict(schema.lint.severity) if schema else {})
    if schema_text is None:
        out.add(SCHEMA_FILE, 1, 1, "DOC020", f"{SCHEMA_FILE} is missing or not UTF-8; run 'docir init'")
    for problem in problems:
        out.add(SCHEMA_FILE, problem.line, problem.col, "DOC020", problem.message)
    return schema, out


def _outside_lookup(store: Store) -> Callable[[str], bool]:
    """Whether an id is a document's that a sparse checkout left off disk: it exists in the repository,
    so a link to it is not broken (adr-5d0b7e31c9a6). Git is asked once, at the first link that is
    otherwise broken, and only in a sparse checkout."""
    found: dict[str, str] | None = None

    def outside(doc_id: str) -> bool:
        nonlocal found
        if found is None:
            from docir.services.indexing.checkout import is_sparse, outside_checkout

            found = outside_checkout(store) if is_sparse(store) else {}
        return doc_id in found

    return outside


def _lint_staged(store: Store, staged: Staged,
                 today: dt.date) -> tuple[LintReport, Schema | None, dict[str, Parsed]]:
    """The staged documents, checked against the staged schema and, for the rest of the store, the
    index limited to what git tracks; documents linking to one the commit deletes are checked for
    those links only (adr-b6dd1c2330ab)."""
    schema, out = _schema_checked(store, _decoded(staged.schema) if staged.schema is not None
                                  else _read(store.schema_path))
    texts = {p: data for p, data in staged.texts.items() if _is_document_path(store, p)}
    corpus = _load_corpus(store, sorted(texts), out, texts)
    gone = {declared_id(data) for data in staged.deleted.values()} - {None}
    linkers: set[str] = set()
    if schema is not None:
        facts, linker_ids = _staged_facts(store, schema, corpus, staged, {i for i in gone if i})
        linkers = set(linker_ids)
        if linkers:
            found = {p: staged.read(p) for p in sorted(linkers)}
            corpus.update(_load_corpus(store, sorted(p for p, d in found.items() if d is not None), _Collector({}),
                                       {p: d for p, d in found.items() if d is not None}))
        out.found.extend(check(schema, corpus, today, out.severities, facts, _outside_lookup(store)))
    _check_applies_to(store, {p: v for p, v in corpus.items() if p not in linkers}, out)
    wanted = set(texts) | {SCHEMA_FILE}
    report = LintReport(files=len(corpus) - len(linkers))
    report.findings = [f for f in out.found
                       if f.path in wanted or (f.path in linkers and f.code == "DOC011"
                                               and any(i in f.message for i in gone if i))]
    return report, schema, corpus


def _staged_facts(store: Store, schema: Schema, corpus: Mapping[str, Parsed], staged: Staged,
                  gone: set[str]) -> tuple[Facts, list[str]]:
    """Facts as the commit would have them, and the paths of the documents that link to a deleted id.
    The index knows the working tree: paths git does not track, or that the commit deletes, are left out."""
    from docir.services.indexing import session

    mine = _identities(corpus)
    ids = {d.id for d in mine if d.id} | {target for d in mine for _, target in d.related}
    if not ids and not gone:
        return facts_of(schema, []), []

    def neighbours(s: session.Session) -> tuple[list[Identity], list[Identity]]:
        near = s.catalog.docs.identities(ids, edges_to={d.id for d in mine if d.id}, kinds=schema.successor_kinds)
        linking = s.catalog.docs.identities((), edges_to=gone, kinds=schema.relations) if gone else []
        return near, linking

    near, linking = session.run(store.root, neighbours)
    candidates = {d.path: d for d in near + linking if d.path not in corpus and d.path not in staged.deleted}
    kept = staged.tracked(sorted(candidates))
    others = [d for p, d in candidates.items() if p in kept]
    linkers = sorted({d.path for d in linking if d.path in kept})
    return facts_of(schema, others + mine), linkers


def _decoded(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _is_document_path(store: Store, path: str) -> bool:
    """Whether the walk of docs/ would take this store-relative path for a document, by its name alone."""
    prefix = store.docs_dir.relative_to(store.root).as_posix() + "/"
    return path.startswith(prefix) and path.endswith(".md") and not any(p.startswith(".") for p in path.split("/"))


def _is_document(store: Store, path: str) -> bool:
    """Whether the walk of docs/ would find this store-relative path: a regular `*.md` file below docs/,
    through no dot-folder and only symlinks the walk follows (docir/documents/scan.py walks the same way)."""
    if not _is_document_path(store, path):
        return False
    links: Links | None = None
    chain: frozenset[str] = frozenset()
    current = store.root
    for part in path.split("/"):
        folder, current = current, current / part
        if current.is_symlink():
            if current.parent == store.root or not str(current).startswith(str(store.docs_dir)):
                return False
            links = links or Links(store.root, store.docs_dir)
            verdict, target = links.judge(str(current), str(folder), chain)
            if verdict not in ("file", "dir"):
                return False
            chain |= {target}
    return current.is_file()


def _identities(corpus: Mapping[str, Parsed]) -> list[Identity]:
    return [Identity(p.path, p.doc.id, p.doc.type, p.doc.status, tuple((e.kind, e.target) for e in p.doc.related),
                     is_archived_path(p.path))
            for p in corpus.values() if p.doc is not None]


def facts_of(schema: Schema, documents: list[Identity]) -> Facts:
    """Who carries which id, and which active documents replace which (through a successor edge)."""
    by_id: dict[str, list[str]] = {}
    successors: dict[str, list[str]] = {}
    kinds = schema.successor_kinds
    for doc in sorted(documents):
        if doc.id:
            by_id.setdefault(doc.id, []).append(doc.path)
        spec = schema.type_spec(doc.type)
        if doc.archived or (spec is not None and doc.status in spec.inactive_statuses):
            continue
        for kind, target in doc.related:
            if kind in kinds:
                successors.setdefault(target, []).append(doc.id)
    return Facts(by_id, successors)


def _facts_from_index(store: Store, schema: Schema, corpus: Mapping[str, Parsed]) -> Facts:
    """The facts about the documents being checked, the others taken from the index (after its stat walk):
    the documents carrying their ids or the ids they link to, and those with a successor edge to them."""
    from docir.services.indexing import session

    mine = _identities(corpus)
    if not mine:
        return facts_of(schema, [])
    ids = {d.id for d in mine if d.id} | {target for d in mine for _, target in d.related}

    def neighbours(s: session.Session) -> list[Identity]:
        return s.catalog.docs.identities(ids, edges_to={d.id for d in mine if d.id}, kinds=schema.successor_kinds)

    # Warnings about unreadable files are the checks' findings here, not the walk's messages.
    others = [d for d in session.run(store.root, neighbours) if d.path not in corpus]
    return facts_of(schema, others + mine)


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
        if wanted is not None and path not in wanted:
            continue
        for entry in entries:
            if not entry.used and entry.code in RULES:
                label = entry.code + (f":{entry.pair}" if entry.pair else "")
                kept.append(Finding(path, entry.line, 1, "DOC090", f"ignore[{label}] suppresses nothing", "warning"))
    report.findings = sorted(kept, key=lambda f: (f.path, f.line, f.col, f.code))


def _staged_text(data: bytes, path: str) -> str:
    if len(data) > MAX_DOCUMENT_BYTES:
        raise InputError(f"{Path(path).name} is {len(data) // (1024 * 1024)} MB; documents are limited to "
                         f"{MAX_DOCUMENT_BYTES // (1024 * 1024)} MB, move it out of docs/")
    return decode(data, Path(path).name)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _load_corpus(store: Store, paths: list[str], out: _Collector,
                 texts: Mapping[str, bytes] | None = None) -> dict[str, Parsed]:
    """Parse the documents at `paths`: read from disk, or taken from `texts` (staged bytes) when given."""
    corpus: dict[str, Parsed] = {}
    for path in paths:
        try:
            text = (read_text(store.root / path)[0] if texts is None
                    else _staged_text(texts[path], path))
        except InputError as exc:
            out.add(path, 1, 1, "DOC016", exc.message)
            continue
        except OSError as exc:
            out.add(path, 1, 1, "DOC016", exc.strerror or str(exc))
            continue
        markers = conflict_markers(text)
        if markers:
            for line, marker in markers:
                out.add(path, line, 1, "DOC023", f"unresolved merge conflict marker '{marker}'; keep one side "
                                                 "and delete the marker lines")
            corpus[path] = Parsed(path, text, _first_side(path, text), {}, conflicted=True)
            continue
        try:
            meta, parts = frontmatter.parse(text)
        except FrontmatterError as exc:
            code = "DOC002" if exc.message.startswith(("no frontmatter", "frontmatter is not closed")) else "DOC001"
            out.add(path, exc.line, exc.col, code, exc.message)
            corpus[path] = Parsed(path, text, None, {})
            continue
        corpus[path] = Parsed(path, text, Document(path, meta, parts.body), frontmatter.field_lines(text, parts),
                              parts.body_line)
    return corpus


def _first_side(path: str, text: str) -> Document | None:
    try:
        meta, parts = frontmatter.parse(ours(text))
    except FrontmatterError:
        return None
    return Document(path, meta, parts.body)


def check(schema: Schema, corpus: Mapping[str, Parsed], today: dt.date,
          severities: Mapping[str, str] | None = None, facts: Facts | None = None,
          outside: Callable[[str], bool] = lambda _id: False) -> list[Finding]:
    """The document checks over a parsed corpus (documents only: a reference chunk is not a Parsed); what
    they know of other documents is `facts`, by default the corpus's own, and `outside` tells an id git
    holds off disk (a sparse checkout), asked only for a link that is otherwise broken."""
    out = _Collector(dict(severities or {}))
    facts = facts or facts_of(schema, _identities(corpus))
    for parsed in corpus.values():
        if parsed.doc is not None and not parsed.conflicted:
            _check_one(schema, parsed, facts.by_id, corpus, facts.successors, out, today, outside)
    return out.found


def _check_one(schema: Schema, parsed: Parsed, by_id: dict[str, list[str]], corpus: Mapping[str, Parsed],
               successors: dict[str, list[str]], out: _Collector, today: dt.date,
               outside: Callable[[str], bool]) -> None:
    doc, path, lines = parsed.doc, parsed.path, parsed.lines
    assert doc is not None

    def at(key: str) -> int:
        return lines.get(key, 1)

    spec = schema.type_spec(doc.type)
    required = list(CORE_REQUIRED) + [f for f in (spec.required if spec else ()) if f not in CORE_REQUIRED]
    for name in required:
        value = doc.meta.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            out.add(path, 1, 1, "DOC003", f"missing required field '{name}'"
                    + (f" (required for {doc.type})" if name not in CORE_REQUIRED else ""))
    if doc.id:
        prefix = id_prefix(doc.id)
        if prefix is None:
            out.add(path, at("id"), 1, "DOC004", f"id '{doc.id}' is not <prefix>-<12 lowercase hex>")
        elif spec is not None and prefix != spec.prefix:
            out.add(path, at("id"), 1, "DOC005",
                    f"id '{doc.id}' should start with '{spec.prefix}-' for type {doc.type}")
        others = [p for p in by_id.get(doc.id, []) if p != path]
        if others:
            out.add(path, at("id"), 1, "DOC006", f"id {doc.id} is also used by {', '.join(others)}")
    if doc.type and spec is None:
        out.add(path, at("type"), 1, "DOC007", f"unknown type '{doc.type}'; the schema has: {', '.join(schema.types)}")
    if spec is not None and doc.status and doc.status not in spec.statuses:
        out.add(path, at("status"), 1, "DOC008",
                f"status '{doc.status}' is not allowed for {doc.type}; use one of: {', '.join(spec.statuses)}")
    for key in DATE_FIELDS:
        if key in doc.meta and doc.meta[key] is not None and as_date(doc.meta[key]) is None:
            out.add(path, at(key), 1, "DOC009", f"{key} '{doc.meta[key]}' is not a YYYY-MM-DD date")
    _check_related(schema, parsed, by_id, corpus, out, outside)
    if doc.description:
        size = len(doc.description)
        low, high = schema.lint.description_min, schema.lint.description_max
        if size < low or size > high:
            out.add(path, at("description"), 1, "DOC013",
                    f"description is {size} characters; keep it between {low} and {high}")
    review = doc.meta.get("review")
    if review:
        fields = ", ".join(str(f) for f in review) if isinstance(review, list) else str(review)
        out.add(path, at("review"), 1, "DOC018",
                f"review the fields docir adopt filled in ({fields}), then remove this line")
    archived = is_archived_path(path)
    verified = as_date(doc.meta.get("verified"))
    closed = spec is not None and doc.status in spec.inactive_statuses  # closed documents need no review
    if (not archived and not closed and spec is not None and verified is not None
            and is_stale(schema, doc.type, verified.isoformat(), today)):
        out.add(path, at("verified"), 1, "DOC014",
                f"last verified {verified}, more than {spec.max_age_days} days ago; "
                f"re-read it, then: docir update {doc.id} --verified")
    if not archived:
        for offset, heading in template_only_sections(doc.body):
            out.add(path, parsed.body_line + doc.body.count("\n", 0, offset), 1, "DOC022",
                    f"section '{heading}' holds only template text; write it or delete the heading")
    if not archived and spec is not None and doc.id in successors and doc.status not in spec.inactive_statuses:
        newer = ", ".join(successors[doc.id])
        inactive = ", ".join(sorted(spec.inactive_statuses)) or "an inactive status"
        out.add(path, at("status"), 1, "DOC015",
                f"{newer} replaces this document, but its status is '{doc.status}' (expected one of: {inactive})")


def _check_related(schema: Schema, parsed: Parsed, by_id: dict[str, list[str]], corpus: Mapping[str, Parsed],
                   out: _Collector, outside: Callable[[str], bool]) -> None:
    doc = parsed.doc
    assert doc is not None
    raw = doc.meta.get("related")
    if raw is None:
        return
    start = parsed.lines.get("related", 1)
    if not isinstance(raw, list) or not all(isinstance(i, dict) and len(i) == 1 for i in raw):
        out.add(parsed.path, start, 1, "DOC017", "related must be a list of {kind: target-id} entries")
        return
    text_lines = parsed.text.splitlines()
    for edge in doc.related:
        line = next((n + 1 for n in range(start - 1, len(text_lines)) if edge.target in text_lines[n]), start)
        if edge.kind not in schema.relations:
            out.add(parsed.path, line, 1, "DOC010",
                    f"unknown relation kind '{edge.kind}'; the schema has: {', '.join(schema.relations)}")
        targets = by_id.get(edge.target)
        if not targets:
            if not outside(edge.target):  # off disk in a sparse checkout: no broken link
                out.add(parsed.path, line, 1, "DOC011", f"{edge.kind}: {edge.target} points at no document")
        elif all(is_archived_path(p) for p in targets) and not is_archived_path(parsed.path):
            out.add(parsed.path, line, 1, "DOC012", f"{edge.kind}: {edge.target} is archived ({targets[0]})")


def _check_applies_to(store: Store, corpus: Mapping[str, Parsed], out: _Collector) -> None:
    """Every applies_to glob must be usable and match a file of the repository (DOC021, DOC019)."""
    files: list[str] | None = None  # listed once, and only when some document has applies_to
    for parsed in corpus.values():
        doc = parsed.doc
        if doc is None or parsed.conflicted or globs.FIELD not in doc.meta or is_archived_path(parsed.path):
            continue
        line = parsed.lines.get(globs.FIELD, 1)
        written = globs.as_globs(doc.meta[globs.FIELD])
        if written is None:
            out.add(parsed.path, line, 1, "DOC021", "applies_to must be a glob or a list of globs")
            continue
        for glob in written:
            wrong = globs.problem(glob)
            if wrong is not None:
                out.add(parsed.path, line, 1, "DOC021", f"applies_to: {wrong}")
                continue
            if files is None:
                files = repository_files(store.root)
            if not any(globs.matches(glob, f) for f in files):
                out.add(parsed.path, line, 1, "DOC019",
                        f"applies_to '{glob}' matches no file in the repository; the code it governed may be gone")


def repository_files(root: Path) -> list[str]:
    """The repository's files relative to root: what git tracks or would track, else every file not hidden."""
    try:
        done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=root,
                              capture_output=True, text=True, timeout=60)
        if done.returncode == 0:
            return [p for p in done.stdout.split("\0") if p]
    except (OSError, subprocess.TimeoutExpired):
        pass
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        base = Path(folder).relative_to(root)
        found.extend((base / name).as_posix() for name in names if not name.startswith("."))
    return found


def _suppressions(text: str) -> list[Suppression]:
    entries: list[Suppression] = []
    for match in SUPPRESS_RE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for item in match.group(1).split(","):
            code, _, pair = item.strip().partition(":")
            if code:
                entries.append(Suppression(code.strip().upper(), pair.strip() or None, line))
    return entries
