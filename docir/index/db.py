"""Open the index: WAL, busy timeout, migrations, and rebuilding a bad file.

The index is derived from the files, so a missing, truncated, foreign or
newer-versioned `index.db` is never an error for the local store: it is
moved out of the way and built again.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from docir.index.migrations import MIGRATIONS

# PRAGMA application_id marks the file as docir's ("doci"), so a foreign SQLite file is rebuilt.
APPLICATION_ID = 0x646F6369
SCHEMA_VERSION = len(MIGRATIONS)
BUSY_TIMEOUT_MS = 10_000
_SQLITE_MAGIC = b"SQLite format 3\x00"


class IndexCorrupt(Exception):
    """The index file cannot be used; the caller rebuilds it from the files."""


class IndexUnreadable(Exception):
    """A read-only index (a peer's) cannot be opened; the caller skips it."""


def open_index(path: Path) -> sqlite3.Connection:
    """A read-write connection to the local index, migrated to the current version.

    Raises IndexCorrupt when the file exists but is not a usable docir index.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size > 0:
        with open(path, "rb") as handle:
            if handle.read(16) != _SQLITE_MAGIC:
                raise IndexCorrupt(f"{path.name} is not an SQLite database")
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        app_id, version = _identity(conn)
        if app_id == 0 and version == 0:
            # A fresh file, or one another process is creating right now: look again under
            # the write lock, so its half-made tables are not mistaken for a foreign index.
            conn.execute("BEGIN IMMEDIATE")
            app_id, version = _identity(conn)
            fresh = app_id == 0 and version == 0 and not _has_tables(conn)
            conn.execute("COMMIT")
            if fresh:
                _set_wal(conn)
                _migrate(conn, 0)
                app_id, version = _identity(conn)
        if app_id != APPLICATION_ID:
            conn.close()
            raise IndexCorrupt(f"{path.name} is not a docir index")
        elif version > SCHEMA_VERSION:
            conn.close()
            raise IndexCorrupt(f"{path.name} was written by a newer docir (schema {version})")
        else:
            _set_wal(conn)
            if version < SCHEMA_VERSION:
                _migrate(conn, version)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn
    except sqlite3.DatabaseError as exc:
        if is_busy(exc):
            raise
        raise IndexCorrupt(f"{path.name}: {exc}") from None


def open_index_readonly(path: Path) -> sqlite3.Connection:
    """A connection SQLite itself refuses to write through (`mode=ro`): for peers.

    Runs no migration and creates nothing. Raises IndexUnreadable.
    """
    if not path.is_file():
        raise IndexUnreadable("no index yet")
    # A WAL database opened read-only still creates its -wal and -shm files when they are
    # missing, which would write into the peer's folder. No -wal file means nothing is being
    # written there now, so the file can be read as immutable and nothing is created.
    flags = "mode=ro" if Path(f"{path}-wal").exists() else "mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?{flags}", uri=True,
                               timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        app_id, version = _identity(conn)
    except sqlite3.DatabaseError as exc:
        raise IndexUnreadable(str(exc)) from None
    if app_id != APPLICATION_ID:
        conn.close()
        raise IndexUnreadable("not a docir index")
    if version != SCHEMA_VERSION:
        conn.close()
        raise IndexUnreadable(f"index schema {version}, this docir reads {SCHEMA_VERSION}")
    return conn


def discard(path: Path) -> None:
    """Remove an unusable index and its WAL files so the next open starts clean."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def is_busy(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """Whether an error mid-command means the file is damaged (as opposed to busy or a bug)."""
    if is_busy(exc):
        return False
    text = str(exc).lower()
    return (not isinstance(exc, sqlite3.OperationalError)) or "malformed" in text or "no such table" in text \
        or "no such fts5 table" in text \
        or "not a database" in text or "disk i/o" in text


def _identity(conn: sqlite3.Connection) -> tuple[int, int]:
    # One statement, one snapshot: read apart, a migration committing in between would
    # show the old application_id with the new user_version, which looks foreign.
    app_id, version = conn.execute(
        "SELECT a.application_id, v.user_version FROM pragma_application_id() a, pragma_user_version() v"
    ).fetchone()
    return int(app_id), int(version)


def _has_tables(conn: sqlite3.Connection) -> bool:
    return int(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]) > 0


def _set_wal(conn: sqlite3.Connection) -> None:
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if str(mode).lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")


def _migrate(conn: sqlite3.Connection, current: int) -> None:
    for number, migration in enumerate(MIGRATIONS[current:], start=current + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= number:
                conn.execute("COMMIT")
                continue
            migration(conn)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
