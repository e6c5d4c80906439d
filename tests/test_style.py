"""ruff is part of the suite, so the README's test command checks style too (its settings are in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_tree_passes_ruff() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "docir", "tests", "benchmarks"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
