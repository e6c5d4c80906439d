"""Tier 1 lint: which files are read, and where each rule (docir/services/lint/rules/) runs on them.

`docir lint` with no paths reads and checks every document (CI). Given paths (a
pre-commit hook hands over the staged files) only those files are read and checked;
what the cross-document checks need to know of the rest of the store (which paths
carry an id, what replaces a document) comes from the index, kept fresh by the usual
stat walk. So a hook's cost follows the change, not the store (adr-ca887c9c526d).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from docir.documents import frontmatter
from docir.documents.conflicts import conflict_markers, ours
from docir.documents.files import MAX_DOCUMENT_BYTES, decode, read_text
from docir.documents.frontmatter import FrontmatterError, declared_id
from docir.documents.model import Document
from docir.documents.ownership import Ownership, record_folder
from docir.documents.scan import Links, scan_docs
from docir.errors import InputError
from docir.index.records import Identity
from docir.schema import Schema, parsed_schema, readable_exclude
from docir.services.indexing.convert import is_archived_path, parse_document
from docir.services.lint.registry import Collector, Facts, Finding, LintReport, Parsed, Subject
from docir.services.lint.rules import DOCUMENT_RULES, files, links
from docir.services.lint.rules import frontmatter as frontmatter_rules
from docir.services.lint.rules.suppressions import apply_suppressions
from docir.store import SCHEMA_FILE, Store

if TYPE_CHECKING:
    from docir.services.indexing.caller import Caller
    from docir.services.lint.staged import Staged

# Finding, LintReport, Parsed, Facts and apply_suppressions live beside the rules; callers keep taking them from here.
__all__ = ["Facts", "Finding", "LintReport", "Parsed", "apply_suppressions", "check", "facts_of",
           "lint_store"]


def lint_store(store: Store, caller: Caller, paths: list[str] | None = None, today: dt.date | None = None,
               staged: Staged | None = None) -> tuple[LintReport, Schema | None, dict[str, Parsed]]:
    """Lint the schema and every document, or, given `paths` (store-relative), those documents only,
    or, given `staged`, the documents and schema a commit would hold (`paths` is then ignored).

    A file the schema's exclude list names is no document: never read, never reported (adr-547a50927c6b)."""
    today = today or dt.date.today()
    if staged is not None:
        return _lint_staged(store, caller, staged, today)
    schema_text = _read(store.schema_path)
    schema, out = _schema_checked(store, schema_text)
    owned = ownership(schema, schema_text)
    if paths is None:
        disk = scan_docs(store.root, store.docs_dir, owned=owned)
        out.run(files.unfollowed_symlink, disk)
        corpus = _load_corpus(store, sorted(p for p, (size, _) in disk.items() if size >= 0), out, schema=schema)
        facts = None  # check() takes them from the corpus
    else:
        corpus = _load_corpus(store, [p for p in sorted(set(paths)) if _is_document(store, p, owned)], out,
                              schema=schema)
        facts = None if schema is None else _facts_from_index(store, caller, schema, corpus)
    if schema is not None:
        out.found.extend(check(schema, corpus, today, out.severities, facts, _outside_lookup(store, owned, caller)))
    _check_applies_to(store, corpus, out)
    wanted = None if paths is None else set(paths)
    report = LintReport(files=len(corpus))
    report.findings = [f for f in out.found if wanted is None or f.path in wanted]
    return report, schema, corpus


def ownership(schema: Schema | None, schema_text: str | None) -> Ownership:
    """Which files the store owns, by the schema's exclude list; when the schema is wrong elsewhere, by
    what can be read of that list (its one error is then not buried under the findings of files the
    store does not own)."""
    if schema is not None:
        return Ownership.of(schema)
    return Ownership(readable_exclude(schema_text) if schema_text is not None else ())


