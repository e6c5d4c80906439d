"""The worker's BLAS runs one thread per command thread: its commands are the parallelism.

A multi-threaded OpenBLAS under eight concurrent `context` calls made every cosine queue for
one shared pool whose threads spin between calls (~27 ms of CPU per matrix-vector product
instead of 0.2 ms). Checked in a real `worker serve`, through the OpenBLAS numpy loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Serve the store until idle for a second, then ask the OpenBLAS that numpy loaded how many threads it runs.
PROBE = """
import ctypes, glob, os, sys
from docir.cli.main import main
main(["worker", "serve", "--root", sys.argv[1], "--idle", "1"])
import numpy
libs = glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs", "*openblas*"))
if not libs:
    print("no-openblas")
    sys.exit(0)
lib = ctypes.CDLL(libs[0])
for name in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads", "openblas_get_num_threads"):
    if hasattr(lib, name):
        print(getattr(lib, name)())
        break
else:
    print("no-openblas")
"""


def probe(root: Path, **env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", PROBE, str(root)], capture_output=True, text=True, timeout=120,
                          env={**base, "DOCIR_WORKER": "1", "DOCIR_MODEL_PATH": str(root / "no-model"), **env})
    assert done.returncode == 0, done.stderr
    found = done.stdout.strip().splitlines()[-1]
    if found == "no-openblas":
        pytest.skip("numpy here does not bundle OpenBLAS")
    return found


def test_the_worker_runs_single_threaded_blas(sample_store: Path) -> None:
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: OpenBLAS runs one thread anyway")
    assert probe(sample_store) == "1"


def test_a_users_own_blas_setting_is_kept(sample_store: Path) -> None:
    assert probe(sample_store, OPENBLAS_NUM_THREADS="2") == "2"
