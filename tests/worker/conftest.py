"""The warm worker's fixtures: the sample store with the worker enabled, and every worker stopped after."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from docir.services.vectors import model_registry
from docir.worker import paths
from tests.worker.helpers import docir


@pytest.fixture
def warm_store(sample_store: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Iterator[Path]:
    """The sample store with the worker enabled; every worker it starts is stopped afterwards."""
    root = sample_store
    monkeypatch.setenv("DOCIR_WORKER", "1")
    monkeypatch.setenv("DOCIR_WORKER_IDLE", "60")
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    yield root
    found = paths.read_status(root)
    docir(root, "worker", "stop", timeout=60)
    if found and paths.pid_alive(int(found["pid"])):
        os.kill(int(found["pid"]), signal.SIGKILL)


@pytest.fixture
def isolated_process_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A WarmWorker registers its model for the process: give the registration back afterwards."""
    monkeypatch.setattr(model_registry, "_HELD", model_registry.held_model())