def _schema_checked(store: Store, schema_text: str | None) -> tuple[Schema | None, Collector]:
    """The schema parsed, and a collector that holds its findings (DOC020) and its severities.

    Through the session's cache: a lint of named files opens a session next, which then finds it parsed."""
    schema, problems = parsed_schema(schema_text, store.schema_cache_path) if schema_text is not None else (None, ())
    out = Collector(dict(schema.lint.severity) if schema else {})
    out.run(frontmatter_rules.invalid_schema, schema_text, problems)
    return schema, out


def _outside_lookup(store: Store, owned: Ownership, caller: Caller) -> Callable[[str], bool]:
    """Whether an id is a document's that a sparse checkout left off disk: it exists in the repository,
    so a link to it is not broken (adr-5d0b7e31c9a6). Git is asked once, at the first link that is
    otherwise broken, and only in a sparse checkout."""
    found: dict[str, str] | None = None

    def outside(doc_id: str) -> bool:
        nonlocal found
        if found is None:
            from docir.services.indexing.checkout import is_sparse, outside_checkout

            found = outside_checkout(store, caller.settings.env, owned) if is_sparse(store) else {}
        return doc_id in found

    return outside


def _lint_staged(store: Store, caller: Caller, staged: Staged,
                 today: dt.date) -> tuple[LintReport, Schema | None, dict[str, Parsed]]:
    """The staged documents, checked against the staged schema and, for the rest of the store, the
    index limited to what git tracks; documents linking to one the commit deletes are checked for
    those links only (adr-b6dd1c2330ab)."""
    schema_text = _decoded(staged.schema) if staged.schema is not None else _read(store.schema_path)
    schema, out = _schema_checked(store, schema_text)
    owned = ownership(schema, schema_text)
    texts = {p: data for p, data in staged.texts.items() if owned.owns(p)}
    corpus = _load_corpus(store, sorted(texts), out, texts, schema)
    gone = {declared_id(data) for data in staged.deleted.values()} - {None}
    linkers: set[str] = set()
    if schema is not None:
        facts, linker_ids = _staged_facts(store, caller, schema, corpus, staged, {i for i in gone if i})
        linkers = set(linker_ids)
        if linkers:
            found = {p: staged.read(p) for p in sorted(linkers)}
            corpus.update(_load_corpus(store, sorted(p for p, d in found.items() if d is not None), Collector({}),
                                       {p: d for p, d in found.items() if d is not None}, schema))
        out.found.extend(check(schema, corpus, today, out.severities, facts, _outside_lookup(store, owned, caller)))
    _check_applies_to(store, {p: v for p, v in corpus.items() if p not in linkers}, out)
    wanted = set(texts) | {SCHEMA_FILE}
    report = LintReport(files=len(corpus))  # the files linking to a deleted one are checked too, for those links
    report.findings = [f for f in out.found
                       if f.path in wanted or (f.path in linkers and f.code == links.broken_link.code
                                               and any(i in f.message for i in gone if i))]
    return report, schema, corpus


