"""docir publish: make the organisation store hold exactly this repository's current documents.

One transaction per publish (adr-157b15ddba34): a reader sees the repository as it was or as it
is now, never half of it. It begins with an advisory lock on the repository's name, so two jobs
publishing one repository take turns while other repositories' publishes go on beside them.
Only documents whose fingerprint moved are written (org/rows.py); a publish that finds none writes
nothing. Vectors come from the local index and the vector vault; no model is loaded unless
--wait-embeddings asks for the due ones to be computed first. What goes to the database, and how,
is org/published.py's: this module decides what to publish from the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from docir.embed.resolve import resolve
from docir.errors import DocirError
from docir.index.records import DocRow
from docir.index.vector_store import dim_of
from docir.org import connect, published, rows
from docir.org.ahead import ahead
from docir.org.published import Part, Target
from docir.org.report import PublishReport
from docir.org.tables import SCHEMA_VERSION
from docir.schema import Schema, as_json
from docir.services.indexing.session import Session
from docir.settings import Settings

BATCH = 200  # documents per progress line
PART_CHARS = 500_000  # characters of body read, tokenized and sent at once: what bounds a publish's memory
Progress = Callable[[int, int], None]  # (documents written, documents to write)
# A publish that writes at least this many section vectors builds its repository an index of its own
# over them at once: one insert at a time, HNSW took about 1.7 ms a vector (adr-6c44f1cb3e41).
BULK_VECTORS = 10_000


class Model(NamedTuple):
    """The model whose vectors a publish carries, as repos records it."""

    model_id: str
    window: int
    chunking: str


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


def _quiet(message: str) -> None:
    """Where warnings go when the caller takes none."""


def publish(session: Session, url: str, *, as_name: str | None = None, dry_run: bool = False,
            progress: Progress | None = None, warn: Callable[[str], None] = _quiet,
            note: Callable[[str], None] = _quiet) -> PublishReport:
    """Make the database hold exactly this store's documents under its repository's name.

    Raises UsageError or connect.OrgError (one line, exit 2) with nothing written.
    """
    connect.check_url(url)
    where = published.target(session.store.root, as_name, session.caller.settings)
    local = gather(session)
    for said in local.notes:
        warn(said)
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
        waiting = published.Waiting(url, where.name, warn)
        while True:  # again after a lock wait ran out, with nothing written, until Waiting gives up
            try:
                with published.guarded(url, where.name), conn.transaction(force_rollback=dry_run):
                    published.bound_lock_waits(conn)
                    published.lock(conn, where.name, waiting.once)
                    stored = published.repo_row(conn, where)
                    changes = rows.plan({i: e.fingerprint for i, e in local.entries.items()},
                                        published.fingerprints(conn, where.name))
                    published.warn_elsewhere(conn, where.name, changes.added, waiting.once)
                    repo_values = _repo_values(where, local)
                    written = not dry_run and (not changes.empty or stored != repo_values)
                    own_index = written and _write(conn, session, where, local, changes, repo_values, progress,
                                                   waiting.once, note)
                    _count(report, local, changes, written=written)
                    if dry_run:
                        report["ids"] = _ids(changes)
                break
            except published.LockWait:
                waiting.again(conn)
        if own_index:  # only a repository with an index of its own can have one left to drop
            _drop_stale(conn, url, where.name, warn)
    finally:
        conn.close()
    return report


def _drop_stale(conn: Any, url: str, name: str, warn: Callable[[str], None]) -> None:
    """After the commit: the repository's own indexes no longer named dropped; a failure only leaves one
    for the repository's next publish or its removal to drop."""
    import psycopg

    try:
        conn.autocommit = True
        published.drop_stale_indexes(conn, name)
    except psycopg.Error as exc:
        warn(f"an index {name} no longer uses is left in {connect.describe(url)} ({connect.first_line(exc)}); "
             "the next publish drops it")


