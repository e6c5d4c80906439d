"""The published hooks through the real pre-commit tool, the way a consumer repository uses them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO

GOOD = """---
id: adr-00000000f00d
type: decision
title: A good decision
description: A decision that passes every schema check of the lint hook.
status: accepted
owner: "@team"
verified: 2026-11-01
---

## Decision

Good.
"""


def run(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env, timeout=900)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Shared by the module: pre-commit builds docir's hook environment once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def consumer(tmp_path: Path, pre_commit_home: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "consumer"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "DOCIR_WORKER": "0",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    run(root, "git", "init", "-q", "-b", "main", env=env)
    run(root, "git", "add", "-A", env=env)
    run(root, "git", "commit", "-qm", "start", env=env)
    return root, env


def try_repo(root: Path, env: dict[str, str], hook: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return run(root, sys.executable, "-m", "pre_commit", "try-repo", str(REPO), hook, "--verbose", *extra, env=env)


def test_lint_hook_fails_a_broken_document_and_passes_a_good_one(consumer: tuple[Path, dict[str, str]]) -> None:
    root, env = consumer
    (root / "docs/decisions/broken.md").write_text(GOOD.replace("status: accepted", "status: done"))
    run(root, "git", "add", "-A", env=env)
    failed = try_repo(root, env, "docir-lint")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "docs/decisions/broken.md:6:1: DOC008" in failed.stdout
    (root / "docs/decisions/broken.md").write_text(GOOD)
    run(root, "git", "add", "-A", env=env)
    passed = try_repo(root, env, "docir-lint")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "docir lint" in passed.stdout and "Passed" in passed.stdout


def test_lint_hook_checks_links_against_what_the_commit_holds(consumer: tuple[Path, dict[str, str]]) -> None:
    root, env = consumer
    # The link target exists on disk but was never added: the commit would hold a broken link.
    (root / "docs/decisions/target.md").write_text(GOOD.replace("adr-00000000f00d", "adr-00000000beef"))
    linking = GOOD.replace("status: accepted\n", "status: accepted\nrelated:\n  - relates-to: adr-00000000beef\n")
    (root / "docs/decisions/linking.md").write_text(linking)
    run(root, "git", "add", "docs/decisions/linking.md", env=env)
    failed = try_repo(root, env, "docir-lint")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert ("docs/decisions/linking.md:8:1: DOC011 relates-to: adr-00000000beef points at no document"
            in failed.stdout)
    run(root, "git", "add", "docs/decisions/target.md", env=env)
    passed = try_repo(root, env, "docir-lint")
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_lint_hook_never_blocks_markdown_docir_init_left_out(tmp_path: Path,
                                                              pre_commit_home: Path) -> None:
    """adr-547a50927c6b: a repository whose docs/ held plain Markdown before `docir init`."""
    root = tmp_path / "plain"
    (root / "docs" / "api").mkdir(parents=True)
    (root / "docs" / "README.md").write_text("# Our docs\n")
    (root / "docs" / "api" / "orders.md").write_text("# Orders API\n")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "DOCIR_WORKER": "0",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    run(root, "git", "init", "-q", "-b", "main", env=env)
    assert run(root, sys.executable, "-m", "docir", "init", env=env).returncode == 0
    (root / "docs" / "decisions").mkdir()
    (root / "docs" / "decisions" / "good.md").write_text(GOOD)
    (root / "docs" / "api" / "orders.md").write_text("# Orders API\n\nstatus: whatever\n")
    run(root, "git", "add", "-A", env=env)
    staged = try_repo(root, env, "docir-lint")
    assert staged.returncode == 0, staged.stdout + staged.stderr
    every = try_repo(root, env, "docir-lint", "--all-files")
    assert every.returncode == 0, every.stdout + every.stderr
