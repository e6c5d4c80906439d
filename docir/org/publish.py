"""docir publish: make the organisation store hold exactly this repository's current documents.

One transaction per publish (adr-157b15ddba34): a reader sees the repository as it was or as it
is now, never half of it. It begins with an advisory lock on the repository's name, so two jobs
publishing one repository take turns while other repositories' publishes go on beside them.
Only documents whose fingerprint moved are written (rows.py); a publish that finds none writes
nothing. Vectors come from the local index and the vector vault; no model is loaded unless
--wait-embeddings asks for the due ones to be computed first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from docir.documents.globs import FIELD, as_globs
from docir.embed.resolve import resolve
from docir.errors import DocirError, UsageError
from docir.index.records import DocRow
from docir.index.vector_store import dim_of
from docir.org import connect, lexemes, names, rows
from docir.org.ahead import ahead
from docir.org.report import PublishReport
from docir.org.tables import SCHEMA_VERSION
from docir.org.vectors import to_text
from docir.schema import Schema, as_json
from docir.services.indexing.session import Session
from docir.settings import Settings

if TYPE_CHECKING:
    import psycopg

BATCH = 200  # documents per progress line
PART_CHARS = 500_000  # characters of body read, tokenized and sent at once: what bounds a publish's memory
# A tsvector holds at most 1 MB; text whose every word differs measured about two bytes of it per
# character (500,000 characters: 993 KB), so this much of a body or section always fits.
SEARCHED_MAX = 300_000
Progress = Callable[[int, int], None]  # (documents written, documents to write)


class Target(NamedTuple):
    """Where in the organisation store this repository goes."""

    name: str
    remote: str  # its normalised remote; '' when it has none (published with --as)
    revision: str | None


class Model(NamedTuple):
    """The model whose vectors a publish carries, as repos records it."""

    model_id: str
    window: int
    chunking: str


def target(root: Path, as_name: str | None, settings: Settings) -> Target:
    """The repository's name: --as, else its git remote normalised (names.py)."""
    remote = names.git_remote(root, settings.env) or ""
    revision = names.git_revision(root, settings.env)
    if as_name is not None:
        return Target(names.check_name(as_name), remote, revision)
    if not remote:
        raise UsageError("this repository has no git remote to name it by; give --as NAME")
    return Target(remote, remote, revision)


# --- what this repository has ----------------------------------------------------------------


class Local(NamedTuple):
    entries: dict[str, rows.Local]  # by id
    model: Model | None
    dimension: int | None
    schema: dict[str, Any]
    notes: list[str]


def gather(session: Session) -> Local:
    """Every document of the store with its fingerprint, and the model its vectors are published with."""
    schema = session.schema
    choice = resolve(session.caller.settings, schema.model_path, session.store.root)
    model = None
    if choice.available:
        from docir.services.vectors.embedding import plan_key

        model = Model(choice.model_id, choice.window, plan_key(choice.model_id))
        _restore_from_vault(session, model.model_id)
    plans = session.catalog.vectors.vector_plans()
    notes: list[str] = []
    entries: dict[str, rows.Local] = {}
    for state in session.catalog.docs.states():
        if state.id in entries:
            kept = entries[state.id].state.path
            notes.append(f"duplicate id {state.id} in {kept} and {state.path}; publishing {kept} (run 'docir lint')")
            continue
        active = _active(schema, state.type, state.status)
        vectors = rows.of_model(plans.get(state.rowid), model.model_id if model else None)
        entries[state.id] = rows.Local(state, active, vectors, rows.fingerprint(state, active, vectors))
    dimension = None
    if model is not None:
        sample = next((e.vectors.vector_sha for e in entries.values() if e.vectors and e.vectors.vector_sha), None)
        found = session.catalog.vectors.vectors_of(model.model_id, [sample] if sample else [])
        dimension = dim_of(next(iter(found.values()))) if found else None
    return Local(entries, model if dimension else None, dimension, as_json(schema), notes)


def _active(schema: Schema, doc_type: str, status: str) -> bool:
    spec = schema.type_spec(doc_type)
    return spec is None or status not in spec.inactive_statuses


