"""One store-wide write lock around every read-modify-write of files and index."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def write_lock(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `lock_path`; concurrent writers wait their turn.

    flock is released by the kernel when the process dies, so a killed writer
    can never leave the store locked.
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
