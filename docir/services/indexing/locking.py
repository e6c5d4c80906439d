"""One store-wide write lock around every read-modify-write of files and index."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from docir.errors import Cancelled

# A writer whose caller can go away looks this often, while it waits for the lock, whether it has.
CANCEL_POLL_SECONDS = 0.05


@contextmanager
def write_lock(lock_path: Path, gone: Callable[[], bool] | None = None) -> Iterator[None]:
    """Hold an exclusive flock on `lock_path`; concurrent writers wait their turn.

    flock is released by the kernel when the process dies, so a killed writer
    can never leave the store locked. A command whose caller can go away (the warm
    worker's client, on Ctrl-C: `gone` says when) stops while it waits, and again once
    it holds the lock: a write its user abandoned never lands.
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    locked = False
    try:
        if gone is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            while True:
                _check(gone)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(CANCEL_POLL_SECONDS)
        locked = True
        _check(gone)
        yield
    finally:
        if locked:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _check(gone: Callable[[], bool] | None) -> None:
    if gone is not None and gone():
        raise Cancelled()
