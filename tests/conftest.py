"""Shared fixtures: real stores in temp folders, and a guard that no test touches home or this checkout."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from docir.cli.main import main
from tests.caller import caller, settings

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"


@pytest.fixture(autouse=True)
def _isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
              model_cache: Path) -> Iterator[None]:
    """Every test runs with a temp HOME and cwd, so nothing it does can reach the user or the repo.

    Only the models folder is shared, read-only once made: the model is assembled (and, where a test
    asks, built: docir/embed/quantized.py, a few seconds) once per run, not once per test.
    """
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    models = model_cache / "docir" / "models"
    models.mkdir(parents=True, exist_ok=True)
    (home / ".cache" / "docir").mkdir(parents=True)
    (home / ".cache" / "docir" / "models").symlink_to(models, target_is_directory=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / "run"))
    monkeypatch.setenv("DOCIR_WORKER", "0")  # tests that want the warm worker turn it on
    # Each test its own vector vault: what one test embedded never spares another the model.
    monkeypatch.setenv("DOCIR_VECTORS", str(home / "vault" / "vectors.db"))
    monkeypatch.delenv("DOCIR_MODEL_PATH", raising=False)
    monkeypatch.chdir(home)
    yield


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run docir in-process through its real entry point; returns exit code, stdout and stderr."""

    def run(*args: str) -> Result:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def run_process(*args: str, cwd: Path | None = None, input: str | None = None) -> Result:
    """Run docir as its own process, the way an agent or a git hook does."""
    proc = subprocess.run([sys.executable, "-m", "docir", *args], cwd=cwd, input=input,
                          capture_output=True, text=True, timeout=120)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def store(tmp_path: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """An initialised, empty store."""
    root = tmp_path / "store"
    assert cli("init", "--root", str(root)).code == 0
    return root


@pytest.fixture
def sample_store(tmp_path: Path) -> Path:
    """A copy of fixtures/stores/sample: a small store with links, statuses and an archived document."""
    root = tmp_path / "sample"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    return root


def as_written_at(index: Path, version: int, *undo: str) -> None:
    """Make an index look as one docir wrote at schema `version`: run `undo` (the later migrations'
    statements taken back), then set that version, as an upgrade finds it."""
    conn = sqlite3.connect(index)
    conn.isolation_level = None
    for statement in undo:
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


# Migration 8 (shared section bodies, hidden bytes) taken back.
UNDO_M008 = ("DROP INDEX sections_body_key", "ALTER TABLE sections DROP COLUMN body_key",
             "ALTER TABLE chunk_embeddings DROP COLUMN shared", "ALTER TABLE documents DROP COLUMN hidden")


def remove_index(index: Path) -> None:
    """Delete an index with its WAL files, as a user does by hand (docir itself only ever sets one aside)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)


def add_doc(cli, root: Path, doc_type: str, title: str, description: str, *extra: str) -> str:  # type: ignore[no-untyped-def]
    """Create a document through `docir add` and return its id."""
    result = cli("add", doc_type, "--title", title, "--description", description,
                 "--owner", "@team", "--root", str(root), "--json", *extra)
    assert result.code == 0, result.err
    return str(result.json()["id"])  # type: ignore[index]



@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One assembled offline model for the whole run, outside the user's home."""
    return tmp_path_factory.mktemp("xdg-cache")


@contextlib.contextmanager
def embedded(root: Path, model_cache: Path) -> Iterator[tuple[Any, Any]]:
    """The store at `root` open, indexed and embedded with the real offline model: (session, source)."""
    from docir.services.indexing.session import open_session
    from docir.services.vectors import embedding
    from docir.services.vectors.query_source import LocalModel, load_local

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        patch.setenv("DOCIR_WORKER", "0")
        session = open_session(root, caller())
        source = load_local(session.caller, session.schema.model_path, root)
        assert isinstance(source, LocalModel), source.status
        embedding.drain(session.catalog, source.embedder, settings())
        try:
            yield session, source
        finally:
            session.close()


@pytest.fixture(scope="module")
def semantic_session(tmp_path_factory: pytest.TempPathFactory, model_cache: Path):  # type: ignore[no-untyped-def]
    """fixtures/stores/semantic, indexed and embedded with the real offline model, shared by a module."""
    root = tmp_path_factory.mktemp("semantic") / "store"
    shutil.copytree(FIXTURES / "stores" / "semantic", root)
    with embedded(root, model_cache) as (session, source):
        yield session, source
