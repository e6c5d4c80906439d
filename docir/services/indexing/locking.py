"""One store-wide write lock around every read-modify-write of files and index."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Inside the warm worker a writer waiting for the lock looks this often whether its client gave up.
CANCEL_POLL_SECONDS = 0.05


@contextmanager
def write_lock(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `lock_path`; concurrent writers wait their turn.

    flock is released by the kernel when the process dies, so a killed writer
    can never leave the store locked. A command the warm worker runs for a client
    that has hung up (Ctrl-C) stops while it waits, and again once it holds the lock:
    a write its user abandoned never lands.
    """
    # Only a writer needs the worker's client context; a cold read of an unchanged store takes no
    # lock and does not import it (cold start, adr-d5e80517405b).
    from docir.worker import context

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    locked = False
    try:
        if context.current() is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            while True:
                context.check_cancelled()
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(CANCEL_POLL_SECONDS)
        locked = True
        context.check_cancelled()
        yield
    finally:
        if locked:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
