"""CLI tests: the warm workers that commands start in the background exit soon after each test."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _short_lived_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every test has its own store, so a write may start one worker per test; a short idle
    # timeout keeps a full run from accumulating them. Commands behave the same either way.
    monkeypatch.setenv("DOCIR_WORKER_IDLE", "5")
