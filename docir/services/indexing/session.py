"""A session: one store, its schema and its index, brought up to date with the files.

Opening a session is where "the index heals on the next command" happens: a
missing index.db is built, a damaged or foreign one is set aside (renamed,
never deleted) and built again, and a stat walk picks up files changed by
hand, by git or by a write that was killed half-way. Vectors come back from
the vector vault, so a rebuild costs no model time (adr-ff14e9367673).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from docir.documents.ownership import Ownership
from docir.errors import DocirError, StorageError, storage_error
from docir.index.catalog import Catalog
from docir.index.db import (
    FileIdentity,
    IndexCorrupt,
    IndexReplaced,
    IndexUnavailable,
    IndexUnreadable,
    copy_to_memory,
    damage_found,
    file_identity,
    is_damage,
    is_machine_refusal,
    open_index,
    open_index_readonly,
    set_aside,
)
from docir.schema import Schema, load_schema
from docir.services.indexing import sync
from docir.services.indexing.caller import Caller
from docir.services.indexing.locking import write_lock
from docir.store import Store, ensure_state_dir, open_store

T = TypeVar("T")


class Session:
    """One store's schema and open index for one command (a plain class: a cold read must not import
    dataclasses, docir/request_options.py)."""

    __slots__ = ("store", "schema", "catalog", "today", "caller", "warnings", "read_only", "_lock_depth")

    def __init__(self, store: Store, schema: Schema, catalog: Catalog, today: dt.date, caller: Caller,
                 warnings: list[str] | None = None, *, read_only: bool = False) -> None:
        self.store = store
        self.caller = caller  # whose command this is: its settings, its worker, whether it has gone
        self.schema = schema
        self.catalog = catalog
        self.today = today
        self.warnings = warnings if warnings is not None else []
        self.read_only = read_only  # a peer's session: SQLite refuses writes, and nothing here tries
        self._lock_depth = 0

    @contextmanager
    def locked(self) -> Iterator[None]:
        """The store's write lock, re-entrant within this session (a second flock would deadlock)."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with write_lock(self.store.lock_path, self.caller.gone):
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0

    def refresh(self) -> sync.SyncReport:
        """Stat-walk docs/ and apply what changed; cheap when nothing did."""
        if self.read_only:
            raise RuntimeError("a peer store is never refreshed: its index is read-only")
        owned = Ownership.of(self.schema)
        reread = self._records_reread(owned)
        current = sync.scan(self.store.root, self.store.docs_dir, self.catalog, owned, fresh=reread)
        unresolved = current.plan.unresolved
        if current.plan.empty:
            report = sync.SyncReport(unchanged=current.files)
        else:
            with self.locked():
                # Re-plan under the lock: another process may have synced meanwhile.
                current = sync.rescan(self.catalog, current)
                report = sync.apply(self.store.root, self.catalog, current, self.schema)
                self.catalog.check_current()  # a long apply landed in the file that is the index now
        # What was skipped now, and what stays skipped and is said on every read (StatPlan.unresolved).
        newly = {path for path, _ in report.skipped}
        for path, reason in [*report.skipped, *(s for s in unresolved if s[0] not in newly)]:
            self.warnings.append(f"{path} skipped: {reason}")
        return report

    def _records_reread(self, owned: Ownership) -> bool:
        """Whether the records read in place must be read again although their files did not change: what
        they are read into follows the schema and docir's readers too (adr-0c5e2d8f1a47). When either
        changed since the index last read them, their rows are marked unread, under the lock."""
        if not owned.records:
            return False
        from docir.services.indexing.records import READ_WITH, stamp

        now = stamp(self.schema)
        if self.catalog.vectors.setting(READ_WITH) == now:
            return False
        with self.locked(), self.catalog.transaction():
            self.catalog.docs.mark_unread(tuple(folder.path + "/" for folder in owned.records))
            self.catalog.vectors.set_setting(READ_WITH, now)
        return True

    def beside(self) -> Session | None:
        """A read-only session of this store on a connection of its own, for reading on another thread
        beside this one (SQLite runs one statement of a connection at a time); None for an index that
        is no file (a peer's brought up to date in memory) or cannot be opened so. Close it after use."""
        path = self.catalog.path
        if path is None or self.catalog.identity is None:
            return None
        try:
            conn = open_index_readonly(path, own=True)
        except IndexUnreadable:
            return None
        return Session(self.store, self.schema, Catalog(conn, path), self.today, self.caller, self.warnings,
                       read_only=True)

    def close(self) -> None:
        self.catalog.conn.close()


def open_session(root: Path, caller: Caller, *, refresh: bool = True) -> Session:
    """Load the schema of the store at `root` (absolute), open (or rebuild) its index and refresh it.

    Raises StorageError, naming the file and the cause, when the machine refuses the index.
    """
    store = open_store(root, str(root))
    schema = load_schema(store.schema_path, cache=store.schema_cache_path)
    try:
        ensure_state_dir(store.root)
    except OSError as exc:
        failure = storage_error(exc)
        if failure is None:
            raise
        raise failure from None
    warnings: list[str] = []
    try:
        try:
            conn = open_index(store.index_path)
        except IndexCorrupt as exc:
            # Another process may have set it aside and rebuilt it while this one waited for the lock.
            warning = _set_aside_damaged(store, caller, str(exc))
            warnings.extend([warning] if warning else [])
            conn = open_index(store.index_path)
    except IndexUnavailable as exc:
        raise StorageError(f"{exc}; nothing was changed") from None
    session = Session(store, schema, Catalog(conn, store.index_path), dt.date.today(), caller, warnings)
    if refresh:
        try:
            session.refresh()
        except BaseException:
            session.close()
            raise
    return session


