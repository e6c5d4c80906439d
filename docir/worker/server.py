"""The worker's socket server: one instance per store, each connection on its own thread.

Like dmypy: a status file with pid and socket path; errors go back as
{"error": ...} and are never raised across the socket; the status file is
removed before the stop reply, so a client never sees a worker that is gone.

Every accepted connection gets its own thread, so a long command (a flush,
`reindex --full`, `lint --deep`) never holds up `status`, `stop` or a read.
The first frame on a connection is the server's `{"ready": true, "version": ..., "store": ...}`:
a client that does not get it within a fraction of a second, or gets another docir
version's, runs its command itself (docir/worker/identity.py); one that gets another
store's hangs up without a word (paths.store_identity, adr-121c73e3f21e).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import socket
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from docir.worker import identity, paths, protocol

# Watching a worker must not keep it alive.
PASSIVE_REQUESTS = frozenset({"status"})
# More connections than this at once are told to run their command themselves, not queued:
# a queue is exactly where a request waits long enough for its client to give up.
MAX_CONNECTIONS = 64
# How often the worker looks whether its own code changed on disk (a stat walk of its sources): a
# warm command never pays for it, and a pull or an upgrade is noticed within this long.
CODE_CHECK_SECONDS = 0.5
# How long a stopping worker lets commands already running finish before it exits.
DRAIN_REQUESTS_SECONDS = 60.0


class Handler(Protocol):
    def busy(self) -> bool:
        """True while background work remains (the idle clock waits for it)."""
        ...

    def close(self) -> None:
        """Finish background work cleanly before the process exits."""
        ...


class AlreadyRunning(Exception):
    pass


class Server:
    def __init__(self, root: Path, handler: Handler, idle_timeout: float,
                 log: Callable[[str], None] = lambda message: None,
                 watch: Callable[[], str | None] = lambda: None, runtime: str | None = None) -> None:
        self.root = root
        self.runtime = runtime  # XDG_RUNTIME_DIR: where the socket goes (paths.runtime_dir)
        self.handler = handler
        self.idle_timeout = idle_timeout
        self.log = log
        self.watch = watch  # a reason to exit (the store is gone), checked every half second
        self._code = identity.code_stamp()  # the files this process loaded its code from
        self._code_checked = time.monotonic()
        self.store: dict[str, Any] | None = None  # the store this worker belongs to, once it holds the lock
        self.socket_path = Path()  # named after the store: set by claim()
        self._stop = threading.Event()
        # Written once by a stop: the loop's select wakes at once, not at its next half-second look.
        self._wake_read, self._wake_write = os.pipe()
        self._lock_fd: int | None = None
        self._active = 0
        self._active_lock = threading.Lock()
        self._idle_since = time.monotonic()

    def claim(self) -> None:
        """Take the store's worker lock for life; raise AlreadyRunning if another worker has it."""
        paths.ensure_run_dir(self.root)
        lock = paths.lock_path(self.root)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise AlreadyRunning(str(lock)) from None
        self._lock_fd = fd
        self.store = paths.identity_of(self.root, os.fstat(fd))
        self.socket_path = paths.socket_path(self.store, self.runtime)

    def serve(self, extra: dict[str, Any]) -> None:
        """Bind, publish the status file, and answer until stopped, idle, or the store is gone."""
        try:
            os.unlink(self.socket_path)  # stale: we hold the lock, so no live worker owns it
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.socket_path))
        os.chmod(self.socket_path, 0o600)
        listener.listen(64)
        self._publish(extra)
        self._idle_since = time.monotonic()
        gone_before: str | None = None
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([listener.fileno(), self._wake_read], [], [], 0.5)
                if self._stop.is_set():
                    break
                if self._code_changed():
                    break
                if listener.fileno() in ready:
                    conn, _ = listener.accept()
                    self._start(conn)
                    continue
                gone = self.watch() or self._moved()
                if gone and gone_before:  # twice in a row: a rebuild replaces a damaged index in between
                    self.log(f"{gone}; exiting")
                    break
                gone_before = gone
                if self._active or self.handler.busy():
                    self._idle_since = time.monotonic()
                elif time.monotonic() - self._idle_since > self.idle_timeout:
                    self.log(f"idle for {self.idle_timeout:.0f}s; exiting")
                    break
        finally:
            self._unpublish()
            listener.close()  # new clients now find no worker and run their command themselves
            try:
                os.unlink(self.socket_path)
            except FileNotFoundError:
                pass
            self._wait_for_requests()
            self.handler.close()
            for fd in (self._wake_read, self._wake_write):
                os.close(fd)

    def _moved(self) -> str | None:
        """The store at this worker's path is no longer the one it locked: the folder was moved away,
        or another store (a copy, a restore) was put in its place. Its clients look for a worker with
        their own identity; this one would only hold a lock no store uses."""
        if paths.store_identity(self.root) != self.store:
            return f"{self.root} is no longer the store this worker started for"
        return None

    def _code_changed(self) -> bool:
        """docir was upgraded or edited under this process: exit before taking another command, so the
        next one runs on the new code (and starts a worker that has it)."""
        if time.monotonic() - self._code_checked < CODE_CHECK_SECONDS:
            return False
        self._code_checked = time.monotonic()
        try:
            if identity.code_stamp() == self._code:
                return False
        except OSError:  # the package folder itself is gone (uninstalled, or mid-upgrade)
            pass
        self.log("docir's code changed on disk; exiting")
        return True

    def _start(self, conn: socket.socket) -> None:
        with self._active_lock:
            full = self._active >= MAX_CONNECTIONS
            if not full:
                self._active += 1
        if full:
            conn.close()  # no ready frame: the client runs its command itself
            return
        threading.Thread(target=self._serve_connection, args=(conn,), name="connection", daemon=True).start()

    def _serve_connection(self, conn: socket.socket) -> None:
        try:
            with conn:
                name = self._answer(conn)
            if name not in PASSIVE_REQUESTS:
                self._idle_since = time.monotonic()
        finally:
            with self._active_lock:
                self._active -= 1

    def _wait_for_requests(self) -> None:
        deadline = time.monotonic() + DRAIN_REQUESTS_SECONDS
        while self._active and time.monotonic() < deadline:
            time.sleep(0.05)

    def _answer(self, conn: socket.socket) -> str:
        try:
            protocol.send(conn, {"ready": True, "version": identity.VERSION, "store": self.store})
            request = protocol.receive(conn)
        except (OSError, protocol.ProtocolError, ValueError) as exc:
            self.log(f"bad request: {exc}")
            return ""
        name = str(request.get("cmd", ""))
        if peer_closed(conn):
            return name  # the client gave up (Ctrl-C) before its request started: it never runs
        method = getattr(self.handler, f"cmd_{name}", None) if name.isidentifier() else None
        cancelled = threading.Event()
        request["_cancelled"] = cancelled  # set when the client hangs up while its command runs
        watcher = _Watcher(conn, cancelled)
        if method is None:
            reply: dict[str, Any] = {"error": f"unknown request {name!r}"}
        else:
            watcher.start()
            try:
                reply = method(request)
            except Exception as exc:  # an error is an answer, never a dead worker
                self.log(traceback.format_exc())
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            finally:
                watcher.stop()
        if name == "status":
            reply["requests"] = self._active  # connections being served, this one included
        if name == "stop":
            self._unpublish()  # before the reply: "stopped" must mean gone
            self._stop.set()
            try:
                os.write(self._wake_write, b"x")
            except OSError:  # the loop is past its select already
                pass
        try:
            protocol.send(conn, reply)
        except OSError:
            pass
        return name

    def _publish(self, extra: dict[str, Any]) -> None:
        status = {"pid": os.getpid(), "socket": str(self.socket_path), "store": self.store, "started": time.time(),
                  **extra}
        target = paths.status_path(self.root)
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(status), encoding="utf-8")
        os.replace(tmp, target)

    def _unpublish(self) -> None:
        # Only its own record: a copy of it put at this path names this pid too, but another store.
        status = paths.read_record(self.root)
        if status is not None and int(status.get("pid", 0)) == os.getpid() and status.get("store") == self.store:
            try:
                os.unlink(paths.status_path(self.root))
            except FileNotFoundError:
                pass


def peer_closed(conn: socket.socket) -> bool:
    """True if the client has hung up: its end reads as end-of-file (or the connection is broken)."""
    try:
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False
        return conn.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class _Watcher:
    """Sets `cancelled` when the client hangs up while its request runs (a client sends nothing else)."""

    def __init__(self, conn: socket.socket, cancelled: threading.Event) -> None:
        self._conn = conn
        self._cancelled = cancelled
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watch-client", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()

    def _run(self) -> None:
        while not self._done.wait(0.1):
            if peer_closed(self._conn):
                self._cancelled.set()
                return
