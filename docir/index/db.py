"""Open the index: WAL, busy timeout, migrations, and telling a damaged file from a refusing machine.

The index is derived from the files, so a foreign, newer-versioned or damaged
`index.db` is never an error for the local store: it is set aside (renamed,
never deleted) and built again. Only SQLite's own verdict makes a file damaged
(SQLITE_CORRUPT, SQLITE_NOTADB, or a failed `PRAGMA quick_check`); a busy
file, an I/O error, a full disk or a refused permission is the machine's
condition, retried once and then reported, never a reason to touch the file
(issue-dae9d980f587).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docir.errors import refusal
from docir.index.migrations import MIGRATIONS

# PRAGMA application_id marks the file as docir's ("doci"), so a foreign SQLite file is rebuilt.
APPLICATION_ID = 0x646F6369
SCHEMA_VERSION = len(MIGRATIONS)
BUSY_TIMEOUT_MS = 10_000
# SQLite's primary result codes (the low byte of an extended code) that say the file itself is bad.
_DAMAGE_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
# What the machine answers rather than the file: permission, read-only, I/O, full, cannot open.
_MACHINE_CODES = frozenset({3, 8, 10, 13, 14})
RETRY_PAUSE_SECONDS = 0.2  # before the one retry of an open the machine refused
KEEP_DAMAGED = 2  # damaged indexes kept beside the store's, newest first, for a look or a report
DAMAGED_INFIX = ".damaged-"
_COMPANIONS = ("", "-wal", "-shm", "-journal")  # the index file and what SQLite keeps beside it


class IndexCorrupt(Exception):
    """The index file cannot be used; the caller sets it aside and rebuilds it from the files."""


class IndexUnreadable(Exception):
    """A read-only index (a peer's) cannot be opened; the caller skips it."""


class IndexUnavailable(Exception):
    """The machine refused the index (I/O error, full disk, permissions): nothing was changed.

    `str()` names the file and the cause, for a one-line error.
    """


class IndexReplaced(Exception):
    """The index path no longer names the file this connection writes: its work must go to the new one."""


FileIdentity = tuple[int, int]  # (st_dev, st_ino): which file a path names right now


def file_identity(path: Path) -> FileIdentity | None:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


def error_code(exc: sqlite3.Error) -> int:
    """SQLite's primary result code of an error (0 when Python raised it without one)."""
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def is_damage(exc: sqlite3.Error) -> bool:
    """SQLite itself says the file is corrupt or not a database."""
    return error_code(exc) in _DAMAGE_CODES


def is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return error_code(exc) in _BUSY_CODES or (
        isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text))


def is_machine_refusal(exc: sqlite3.Error) -> bool:
    """An I/O error, a full disk, a read-only file or folder, a permission refused: the machine, not the file."""
    return error_code(exc) in _MACHINE_CODES or is_busy(exc)