def _set_aside_damaged(store: Store, caller: Caller, why: str, seen: FileIdentity | None = None) -> str | None:
    """Under the write lock, move the damaged index aside and say so (the one home of that warning).

    Only if it still is the damaged one: the file `seen` names, or without it one that still fails to
    open. Another process may have set it aside and rebuilt it while this one waited for the lock.
    """
    with write_lock(store.lock_path, caller.gone):
        damaged = file_identity(store.index_path) == seen if seen is not None else not _opens(store.index_path)
        if not damaged:
            return None
        moved = set_aside(store.index_path)
    return f"rebuilding the index ({why}{f'; moved it to {store.relpath(moved)}' if moved else ''})"


def _opens(path: Path) -> bool:
    try:
        open_index(path).close()
    except IndexCorrupt:
        return False
    return True


class PeerUnreadable(Exception):
    """A peer store that cannot be read: skipped with a warning, never an error."""


def open_peer(home: Path, caller: Caller) -> Session:
    """A read-only session on another store's index: no migration, no folder, no file is created.

    Raises PeerUnreadable when the folder, its schema or its index cannot be used.
    """
    if not home.is_dir():
        raise PeerUnreadable("no such folder")
    store = Store(home.resolve())
    try:
        schema = load_schema(store.schema_path)
    except DocirError as exc:
        raise PeerUnreadable(exc.message) from None
    try:
        conn = open_index_readonly(store.index_path)
    except IndexUnreadable as exc:
        raise PeerUnreadable(f"{exc}; run 'docir reindex' in {home}") from None
    try:
        return _checked_peer(Session(store, schema, Catalog(conn), dt.date.today(), caller, read_only=True))
    except BaseException:
        conn.close()
        raise


def _checked_peer(peer: Session) -> Session:
    """The peer's session, checked against its files with the stat walk a local read makes.

    A peer's files can move on without its index (a submodule checked out at another commit, a
    `git pull` there): its index would return documents whose files are gone or changed. Its index
    is never written, so the answer comes from a private in-memory copy brought up to date from the
    files, with one warning (adr-9a41c6e2f7d3).
    """
    store = peer.store
    current = sync.scan(store.root, store.docs_dir, peer.catalog, Ownership.of(peer.schema))
    if current.plan.empty:
        return peer
    copy = Catalog(copy_to_memory(peer.catalog.conn))
    peer.close()
    report = sync.apply(store.root, copy, sync.rescan(copy, current), peer.schema)
    caught_up = Session(store, peer.schema, copy, peer.today, peer.caller, read_only=True)
    changed = report.added + report.updated + report.moved
    caught_up.warnings.append(f"its index is behind its files ({changed} new or changed, {report.removed} gone); "
                              "answering from the files (a docir command there brings its index up to date)")
    return caught_up


def run(root: Path, action: Callable[..., T], *args: Any, caller: Caller, refresh: bool = True,
        warn: Callable[[str], None] | None = None) -> T:
    """Run `action(session, *args)` in a session of the store at `root` (absolute), and once more in a new
    one when the first met one of these:

    - the index turned out damaged mid-way (SQLite says so, or `quick_check` does): set aside, rebuilt;
    - the index path was replaced while the action wrote (IndexReplaced): the work goes to the new file.

    The machine refusing mid-way (I/O error, full disk, read-only, busy past the timeout) is reported
    as a StorageError naming the file; the file is never touched, and the action is not run again
    (a write that half landed must not land twice). open_index already retried its own refusals.
    """
    for attempt in (1, 2):
        session: Session | None = None
        try:
            session = open_session(root, caller, refresh=refresh)
            return action(session, *args)
        except IndexReplaced as exc:
            if attempt == 2:
                raise StorageError(f"{exc}; run the command again") from None
        except sqlite3.DatabaseError as exc:
            store = session.store if session is not None else open_store(root, str(root))
            damaged = _damaged(session, exc)
            if damaged is None:
                if is_machine_refusal(exc):
                    raise StorageError(f"{store.index_path}: {exc}; the index was left as it is") from None
                raise
            if attempt == 2:
                raise
            # The file found damaged: the session's, or (the session never opened) the one there now.
            seen = session.catalog.identity if session is not None else file_identity(store.index_path)
            if session is not None:
                session.close()
                session = None
            warning = _set_aside_damaged(store, caller, damaged, seen)
            if warn is not None and warning is not None:
                warn(warning)
        finally:
            if session is not None:
                if warn is not None:
                    for message in session.warnings:
                        warn(message)
                session.close()
    raise AssertionError("unreachable")


def _damaged(session: Session | None, exc: sqlite3.DatabaseError) -> str | None:
    """Why the index is damaged, on SQLite's word or on proof (quick_check, missing tables); else None."""
    if is_damage(exc):
        return str(exc)
    if session is None or is_machine_refusal(exc):
        return None
    try:
        return damage_found(session.catalog.conn)
    except sqlite3.DatabaseError:
        return None
