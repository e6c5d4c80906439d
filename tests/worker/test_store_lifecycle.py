"""Killed writes leave nothing in docs/, and a worker whose store is deleted goes away."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from docir.worker import paths
from tests.worker.helpers import ID, SETUP_TIMEOUT, docir, start_worker, wait_for


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def test_kill_9_during_writes_leaves_no_file_in_docs(warm_store: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_text("".join(f"Line {n} of a long body that takes a moment to write and sync.\n"
                           for n in range(16_000)), encoding="utf-8")  # about 1 MB
    lexical = {**os.environ, "DOCIR_MODEL_PATH": str(tmp_path / "no-model"), "DOCIR_WORKER_IDLE": "60"}
    before = files_under(warm_store / "docs")
    command = [sys.executable, "-m", "docir", "update", ID, "--replace-body", "--body", f"@{big}",
               "--root", str(warm_store)]
    # Kills spread over a writer's whole life: starting, reading, writing the temp file, renaming it.
    for attempt, delay in enumerate(0.06 * n for n in range(1, 17)):
        through_worker = attempt % 4 == 3
        env = lexical if through_worker else {**lexical, "DOCIR_WORKER": "0"}
        if through_worker:
            assert docir(warm_store, "worker", "start", env=env, timeout=SETUP_TIMEOUT).returncode == 0
        writer = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(delay)  # the kill's moment is the variable here, not a synchronisation
        victim = writer.pid
        if through_worker:
            status = paths.read_status(warm_store)
            victim = int(status["pid"]) if status else writer.pid
        os.kill(victim, signal.SIGKILL)
        writer.wait(timeout=SETUP_TIMEOUT)
        assert wait_for(lambda pid=victim: not paths.pid_alive(pid), timeout=SETUP_TIMEOUT)  # type: ignore[misc]
        assert files_under(warm_store / "docs") == before, f"attempt {attempt} after {delay:.2f}s"
    # And the document is whole: either its old body or the new one, never a torn one.
    got = docir(warm_store, "get", ID, "--json", env={**lexical, "DOCIR_WORKER": "0"})
    assert got.returncode == 0, got.stderr
    body = json.loads(got.stdout)["documents"][0]["body"]
    assert body.strip() == big.read_text(encoding="utf-8").strip() or "Line 0 of a long body" not in body


def test_deleting_the_store_folder_stops_its_worker(warm_store: Path) -> None:
    pid = start_worker(warm_store)
    shutil.rmtree(warm_store)
    assert wait_for(lambda: not paths.pid_alive(pid), timeout=30), "the worker outlived its store"


def test_deleting_the_index_stops_its_worker(warm_store: Path) -> None:
    pid = start_worker(warm_store)
    for leftover in (warm_store / ".docir").glob("index.db*"):
        leftover.unlink()
    assert wait_for(lambda: not paths.pid_alive(pid), timeout=30), "the worker outlived its index"
