"""A worker never serves a client of another docir, nor outlives an upgrade of its own code."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import docir as docir_package
from docir.worker import paths
from tests.worker.helpers import ID, docir, start_worker, wait_for


def _copy_of_docir(tmp_path: Path, version: str | None = None) -> dict[str, str]:
    """An environment whose `python -m docir` runs a copy of this docir, optionally claiming another version."""
    site = tmp_path / "other-site"
    shutil.copytree(Path(docir_package.__file__).parent, site / "docir",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if version is not None:
        init = site / "docir" / "__init__.py"
        init.write_text(init.read_text(encoding="utf-8").replace(
            f'__version__ = "{docir_package.__version__}"', f'__version__ = "{version}"'), encoding="utf-8")
    return {**os.environ, "PYTHONPATH": str(site)}


def test_a_worker_of_another_version_is_stopped_and_the_command_runs_here(warm_store: Path,
                                                                            tmp_path: Path) -> None:
    cold = docir(warm_store, "get", ID, env={**os.environ, "DOCIR_WORKER": "0"})
    same = start_worker(warm_store)
    assert docir(warm_store, "get", ID).stdout == cold.stdout
    assert paths.pid_alive(same)  # a worker of this very docir serves and stays
    docir(warm_store, "worker", "stop")

    other = start_worker(warm_store, _copy_of_docir(tmp_path, version="0.0.0+other"))
    seen = json.loads(docir(warm_store, "worker", "status", "--json").stdout)
    assert (seen["pid"], seen["version"]) == (other, "0.0.0+other")  # looking at it stops nothing
    got = docir(warm_store, "get", ID)
    assert (got.returncode, got.stdout) == (0, cold.stdout), got.stderr
    assert wait_for(lambda: not paths.pid_alive(other), timeout=30), "the other version's worker kept running"


def test_a_worker_whose_code_changes_on_disk_exits(warm_store: Path, tmp_path: Path) -> None:
    env = _copy_of_docir(tmp_path)
    pid = start_worker(warm_store, env)
    source = Path(env["PYTHONPATH"]) / "docir" / "cli" / "render.py"
    later = time.time() + 5
    os.utime(source, (later, later))  # what an upgrade or a pull does to the files the worker loaded
    assert wait_for(lambda: not paths.pid_alive(pid), timeout=30), "the worker kept serving replaced code"
    got = docir(warm_store, "get", ID, env=env)
    assert got.returncode == 0 and ID in got.stdout, got.stderr
