"""The warm worker keeps what it read of the index between commands (index/changes.py): its answers are
still a cold command's, byte for byte, before and after the files change."""

from __future__ import annotations

import os
from pathlib import Path

from tests.worker.helpers import docir, start_worker

TASK = "where are sessions kept"
KEPT = "adr-0000000000a1"
DECISION = "docs/decisions/keep-sessions-in-the-database.md"


def test_warm_context_answers_as_a_cold_one_after_an_edit(warm_store: Path) -> None:
    cold_env = {**os.environ, "DOCIR_WORKER": "0"}
    start_worker(warm_store)
    assert docir(warm_store, "embed", "--flush").returncode == 0
    warm = [docir(warm_store, "context", TASK) for _ in range(2)]  # the second from what the first kept
    cold = docir(warm_store, "context", TASK, env=cold_env)
    assert KEPT in cold.stdout
    assert [(w.returncode, w.stdout, w.stderr) for w in warm] == [(cold.returncode, cold.stdout, cold.stderr)] * 2
    path = warm_store / DECISION
    path.write_text(path.read_text(encoding="utf-8").replace("status: accepted", "status: rejected", 1),
                    encoding="utf-8")
    edited = docir(warm_store, "context", TASK)
    assert edited.returncode == 0 and KEPT not in edited.stdout
    assert docir(warm_store, "embed", "--flush").returncode == 0
    warm_after = docir(warm_store, "context", TASK)
    cold_after = docir(warm_store, "context", TASK, env=cold_env)
    assert (warm_after.stdout, warm_after.stderr) == (cold_after.stdout, cold_after.stderr)