def open_index(path: Path) -> sqlite3.Connection:
    """A read-write connection to the local index, migrated to the current version.

    Raises IndexCorrupt when the file exists but is not a usable docir index, and
    IndexUnavailable when the machine refused it twice (see the module's docstring).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        said = refusal(exc.errno or 0)
        raise IndexUnavailable(f"cannot create {path.parent}: {said or exc}") from None
    for attempt in (1, 2):
        try:
            return _open(path)
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                raise IndexCorrupt(f"{path.name}: {exc}") from None
            if attempt == 2 or not is_machine_refusal(exc):
                if is_machine_refusal(exc):
                    raise IndexUnavailable(f"{path}: {exc}{_why(path.parent)}") from None
                raise
            time.sleep(RETRY_PAUSE_SECONDS)
    raise AssertionError("unreachable")


def _why(folder: Path) -> str:
    """What the folder says of a refusal SQLite words vaguely ("disk I/O error", "unable to open")."""
    try:
        found = os.statvfs(folder)
    except OSError:
        return ""
    code = (errno.EROFS if found.f_flag & os.ST_RDONLY else errno.ENOSPC if found.f_bavail == 0
            else errno.EACCES if not os.access(folder, os.W_OK) else 0)
    said = refusal(code) if code else None
    return f" ({said})" if said else ""


def _open(path: Path) -> sqlite3.Connection:
    # The file is never opened here but by SQLite: closing any other descriptor of it would drop
    # the POSIX locks every SQLite connection of this process holds on it, and another process
    # would then checkpoint and remove the WAL under them (issue-dae9d980f587). A file that is not
    # SQLite is reported by SQLite itself as SQLITE_NOTADB.
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        app_id, version = identity(conn)
        if app_id == 0 and version == 0:
            # A fresh file, or one another process is creating right now: look again under
            # the write lock, so its half-made tables are not mistaken for a foreign index.
            conn.execute("BEGIN IMMEDIATE")
            app_id, version = identity(conn)
            fresh = app_id == 0 and version == 0 and not _has_tables(conn)
            conn.execute("COMMIT")
            if fresh:
                set_wal(conn)
                _migrate(conn, 0)
                app_id, version = identity(conn)
        if app_id != APPLICATION_ID:
            raise IndexCorrupt(f"{path.name} is not a docir index")
        if version > SCHEMA_VERSION:
            raise IndexCorrupt(f"{path.name} was written by a newer docir (schema {version})")
        set_wal(conn)
        if version < SCHEMA_VERSION:
            _migrate(conn, version)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn
    except BaseException:
        conn.close()
        raise


def damage_found(conn: sqlite3.Connection) -> str | None:
    """Why the file is damaged, by `PRAGMA quick_check` and the tables its version must have; None if sound.

    For errors SQLite does not call damage itself ("no such table"): a file is set aside only on proof.
    """
    try:
        verdict = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
        if verdict != ["ok"]:
            return "quick_check: " + "; ".join(verdict)
        have = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            return str(exc)
        raise
    missing = sorted(_expected_tables() - have)
    return f"tables missing: {', '.join(missing)}" if missing else None


_EXPECTED: frozenset[str] | None = None


def _expected_tables() -> frozenset[str]:
    global _EXPECTED
    if _EXPECTED is None:
        memory = sqlite3.connect(":memory:", isolation_level=None)
        _migrate(memory, 0)
        _EXPECTED = frozenset(str(r[0]) for r in memory.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        memory.close()
    return _EXPECTED


def open_index_readonly(path: Path, *, own: bool = False) -> sqlite3.Connection:
    """A connection SQLite itself refuses to write through (`mode=ro`): for peers, and (`own`) for a
    look at this store's index from a cold command's forked walk.

    Runs no migration. Raises IndexUnreadable.
    """
    if not path.is_file():
        raise IndexUnreadable("no index yet")
    # A WAL database opened read-only still creates its -wal and -shm files when they are
    # missing, which would write into the peer's folder. No -wal file means nothing is being
    # written there now, so a peer's file can be read as immutable and nothing is created. Our own
    # index may gain them, and must be read with its locks: a writer of this store may start now.
    flags = "mode=ro" if own or Path(f"{path}-wal").exists() else "mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?{flags}", uri=True,
                               timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        app_id, version = identity(conn)
    except sqlite3.DatabaseError as exc:
        raise IndexUnreadable(str(exc)) from None
    if app_id != APPLICATION_ID:
        conn.close()
        raise IndexUnreadable("not a docir index")
    if version != SCHEMA_VERSION:
        conn.close()
        raise IndexUnreadable(f"index schema {version}, this docir reads {SCHEMA_VERSION}")
    return conn


def copy_to_memory(conn: sqlite3.Connection) -> sqlite3.Connection:
    """A private, writable in-memory copy of a read-only index: for a peer whose files moved on from its
    index, brought up to date here without writing a byte of the peer's (adr-9a41c6e2f7d3)."""
    memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    memory.row_factory = sqlite3.Row
    conn.backup(memory)
    return memory


def set_aside(path: Path) -> Path | None:
    """Rename a damaged index (and its WAL files) to `index.db.damaged-<time>`; the last two are kept.

    Never unlinks what it is not sure is damaged: only copies set aside before are removed.
    Returns where the index went (None if there was no file).
    """
    if not path.exists():
        return None
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}{DAMAGED_INFIX}{stamp}")
    serial = 1
    while target.exists():
        serial += 1
        target = path.with_name(f"{path.name}{DAMAGED_INFIX}{stamp}-{serial}")
    for suffix in _COMPANIONS:
        try:
            os.rename(f"{path}{suffix}", f"{target}{suffix}")
        except FileNotFoundError:
            pass
    _keep_newest_damaged(path)
    return target


def _keep_newest_damaged(path: Path) -> None:
    prefix = f"{path.name}{DAMAGED_INFIX}"
    # Names carry the time they were set aside (a rename keeps the file's own mtime).
    kept = sorted((p for p in path.parent.glob(f"{prefix}*") if not p.name.endswith(_COMPANIONS[1:])),
                  key=lambda p: p.name, reverse=True)
    for old in kept[KEEP_DAMAGED:]:
        for suffix in _COMPANIONS:
            try:
                os.unlink(f"{old}{suffix}")
            except FileNotFoundError:
                pass


def identity(conn: sqlite3.Connection) -> tuple[int, int]:
    # One statement, one snapshot: read apart, a migration committing in between would
    # show the old application_id with the new user_version, which looks foreign.
    app_id, version = conn.execute(
        "SELECT a.application_id, v.user_version FROM pragma_application_id() a, pragma_user_version() v"
    ).fetchone()
    return int(app_id), int(version)


def _has_tables(conn: sqlite3.Connection) -> bool:
    return int(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]) > 0


def set_wal(conn: sqlite3.Connection) -> None:
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if str(mode).lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on any exception): writers queue on SQLite's lock (busy
    timeout) instead of failing; the index, its migrations and the vector vault all write so."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _migrate(conn: sqlite3.Connection, current: int) -> None:
    for number, migration in enumerate(MIGRATIONS[current:], start=current + 1):
        with immediate(conn):
            # Another process may have migrated while we waited for the lock.
            if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= number:
                continue
            migration(conn)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {number}")