def remove(root: Path, url: str, settings: Settings, *, as_name: str | None = None, dry_run: bool = False,
           warn: Callable[[str], None] = _quiet) -> PublishReport:
    """Take this repository (and every row of it) out of the database."""
    connect.check_url(url)
    where = published.target(root, as_name, settings)
    # Never migrates: taking a repository out of a database without docir's tables writes nothing.
    conn, found = connect.open_database(url, settings, write=True, dry_run=True)
    report: PublishReport = {"repo": where.name, "remote": where.remote, "database": connect.describe(url),
                             "dry_run": dry_run, "removed_repository": False, "removed": 0}
    try:
        if found == 0:
            return report
        waiting = published.Waiting(url, where.name, warn)
        while True:  # as publish: again after a lock wait ran out, until Waiting gives up
            try:
                with published.guarded(url, where.name), conn.transaction(force_rollback=dry_run):
                    published.bound_lock_waits(conn)
                    published.lock(conn, where.name, waiting.once)
                    if published.repo_row(conn, where) is None:
                        return report
                    ids = published.remove_repository(conn, where.name)
                    report.update({"removed_repository": True, "removed": len(ids)})
                    if dry_run:
                        report["ids"] = {"removed": ids}
                break
            except published.LockWait:
                waiting.again(conn)
        if not dry_run:
            _drop_stale(conn, url, where.name, warn)
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


def _repo_values(where: Target, local: Local) -> tuple[Any, ...]:
    """The repository's row, in published.REPO_COLUMNS order."""
    model = local.model
    return (where.remote, model.model_id if model else None, local.dimension, model.window if model else None,
            model.chunking if model else None, local.schema, where.revision, len(local.entries))


def _write(conn: Any, session: Session, where: Target, local: Local, changes: rows.Changes,
           repo_values: tuple[Any, ...], progress: Progress | None, warn: Callable[[str], None],
           note: Callable[[str], None]) -> bool:
    """Write the plan's documents; whether the repository's section vectors are in an index of its own."""
    due = [local.entries[i] for i in (*changes.added, *changes.changed)]
    vectors = sum(len(e.vectors.chunks) - len(e.vectors.shared) for e in due if e.vectors is not None)
    bulk = vectors >= BULK_VECTORS and published.may_index(conn)
    if bulk:
        published.take_sections(conn)
    own_index = bulk or published.vector_index(conn, where.name) is not None
    published.write_repo(conn, where.name, repo_values)
    published.delete_documents(conn, where.name, [*changes.removed, *changes.changed])
    if bulk:
        published.move_to_own_index(conn, where.name)
    # The next rows are read and tokenized while the database takes these (adr-97ebb77d9713).
    with ahead(_prepared(session, where.name, local.model, due, own_index)) as prepared:
        for part in prepared:
            for said in part.notes:
                warn(said)
            published.send(conn, part)
            if progress is not None and (part.written % BATCH == 0 or part.written == len(due)):
                progress(part.written, len(due))
    published.finish(conn, where.name, [e.state.id for e in due])
    if bulk:
        note(f"indexing the section vectors of {where.name} (about {vectors:,}) in an index of its own")
        published.index_own(conn, where.name)
    return own_index


def _prepared(session: Session, repo: str, model: Model | None, due: Sequence[rows.Local],
              own_index: bool) -> Iterator[Part]:
    """The rows of the due documents, PART_CHARS of body at a time and never across a BATCH boundary
    (progress is told a batch at a time), read from the index as they are needed."""

    def vectors_of(shas: set[str]) -> dict[str, bytes]:
        return session.catalog.vectors.vectors_of(model.model_id, shas) if model is not None else {}

    for start in range(0, len(due), BATCH):
        batch = due[start : start + BATCH]
        taken: list[tuple[rows.Local, DocRow]] = []
        chars = 0
        for n, entry in enumerate(batch, start=1):
            row = session.catalog.docs.rows_by_rowid([entry.state.rowid])[entry.state.rowid]
            taken.append((entry, row))
            chars += len(row.body)
            if chars >= PART_CHARS or n == len(batch):
                yield published.part_of(repo, taken, start + n, vectors_of, own_index)
                taken, chars = [], 0
