"""A session: one store, its schema and its index, brought up to date with the files.

Opening a session is where "the index heals on the next command" happens: a
missing, corrupt or foreign index.db is rebuilt, and a stat walk picks up
files changed by hand, by git or by a write that was killed half-way.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from docir.errors import DocirError
from docir.index.catalog import Catalog
from docir.index.db import IndexCorrupt, IndexUnreadable, discard, is_corruption, open_index, open_index_readonly
from docir.schema import Schema, load_schema
from docir.services.indexing import sync
from docir.services.indexing.locking import write_lock
from docir.store import Store, ensure_state_dir, open_store

T = TypeVar("T")


@dataclass
class Session:
    store: Store
    schema: Schema
    catalog: Catalog
    today: dt.date
    warnings: list[str] = field(default_factory=list)
    last_sync: sync.SyncReport | None = None
    read_only: bool = False  # a peer's session: SQLite refuses writes, and nothing here tries
    _lock_depth: int = 0

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
        with write_lock(self.store.lock_path):
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0

    def refresh(self) -> sync.SyncReport:
        """Stat-walk docs/ and apply what changed; cheap when nothing did."""
        if self.read_only:
            raise RuntimeError("a peer store is never refreshed: its index is read-only")
        current = sync.scan(self.store.root, self.store.docs_dir, self.catalog)
        if current.plan.empty:
            report = sync.SyncReport(unchanged=len(current.disk))
        else:
            with self.locked():
                # Re-plan under the lock: another process may have synced meanwhile.
                current = sync.scan(self.store.root, self.store.docs_dir, self.catalog, current.disk)
                report = sync.apply(self.store.root, self.catalog, current)
            for path, reason in report.skipped:
                self.warnings.append(f"{path} skipped: {reason}")
        self.last_sync = report
        return report

    def close(self) -> None:
        self.catalog.conn.close()


def open_session(root: Path | None, *, refresh: bool = True) -> Session:
    """Find the store, load its schema, open (or rebuild) its index and refresh it."""
    store = open_store(root)
    schema = load_schema(store.schema_path)
    ensure_state_dir(store.root)
    warnings: list[str] = []
    try:
        conn = open_index(store.index_path)
    except IndexCorrupt as exc:
        warnings.append(f"rebuilding the index ({exc})")
        with write_lock(store.lock_path):
            discard(store.index_path)
            conn = open_index(store.index_path)
    session = Session(store, schema, Catalog(conn), dt.date.today(), warnings)
    if refresh:
        session.refresh()
    return session


class PeerUnreadable(Exception):
    """A peer store that cannot be read: skipped with a warning, never an error."""


def open_peer(home: Path) -> Session:
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
    return Session(store, schema, Catalog(conn), dt.date.today(), read_only=True)


def run(root: Path | None, action: Callable[[Session], T], *, refresh: bool = True,
        warn: Callable[[str], None] | None = None) -> T:
    """Run `action` in a session; if the index turns out damaged mid-way, rebuild it and run once more."""
    for attempt in (1, 2):
        session: Session | None = None
        try:
            session = open_session(root, refresh=refresh)
            return action(session)
        except sqlite3.DatabaseError as exc:
            if attempt == 2 or not is_corruption(exc):
                raise
            store = session.store if session is not None else open_store(root)
            if session is not None:
                session.close()
            with write_lock(store.lock_path):
                discard(store.index_path)
            if warn is not None:
                warn(f"rebuilding the index ({exc})")
        finally:
            if session is not None:
                if warn is not None:
                    for message in session.warnings:
                        warn(message)
                session.close()
    raise AssertionError("unreachable")