def _staged_facts(store: Store, caller: Caller, schema: Schema, corpus: Mapping[str, Parsed], staged: Staged,
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

    near, linking = session.run(store.root, neighbours, caller=caller)
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


def _is_document(store: Store, path: str, owned: Ownership) -> bool:
    """Whether the walk of docs/ would find this store-relative path: a regular `*.md` file below docs/
    that the exclude list leaves in, through no dot-folder and only symlinks the walk follows
    (docir/documents/scan.py walks the same way)."""
    if not owned.owns(path):
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
        if doc.archived or (spec is not None and not spec.replaces(doc.status)):
            continue
        for kind, target in doc.related:
            if kind in kinds:
                successors.setdefault(target, []).append(doc.id)
    return Facts(by_id, successors)


def _facts_from_index(store: Store, caller: Caller, schema: Schema, corpus: Mapping[str, Parsed]) -> Facts:
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
    others = [d for d in session.run(store.root, neighbours, caller=caller) if d.path not in corpus]
    return facts_of(schema, others + mine)


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


def _load_corpus(store: Store, paths: list[str], out: Collector, texts: Mapping[str, bytes] | None = None,
                 schema: Schema | None = None) -> dict[str, Parsed]:
    """Parse the documents at `paths`: read from disk, or taken from `texts` (staged bytes) when given; a record
    in one of the schema's folders of records by its format, where it is not docir's own document."""
    corpus: dict[str, Parsed] = {}
    for path in paths:
        try:
            text = (read_text(store.root / path)[0] if texts is None
                    else _staged_text(texts[path], path))
        except (InputError, OSError) as exc:
            out.run(files.unreadable_file, path, exc)
            continue
        if conflict_markers(text):
            out.run(files.conflict_markers_left, path, text)
            corpus[path] = Parsed(path, text, _first_side(path, text), {}, conflicted=True)
            continue
        if schema is not None and record_folder(schema.records, path) is not None:
            from docir.documents.records import in_place  # only a store with folders of records reads one

            try:
                doc = parse_document(store.root, path, text, schema)
            except in_place.NotARecord:
                continue
            except FrontmatterError as exc:
                out.run(frontmatter_rules.invalid_frontmatter, path, exc)
                corpus[path] = Parsed(path, text, None, {})
                continue
            if in_place.folder_of(schema, doc.path, doc.id) is not None:
                corpus[path] = Parsed(path, text, doc, {}, _body_line(text), in_place=True)
                continue
        try:
            meta, parts = frontmatter.parse(text)
        except FrontmatterError as exc:
            out.run(frontmatter_rules.missing_frontmatter, path, exc)
            out.run(frontmatter_rules.invalid_frontmatter, path, exc)
            corpus[path] = Parsed(path, text, None, {})
            continue
        corpus[path] = Parsed(path, text, Document(path, meta, parts.body), frontmatter.field_lines(text, parts),
                              parts.body_line)
    return corpus


def _body_line(text: str) -> int:
    """The line a file's body starts on: after its frontmatter, where it has one."""
    try:
        return frontmatter.parse(text)[1].body_line
    except FrontmatterError:
        return 1


def _first_side(path: str, text: str) -> Document | None:
    try:
        meta, parts = frontmatter.parse(ours(text))
    except FrontmatterError:
        return None
    return Document(path, meta, parts.body)


def check(schema: Schema, corpus: Mapping[str, Parsed], today: dt.date,
          severities: Mapping[str, str] | None = None, facts: Facts | None = None,
          outside: Callable[[str], bool] = lambda _id: False) -> list[Finding]:
    """The document rules (rules.DOCUMENT_RULES) over a parsed corpus (documents only: a reference chunk is
    not a Parsed); what they know of other documents is `facts`, by default the corpus's own, and `outside`
    tells an id git holds off disk (a sparse checkout), asked only for a link that is otherwise broken."""
    out = Collector(dict(severities or {}))
    facts = facts or facts_of(schema, _identities(corpus))
    for parsed in corpus.values():
        if parsed.doc is not None and not parsed.conflicted:
            subject = Subject(schema, parsed, parsed.doc, facts, today, outside)
            for rule in DOCUMENT_RULES:
                out.run(rule, subject)
    return out.found


def _check_applies_to(store: Store, corpus: Mapping[str, Parsed], out: Collector) -> None:
    """Every applies_to glob must be usable and match a file of the repository (DOC021, DOC019)."""
    listed: list[str] | None = None

    def repository() -> list[str]:  # listed once, and only when some glob is to be matched
        nonlocal listed
        if listed is None:
            listed = files.repository_files(store.root)
        return listed

    for parsed in corpus.values():
        out.run(files.invalid_applies_to, parsed)
        out.run(files.applies_to_matches_nothing, parsed, repository)
        out.run(files.broken_body_link, parsed, store.root)