def _restore_from_vault(session: Session, model_id: str) -> None:
    """Vectors the vault keeps for due documents, put back in the index: no model (adr-ff14e9367673)."""
    if session.catalog.vectors.waiting(model_id) == (0, 0):
        return
    from docir.index.vault import Vault
    from docir.services.vectors.embedding import restore_due

    vault = Vault.default(session.caller.settings)
    try:
        if vault.usable():
            with session.locked():
                session.catalog.check_current()
                restore_due(session.catalog, model_id, vault)
    finally:
        vault.close()


def wait_for_vectors(session: Session, warn: Callable[[str], None]) -> None:
    """--wait-embeddings: compute what is due now (in the warm worker if one runs); a warning if it cannot."""
    from docir.services.vectors.flush import flush_session

    try:
        flush_session(session)
        session.catalog.check_current()
    except DocirError as exc:
        warn(f"{exc.message}; publishing the vectors there are")


# --- the database side -------------------------------------------------------------------------


def _quiet(message: str) -> None:
    """Where warnings go when the caller takes none."""


def publish(session: Session, url: str, *, as_name: str | None = None, dry_run: bool = False,
            progress: Progress | None = None, warn: Callable[[str], None] = _quiet) -> PublishReport:
    """Make the database hold exactly this store's documents under its repository's name.

    Raises UsageError or connect.OrgError (one line, exit 2) with nothing written.
    """
    connect.check_url(url)
    where = target(session.store.root, as_name, session.caller.settings)
    local = gather(session)
    for note in local.notes:
        warn(note)
    conn, found = connect.open_database(url, session.caller.settings, write=True, dry_run=dry_run)
    report: PublishReport = {"repo": where.name, "remote": where.remote, "database": connect.describe(url),
                             "revision": where.revision, "dry_run": dry_run, "removed": 0,
                             "tables": _tables(found, dry_run)}
    try:
        if dry_run and found == 0:  # no tables yet: everything would be added
            changes = rows.plan({i: e.fingerprint for i, e in local.entries.items()}, {})
            _count(report, local, changes, written=False)
            report["ids"] = _ids(changes)
            return report
        with _guarded(url, where.name), conn.transaction(force_rollback=dry_run):
            _lock(conn, where.name, warn)
            stored = _repo_row(conn, where)
            published = dict(conn.execute("SELECT id, fingerprint FROM docir.documents WHERE repo = %s",
                                          (where.name,)).fetchall())
            changes = rows.plan({i: e.fingerprint for i, e in local.entries.items()}, published)
            _warn_elsewhere(conn, where.name, changes.added, warn)
            repo_values = _repo_values(where, local)
            written = not dry_run and (not changes.empty or stored != repo_values)
            if written:
                _write(conn, session, where, local, changes, repo_values, progress, warn)
            _count(report, local, changes, written=written)
            if dry_run:
                report["ids"] = _ids(changes)
    finally:
        conn.close()
    return report


def remove(root: Path, url: str, settings: Settings, *, as_name: str | None = None, dry_run: bool = False,
           warn: Callable[[str], None] = _quiet) -> PublishReport:
    """Take this repository (and every row of it) out of the database."""
    connect.check_url(url)
    where = target(root, as_name, settings)
    # Never migrates: taking a repository out of a database without docir's tables writes nothing.
    conn, found = connect.open_database(url, settings, write=True, dry_run=True)
    report: PublishReport = {"repo": where.name, "remote": where.remote, "database": connect.describe(url),
                             "dry_run": dry_run, "removed_repository": False, "removed": 0}
    try:
        if found == 0:
            return report
        with _guarded(url, where.name), conn.transaction(force_rollback=dry_run):
            _lock(conn, where.name, warn)
            stored = _repo_row(conn, where)
            if stored is None:
                return report
            ids = [r[0] for r in conn.execute("SELECT id FROM docir.documents WHERE repo = %s ORDER BY id",
                                              (where.name,))]
            conn.execute("DELETE FROM docir.repos WHERE name = %s", (where.name,))
            report.update({"removed_repository": True, "removed": len(ids)})
            if dry_run:
                report["ids"] = {"removed": ids}
    finally:
        conn.close()
    return report


