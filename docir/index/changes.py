"""Whether an index changed since a long-lived process last read it: what its caches are keyed by.

The warm worker answers each command on a new connection, and without a signal every command reads
again what no write changed: the documents' visibility, their stats for the stat-walk's plan, the
vectors still due. A connection kept open per index answers `PRAGMA data_version`, which changes
whenever any other connection, in this process or another, commits to that file; with the file's
identity (a rebuild, a `mv` or a restore puts another file under the same name) it is the index's
*stamp* (adr-6f0c2a41d7e3). Only a process that called `keep` holds such connections: a one-shot
command reads once, and would pay for a second connection.
"""

from __future__ import annotations

import _thread
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from docir.index.db import FileIdentity, file_identity

T = TypeVar("T")

Stamp = tuple[str, FileIdentity, int]  # the index's path, its file's identity, its data_version

_ON = [False]
_KEPT: dict[str, tuple[FileIdentity, sqlite3.Connection]] = {}
_LOCK = _thread.allocate_lock()  # not threading's: a cold command never imports threading for this
_KEEP_MOST = 8  # indexes with a kept connection: a worker serves one store (its peers are read-only copies)


def keep() -> None:
    """This process lives long and reads often: keep a connection per index, and let caches use stamps."""
    _ON[0] = True


def stamp(path: Path, seen: FileIdentity | None, conn: sqlite3.Connection) -> Stamp | None:
    """The stamp of the index at `path`, as a command whose connection `conn` opened the file `seen`
    finds it; None when nothing may be cached: not a long-lived process, the path names another file
    than `conn`'s now, or `conn` is inside a transaction (its snapshot may be older than the stamp).

    Read it before reading what it keys: a commit in between only makes the next command read again.
    """
    if not _ON[0] or seen is None or conn.in_transaction:
        return None
    now = current(path)
    return now if now is not None and now[1] == seen else None


def current(path: Path) -> Stamp | None:
    """The stamp of the file at `path` now, through its kept connection (opened if need be); None when
    not a long-lived process or there is no index there."""
    if not _ON[0]:
        return None
    key = str(path)
    with _LOCK:
        found = file_identity(path)
        if found is None:
            return None
        kept = _KEPT.get(key)
        if kept is not None and kept[0] != found:
            kept[1].close()
            kept = None
        if kept is None:
            try:
                # Read-write, never creating: it writes nothing, but if it is the file's last connection to
                # close, it checkpoints the WAL into the file as every other one would.
                watcher = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=rw", uri=True,
                                          isolation_level=None, check_same_thread=False)
            except sqlite3.Error:
                return None
            if file_identity(path) != found:  # replaced while it opened
                watcher.close()
                return None
            while len(_KEPT) >= _KEEP_MOST:
                _KEPT.pop(next(iter(_KEPT)))[1].close()
            kept = _KEPT[key] = (found, watcher)
        try:
            version = int(kept[1].execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            _KEPT.pop(key)[1].close()
            return None
    return key, found, version


def forget() -> None:
    """Close every kept connection (a long-lived process on its way out, and tests)."""
    with _LOCK:
        for _, conn in _KEPT.values():
            conn.close()
        _KEPT.clear()


class Kept(Generic[T]):
    """One value per index, read again only when the index's stamp changed since it was read."""

    def __init__(self) -> None:
        self._values: dict[str, tuple[Stamp, T]] = {}
        self._lock = _thread.allocate_lock()

    def get(self, now: Stamp | None, read: Callable[[], T], fits: Callable[[T], bool] | None = None) -> T:
        """The value `read` returned under the stamp `now` (and that `fits`, when it depends on more than
        the index), read now if there is none (or `now` is None)."""
        if now is None:
            return read()
        key = now[0]
        with self._lock:
            held = self._values.get(key)
        if held is not None and held[0] == now and (fits is None or fits(held[1])):
            return held[1]
        value = read()
        with self._lock:
            self._values[key] = (now, value)
            while len(self._values) > _KEEP_MOST:
                self._values.pop(next(iter(self._values)))
        return value
