"""The worker's socket loop: one instance per store, requests dispatched to `cmd_<name>`.

Like dmypy: a status file with pid and socket path; errors go back as
{"error": ...} and are never raised across the socket; the status file is
removed before the stop reply, so a client never sees a worker that is gone.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import socket
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from docir.worker import paths, protocol

# Watching a worker must not keep it alive.
PASSIVE_REQUESTS = frozenset({"status"})


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
                 log: Callable[[str], None] = lambda message: None) -> None:
        self.root = root
        self.handler = handler
        self.idle_timeout = idle_timeout
        self.log = log
        self.socket_path = paths.socket_path(root)
        self._stop = False
        self._lock_fd: int | None = None

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

    def serve(self, extra: dict[str, Any]) -> None:
        """Bind, publish the status file, and answer until stopped or idle."""
        try:
            os.unlink(self.socket_path)  # stale: we hold the lock, so no live worker owns it
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.socket_path))
        os.chmod(self.socket_path, 0o600)
        listener.listen(16)
        self._publish(extra)
        last_activity = time.monotonic()
        try:
            while not self._stop:
                ready, _, _ = select.select([listener], [], [], 0.5)
                if ready:
                    conn, _ = listener.accept()
                    with conn:
                        name = self._answer(conn)
                    if name not in PASSIVE_REQUESTS:
                        last_activity = time.monotonic()
                elif self.handler.busy():
                    last_activity = time.monotonic()
                elif time.monotonic() - last_activity > self.idle_timeout:
                    self.log(f"idle for {self.idle_timeout:.0f}s; exiting")
                    break
        finally:
            self._unpublish()
            listener.close()
            self.handler.close()
            try:
                os.unlink(self.socket_path)
            except FileNotFoundError:
                pass

    def _answer(self, conn: socket.socket) -> str:
        try:
            request = protocol.receive(conn)
        except (OSError, protocol.ProtocolError, ValueError) as exc:
            self.log(f"bad request: {exc}")
            return ""
        name = str(request.get("cmd", ""))
        method = getattr(self.handler, f"cmd_{name}", None) if name.isidentifier() else None
        if method is None:
            reply: dict[str, Any] = {"error": f"unknown request {name!r}"}
        else:
            try:
                reply = method(request)
            except Exception as exc:  # an error is an answer, never a dead worker
                self.log(traceback.format_exc())
                reply = {"error": f"{type(exc).__name__}: {exc}"}
        if name == "stop":
            self._unpublish()  # before the reply: "stopped" must mean gone
            self._stop = True
        try:
            protocol.send(conn, reply)
        except OSError:
            pass
        return name

    def _publish(self, extra: dict[str, Any]) -> None:
        status = {"pid": os.getpid(), "socket": str(self.socket_path), "started": time.time(), **extra}
        target = paths.status_path(self.root)
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(status), encoding="utf-8")
        os.replace(tmp, target)

    def _unpublish(self) -> None:
        status = paths.read_status(self.root)
        if status is not None and int(status.get("pid", 0)) == os.getpid():
            try:
                os.unlink(paths.status_path(self.root))
            except FileNotFoundError:
                pass