def _tables(found: int, dry_run: bool) -> str:
    if found == SCHEMA_VERSION:
        return "current"
    verb = "would be " if dry_run else ""
    return f"{verb}created" if found == 0 else f"{verb}migrated from version {found}"


def _count(report: PublishReport, local: Local, changes: rows.Changes, *, written: bool) -> None:
    report.update({"documents": len(local.entries), "added": len(changes.added), "changed": len(changes.changed),
                   "removed": len(changes.removed), "unchanged": changes.unchanged, "written": written,
                   "vectors_missing": len(rows.missing_vectors(local.entries.values())),
                   "model": local.model.model_id if local.model else None})


def _ids(changes: rows.Changes) -> dict[str, list[str]]:
    return {"added": list(changes.added), "changed": list(changes.changed), "removed": list(changes.removed)}


@contextmanager
def _guarded(url: str, name: str) -> Iterator[None]:
    """The database's refusals inside a publish as one-line errors; the transaction inside is rolled back."""
    import psycopg

    try:
        yield
    except psycopg.errors.InsufficientPrivilege as exc:
        raise connect.OrgError(f"cannot publish {name} to {connect.describe(url)}: {connect.first_line(exc)}; the "
                               "role needs INSERT, UPDATE and DELETE on docir's tables; nothing was written") from None
    except psycopg.Error as exc:
        raise connect.OrgError(f"publishing {name} to {connect.describe(url)} failed: {connect.first_line(exc)}; "
                               "nothing was written") from None


def _lock(conn: psycopg.Connection[Any], name: str, warn: Callable[[str], None]) -> None:
    """Wait for any other publish of this repository to finish; other repositories are not held up."""
    key = f"docir.publish {name}"
    got = conn.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", (key,)).fetchone()
    if got is not None and got[0]:
        return
    warn(f"another publish of {name} is running; waiting for it to finish")
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))


_REPO_COLUMNS = ("remote", "model_id", "dimension", "model_window", "chunking", "schema", "revision", "documents")


def _repo_row(conn: psycopg.Connection[Any], where: Target) -> tuple[Any, ...] | None:
    """The repository's row as stored (in _REPO_COLUMNS order), or None; refuses another remote's name."""
    found = conn.execute(f"SELECT {', '.join(_REPO_COLUMNS)} FROM docir.repos WHERE name = %s",
                         (where.name,)).fetchone()
    if found is None:
        return None
    remote = found[0]
    if remote and remote != where.remote:
        raise UsageError(f"{where.name} is already published from {remote}, not from "
                         f"{where.remote or 'a repository without a remote'}; publish under another name with --as")
    return tuple(found)


def _repo_values(where: Target, local: Local) -> tuple[Any, ...]:
    model = local.model
    return (where.remote, model.model_id if model else None, local.dimension, model.window if model else None,
            model.chunking if model else None, local.schema, where.revision, len(local.entries))


def _write(conn: psycopg.Connection[Any], session: Session, where: Target, local: Local, changes: rows.Changes,
           repo_values: tuple[Any, ...], progress: Progress | None, warn: Callable[[str], None]) -> None:
    assignments = ", ".join(f"{c} = excluded.{c}" for c in _REPO_COLUMNS)
    conn.execute(
        f"INSERT INTO docir.repos (name, {', '.join(_REPO_COLUMNS)}, published_at)"
        f" VALUES (%s, {', '.join(['%s'] * len(_REPO_COLUMNS))}, now())"
        f" ON CONFLICT (name) DO UPDATE SET {assignments}, published_at = excluded.published_at",
        (where.name, *repo_values[:5], json.dumps(repo_values[5]), *repo_values[6:]),
    )
    gone = [*changes.removed, *changes.changed]
    if gone:
        _count_terms(conn, where.name, gone, -1)
        conn.execute("DELETE FROM docir.documents WHERE repo = %s AND id = ANY(%s)", (where.name, gone))
    due = [local.entries[i] for i in (*changes.added, *changes.changed)]
    # The next rows are read and tokenized while the database takes these (adr-97ebb77d9713).
    with ahead(_prepared(session, where.name, local.model, due)) as prepared:
        for part in prepared:
            for note in part.notes:
                warn(note)
            with conn.cursor() as cur:
                for table, columns, found in (("documents", _DOCUMENT_COLUMNS, part.documents),
                                              ("sections", _SECTION_COLUMNS, part.sections),
                                              ("links", _LINK_COLUMNS, part.links)):
                    _copy(cur, table, columns, found)
            if progress is not None and (part.written % BATCH == 0 or part.written == len(due)):
                progress(part.written, len(due))
    _count_terms(conn, where.name, [e.state.id for e in due], 1)
    conn.execute(_TOTALS_SQL, {"format": rows.ROW_FORMAT, "repo": where.name})


