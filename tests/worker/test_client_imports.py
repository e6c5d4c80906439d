"""The warm client's own imports: what every command that reaches a worker pays before it is answered."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docir.worker import client

# Each costs a warm call a noticeable share of the interpreter's start (the warm worker's
# architecture note, arch-1cfb1b212237): the client finds the store and talks to the worker without them.
NOT_ON_THE_WARM_PATH = ("typing", "pathlib", "threading", "dataclasses", "docir.invocation")


def test_the_warm_client_imports_no_typing_pathlib_or_threading() -> None:
    probe = ("import sys, docir.worker.client\n"
             f"print(sorted(m for m in {NOT_ON_THE_WARM_PATH!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


@pytest.mark.parametrize("typed", ["--root", "--root="])
def test_find_root_takes_root_as_the_cli_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: str) -> None:
    store = tmp_path / "store"
    (store / "docs" / "deep").mkdir(parents=True)
    (store / "docs-schema.yaml").write_text("version: 1\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(store)
    monkeypatch.chdir(tmp_path)
    argv = ["get", "x", "--root", "link"] if typed == "--root" else ["get", "x", "--root=link"]
    assert client.find_root(argv, str(tmp_path)) == str(store.resolve())  # resolved, as Path.resolve() did
    assert client.find_root(["get", "x"], str(store / "docs" / "deep")) == str(store)  # found upward
    assert client.find_root(["get", "x"], str(tmp_path)) is None
