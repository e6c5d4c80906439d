"""What the worker's tests share: the docir CLI as a real process, its worker's status, waiting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ID = "adr-0000000000a1"
SETUP_TIMEOUT = 120.0  # generous: a loaded 2-core machine starts a worker and a model slowly


def docir(root: Path, *args: str, env: dict[str, str] | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "docir", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=timeout, env=env or os.environ.copy())


def status(root: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(docir(root, "worker", "status").stdout)


def settled(root: Path) -> bool:
    """Whether the store's worker answers and has nothing left to embed. A worker too busy to answer at once
    (a loaded machine) is answered for by the CLI, from its record, without the counts: not settled yet."""
    found = status(root)
    return bool(found.get("running")) and found.get("due") == 0


def wait_for(predicate, timeout: float = 60.0, step: float = 0.2) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def start_worker(root: Path, env: dict[str, str] | None = None) -> int:
    """`docir worker start`, which waits until the worker answers; its pid."""
    started = docir(root, "worker", "start", "--json", env=env, timeout=SETUP_TIMEOUT)
    assert started.returncode == 0, started.stderr
    return int(json.loads(started.stdout)["pid"])
