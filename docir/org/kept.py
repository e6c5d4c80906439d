"""The organisation store connections the warm worker keeps between commands (adr-8a976b997594).

A cold command connects, reads and closes. The worker answers many commands in one process, and
connecting anew for each would cost each one a server backend's start and an authentication (about
10 of the 11 ms that opening the peer took, benchmarks/org_warm.py). So the worker turns keeping on
(`start`); a command's peer takes an idle connection of its address, when one is kept, and gives it
back when it closes. Each command still runs its own read-only transaction, in which the schema version and
the repositories are read again (peer.py): nothing kept can go stale, only the connection is reused.

A taken connection is that command's alone until it is given back, so two commands running side by
side never share one. At most MOST are kept; one idle for IDLE_SECONDS is closed; one the server
closed meanwhile fails the command's first statement, and the peer connects anew, once (peer.py).
psycopg is imported only once a connection it made is handed in.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

    from docir.settings import Settings

MOST = 4  # a worker serves one store, which lists one or two organisation stores; the rest is concurrency
IDLE_SECONDS = 300.0  # a connection unused this long is closed: the server's backends are not ours to hoard

Key = tuple[str, ...]


def key_of(url: str, connect_timeout: int, settings: Settings) -> Key:
    """Whom a connection is for: the URL, the connect timeout, and libpq's own environment (PGPASSWORD,
    PGSERVICE, PGUSER, PGCONNECT_TIMEOUT ...), which fills in what the URL leaves out."""
    return (url, str(connect_timeout), *settings.libpq())


class Keeper:
    """Idle connections by key, the least recently given back first; thread-safe."""

    def __init__(self, most: int = MOST, idle_seconds: float = IDLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.most = most
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._idle: list[tuple[Key, psycopg.Connection[Any], float]] = []
        self._timer: threading.Timer | None = None
        self._stopped = False

    def take(self, key: Key) -> psycopg.Connection[Any] | None:
        """The most recently given back idle connection for `key`, now the caller's alone; None if none is."""
        with self._lock:
            stale = self._expired()
            found = next((i for i in range(len(self._idle) - 1, -1, -1) if self._idle[i][0] == key), None)
            conn = None if found is None else self._idle.pop(found)[1]
        _close(stale)
        return conn

    def give(self, key: Key, conn: psycopg.Connection[Any]) -> None:
        """A command is done with `conn`: its transaction is ended (the snapshot must not outlive the
        command), and it is kept unless it is broken, MOST are kept already, or keeping has stopped."""
        if not _ended(conn):
            _close([conn])
            return
        with self._lock:
            if self._stopped:
                surplus = [conn]
            else:
                self._idle.append((key, conn, self._clock()))
                surplus = [c for _, c, _ in self._idle[:-self.most]]
                del self._idle[:-self.most]
                surplus += self._expired()
                self._schedule()
        _close(surplus)

    def prune(self) -> None:
        """Close the connections idle for IDLE_SECONDS or more (a timer calls this)."""
        with self._lock:
            self._timer = None
            stale = self._expired()
            self._schedule()
        _close(stale)

    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def stop(self) -> None:
        """Close every idle connection; one given back later is closed at once."""
        with self._lock:
            self._stopped = True
            stale = [conn for _, conn, _ in self._idle]
            self._idle.clear()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        _close(stale)

    def _expired(self) -> list[psycopg.Connection[Any]]:
        """Remove and return the connections idle too long (the lock held)."""
        now = self._clock()
        stale = [conn for _, conn, since in self._idle if now - since >= self.idle_seconds]
        self._idle = [entry for entry in self._idle if now - entry[2] < self.idle_seconds]
        return stale

    def _schedule(self) -> None:
        """A timer for the oldest idle connection's expiry, when none is set (the lock held)."""
        if self._timer is not None or not self._idle or self._stopped:
            return
        wait = max(0.0, self._idle[0][2] + self.idle_seconds - self._clock())
        self._timer = threading.Timer(wait, self.prune)
        self._timer.daemon = True
        self._timer.start()


def _ended(conn: psycopg.Connection[Any]) -> bool:
    """End the connection's transaction; False when it is closed or broken (it cannot be reused)."""
    import psycopg

    if conn.closed or conn.broken:
        return False
    try:
        conn.rollback()
    except psycopg.Error:
        return False
    return conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def _close(conns: list[psycopg.Connection[Any]]) -> None:
    for conn in conns:
        conn.close()


_KEEPER: Keeper | None = None


def start() -> Keeper:
    """In the warm worker: from now on, organisation store connections are kept between commands."""
    global _KEEPER
    _KEEPER = Keeper()
    return _KEEPER


def current() -> Keeper | None:
    """The keeper of this process; None in a cold command, which connects and closes."""
    return _KEEPER


def stop() -> None:
    """The worker is shutting down: close what is kept, and keep nothing more."""
    global _KEEPER
    keeper, _KEEPER = _KEEPER, None
    if keeper is not None:
        keeper.stop()
