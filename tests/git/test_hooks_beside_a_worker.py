"""The git hooks with the warm worker running: what is staged is linted, a checkout refreshes, the worker is left alone.

A command forwarded to the worker runs with the client's folder and environment; the hooks'
git calls (the staged blobs, the stores of the repository) must see the same repository and
index the hook was started in, not the worker's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from docir.worker import paths
from tests.git.test_hooks import GOOD, commit, git, index_matches_files, install, refreshes
from tests.git.test_hooks import repo as repo  # noqa: F401  (the fixture)
from tests.worker.helpers import docir, start_worker


@pytest.fixture
def warm_repo(repo: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Iterator[Path]:  # noqa: F811
    """The hook tests' repository with docir's hooks installed and its warm worker running."""
    monkeypatch.setenv("DOCIR_WORKER", "1")
    monkeypatch.setenv("DOCIR_WORKER_IDLE", "60")
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    install(repo)
    start_worker(repo)
    yield repo
    docir(repo, "worker", "stop", timeout=60)


def running_pid(root: Path) -> int:
    found = paths.read_status(root)
    assert found is not None and paths.pid_alive(int(found["pid"])), found
    return int(found["pid"])


def test_a_commit_beside_the_worker_lints_what_is_staged(warm_repo: Path) -> None:
    pid = running_pid(warm_repo)
    bad = warm_repo / "docs/decisions/bad.md"
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Bad").replace("status: accepted", "status: nonsense"))
    git(warm_repo, "add", "docs/decisions/bad.md")
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Bad"))  # fixed on disk only
    blocked = commit(warm_repo, "bad")
    assert blocked.returncode == 1
    assert "docs/decisions/bad.md:6:1: DOC008" in blocked.stdout + blocked.stderr
    git(warm_repo, "add", "docs/decisions/bad.md")
    assert commit(warm_repo, "fixed").returncode == 0
    # `lint --staged` through the worker reads the same index of the same repository.
    wip = warm_repo / "docs/decisions/wip.md"
    wip.write_text(GOOD.format(id="adr-0000000000a9", title="Work").replace("status: accepted", "status: ??"))
    staged = docir(warm_repo, "lint", "--staged", "--format", "json", env={**os.environ})
    assert staged.returncode == 0, staged.stdout + staged.stderr  # wip.md is not staged: not this commit's
    assert json.loads(staged.stdout)["findings"] == []
    assert running_pid(warm_repo) == pid  # the same worker served throughout


def test_a_checkout_beside_the_worker_leaves_the_index_matching_the_files(warm_repo: Path) -> None:
    git(warm_repo, "checkout", "-qb", "other")
    (warm_repo / "docs/decisions/new.md").write_text(GOOD.format(id="adr-0000000000b7", title="New on other"))
    git(warm_repo, "add", "-A")
    assert commit(warm_repo, "new").returncode == 0
    git(warm_repo, "checkout", "-q", "main")
    assert refreshes(warm_repo)
    assert index_matches_files(warm_repo)
    assert not (warm_repo / "docs/decisions/new.md").exists()
