"""`docir worker stop` returns once the worker is gone, without waiting on anything else."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from docir.worker import paths


def test_a_zombie_is_not_alive() -> None:
    """A worker that exited is gone, though the process that adopted it has not reaped it yet: stop must not
    wait for the reaping (which some containers' first process does seconds later, or never)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        for _ in range(600):  # until it has exited: its /proc entry says Z while no one has waited for it
            with open(f"/proc/{child.pid}/stat", "rb") as stat:
                if stat.read().rsplit(b")", 1)[-1].split()[0] == b"Z":
                    break
            time.sleep(0.05)
        else:
            raise AssertionError("the child never exited")
        assert not paths.pid_alive(child.pid)
    finally:
        child.wait()
    assert paths.pid_alive(os.getpid())
    assert not paths.pid_alive(child.pid)
