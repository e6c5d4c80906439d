"""benchmarks/ is a package: each benchmark runs as `python -m benchmarks.<name>` from the repository root,
and its modules import each other by name (`from benchmarks._harness import ...`), never by editing sys.path."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from tests.conftest import REPO

BENCHMARKS = REPO / "benchmarks"
# Git-ignored output (stores, unpacked revisions, results), and the log of past runs, which quotes old code.
LEFT_OUT_FOLDERS = {".cache", "results", "__pycache__"}
LEFT_OUT_FILES = {BENCHMARKS / "history.md"}


def files() -> list[Path]:
    found = []
    for folder, folders, names in os.walk(BENCHMARKS):
        folders[:] = sorted(name for name in folders if name not in LEFT_OUT_FOLDERS)
        found += [Path(folder) / name for name in sorted(names)]
    return [path for path in found if path not in LEFT_OUT_FILES]


def module_names() -> list[str]:
    names = []
    for path in files():
        if path.suffix == ".py":
            parts = path.relative_to(REPO).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = module_names()


def test_every_folder_of_modules_is_a_package() -> None:
    folders = {path.parent for path in files() if path.suffix == ".py"}
    assert folders >= {BENCHMARKS, BENCHMARKS / "quality"}
    assert [f for f in sorted(folders) if not (f / "__init__.py").is_file()] == []


def test_no_file_under_benchmarks_edits_sys_path() -> None:
    mentions = [str(path.relative_to(REPO)) for path in files() if b"sys.path" in path.read_bytes()]
    assert mentions == [], "import benchmark modules by name (from benchmarks.x import ...), run them with -m"


@pytest.mark.parametrize("name", MODULES)
def test_the_module_imports_by_its_package_name(name: str) -> None:
    """Importing runs no benchmark: a script's work starts in main(), under `if __name__ == "__main__":`."""
    module = importlib.import_module(name)
    path = Path(str(module.__file__)).resolve()
    assert path.is_relative_to(BENCHMARKS.resolve())
    source = path.read_text(encoding="utf-8")
    if "def main(" in source:
        assert 'if __name__ == "__main__":' in source, f"{name}: main() runs only when the module is run"
