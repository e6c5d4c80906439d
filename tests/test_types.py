"""Strict mypy over docir/ and benchmarks/ is part of the suite, so the README's test command checks types too.

What mypy checks (`files`) and where it finds the benchmarks' sibling imports (`mypy_path`) are set in
pyproject.toml, so a bare `mypy` at the repository root checks exactly what this test does.
"""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_package_and_benchmarks_pass_strict_mypy(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "mypy-cache")],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