# Each table's rows go in by COPY, in its text form: the server parses each value as it would
# the same text cast to the column's type (jsonb, tsvector, vector), and the client sends a
# part's rows in one stream rather than a statement each (adr-97ebb77d9713).
_DOCUMENT_COLUMNS = ("repo", "id", "path", "type", "title", "description", "status", "active", "archived", "tags",
                     "owner", "verified", "related", "applies_to", "meta", "body", "sha256", "fingerprint", "lex",
                     "lex_tokens", "vector")
_SECTION_COLUMNS = ("repo", "doc_id", "ord", "heading", "start_line", "end_line", "lex", "lex_tokens", "vector")
_LINK_COLUMNS = ("repo", "doc_id", "kind", "target")


def _copy(cur: psycopg.Cursor[Any], table: str, columns: Sequence[str], found: Sequence[tuple[Any, ...]]) -> None:
    if not found:
        return
    with cur.copy(f"COPY docir.{table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in found:
            copy.write_row(row)


# The totals bm25's idf and average length read (ranking_sql.py), kept per repository so a reader
# sums a few rows instead of scanning every section it reads.
_TOTALS_SQL = (
    "UPDATE docir.repos r SET row_format = %(format)s, lex_documents = d.n, lex_document_tokens = d.t,"
    " lex_sections = s.n, lex_section_tokens = s.t"
    " FROM (SELECT count(*) AS n, coalesce(sum(lex_tokens), 0) AS t FROM docir.documents"
    "       WHERE repo = %(repo)s AND lex IS NOT NULL) d,"
    "      (SELECT count(*) AS n, coalesce(sum(lex_tokens), 0) AS t FROM docir.sections"
    "       WHERE repo = %(repo)s AND lex IS NOT NULL) s"
    " WHERE r.name = %(repo)s"
)


# Each word's documents and sections among the named documents of a repository, added to (sign 1)
# or taken from (-1) its counts in docir.terms; words no row holds any more are dropped.
_TERMS_SQL = """
    WITH counted AS (
        SELECT lexeme, sum(d)::integer AS d, sum(s)::integer AS s FROM (
            SELECT unnest(tsvector_to_array(lex)) AS lexeme, 1 AS d, 0 AS s FROM docir.documents
            WHERE repo = %(repo)s AND id = ANY(%(ids)s) AND lex IS NOT NULL
            UNION ALL
            SELECT unnest(tsvector_to_array(lex)), 0, 1 FROM docir.sections
            WHERE repo = %(repo)s AND doc_id = ANY(%(ids)s) AND lex IS NOT NULL
        ) x GROUP BY lexeme
    )
    INSERT INTO docir.terms AS t (repo, lexeme, documents, sections)
    SELECT %(repo)s, lexeme, %(sign)s * d, %(sign)s * s FROM counted
    ON CONFLICT (lexeme, repo) DO UPDATE
        SET documents = t.documents + excluded.documents, sections = t.sections + excluded.sections"""


def _count_terms(conn: psycopg.Connection[Any], repo: str, ids: Sequence[str], sign: int) -> None:
    if not ids:
        return
    conn.execute(_TERMS_SQL, {"repo": repo, "ids": list(ids), "sign": sign})
    if sign < 0:
        conn.execute("DELETE FROM docir.terms WHERE repo = %s AND documents <= 0 AND sections <= 0", (repo,))


class _Part(NamedTuple):
    """Rows of some documents, ready to send, and what to say about them."""

    documents: list[tuple[Any, ...]]
    sections: list[tuple[Any, ...]]
    links: list[tuple[Any, ...]]
    written: int  # documents written once these are, counted from the first due one
    notes: list[str]


def _prepared(session: Session, repo: str, model: Model | None, due: Sequence[rows.Local]) -> Iterator[_Part]:
    """The rows of the due documents, PART_CHARS of body at a time and never across a BATCH boundary
    (progress is told a batch at a time), read from the index as they are needed."""
    for start in range(0, len(due), BATCH):
        batch = due[start : start + BATCH]
        taken: list[tuple[rows.Local, DocRow]] = []
        chars = 0
        for n, entry in enumerate(batch, start=1):
            row = session.catalog.docs.rows_by_rowid([entry.state.rowid])[entry.state.rowid]
            taken.append((entry, row))
            chars += len(row.body)
            if chars >= PART_CHARS or n == len(batch):
                yield _part(session, repo, model, taken, start + n)
                taken, chars = [], 0


def _part(session: Session, repo: str, model: Model | None, taken: Sequence[tuple[rows.Local, DocRow]],
          written: int) -> _Part:
    notes = [f"{row.path}: only its first {SEARCHED_MAX:,} characters are searched by words in the organisation "
             "store (PostgreSQL's tsvector holds 1 MB)" for _, row in taken if len(row.searched) > SEARCHED_MAX]
    sections = [rows.section_rows(row, entry.vectors) for entry, row in taken]
    wanted = {e.vectors.vector_sha for e, _ in taken if e.vectors and e.vectors.vector_sha}
    wanted |= {s.vector_sha for found in sections for s in found if s.vector_sha}
    blobs = session.catalog.vectors.vectors_of(model.model_id, wanted) if model is not None and wanted else {}

    def vector(sha: str | None) -> str | None:
        blob = blobs.get(sha) if sha else None
        return to_text(blob) if blob is not None else None

    part = _Part([], [], [], written, notes)
    for (entry, row), found in zip(taken, sections, strict=True):
        # Archived documents have no words: the local index does not search them either.
        words, by_ord = (None, {}) if row.archived else lexemes.document_words(row, found, SEARCHED_MAX)
        part.documents.append(_document_params(repo, entry, row, words, vector))
        part.sections.extend((repo, row.id, s.ord, list(s.heading), s.start_line, s.end_line,
                              *(by_ord.get(s.ord) or (None, None)), vector(s.vector_sha)) for s in found)
        part.links.extend((repo, row.id, kind, target) for kind, target in rows.links(row))
    return part


def _document_params(repo: str, entry: rows.Local, row: DocRow, words: lexemes.Lexical | None,
                     vector: Callable[[str | None], str | None]) -> tuple[Any, ...]:
    meta = json.loads(row.meta_json)
    applies_to = as_globs(meta.get(FIELD)) or []
    return (repo, row.id, row.path, row.type, row.title, row.description, row.status, entry.active, row.archived,
            list(row.tags), row.owner, row.verified, json.dumps([list(e) for e in row.related]), applies_to,
            row.meta_json, row.body, row.sha256, entry.fingerprint, *(words or (None, None)),
            vector(entry.vectors.vector_sha if entry.vectors else None))


def _warn_elsewhere(conn: psycopg.Connection[Any], repo: str, ids: Sequence[str],
                    warn: Callable[[str], None]) -> None:
    """Say which new ids another repository already publishes: ids are meant to be unique across an
    organisation (a link names its target by id alone), so a copied document makes links ambiguous."""
    if not ids:
        return
    found = conn.execute("SELECT id, min(repo) FROM docir.documents WHERE repo <> %s AND id = ANY(%s)"
                         " GROUP BY id ORDER BY id", (repo, list(ids))).fetchall()
    if found:
        shown = ", ".join(f"{doc_id} ({other})" for doc_id, other in found[:3])
        more = f" and {len(found) - 3} more" if len(found) > 3 else ""
        warn(f"{len(found)} id(s) of {repo} are published by another repository too: {shown}{more}; "
             "a link to them is ambiguous (give the copy a new id)")
