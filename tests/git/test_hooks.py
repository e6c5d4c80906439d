"""Git integration with real git: installed hooks keep the index fresh and never break git."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docir.documents.scan import scan_docs
from docir.index.db import open_index
from docir.services.integrations import githooks
from tests.conftest import FIXTURES, REPO

GOOD = """---
id: {id}
type: decision
title: {title}
description: A decision written for the git hook tests, long enough to lint.
status: accepted
owner: "@team"
verified: 2026-11-01
---

## Decision

{title}.
"""


def git(repo: Path, *args: str, check: bool = True,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose root is the sample docir store, with one commit on main."""
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    git(root, "init", "-q", "-b", "main")
    # As after `docir init`: .docir/.gitignore is committed, so derived files never are.
    subprocess.run([sys.executable, "-m", "docir", "init", "--root", str(root)], capture_output=True, check=True)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    monkeypatch.chdir(root)
    return root


def install(repo: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "docir", "hooks", "install"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def index_matches_files(root: Path, unindexable: tuple[str, ...] = ()) -> bool:
    """Compare the index as the hook left it (no command refreshes it here) with the files."""
    conn = open_index(root / ".docir" / "index.db")
    try:
        indexed = {str(p): str(sha) for p, sha in conn.execute("SELECT path, sha256 FROM documents")}
    finally:
        conn.close()
    on_disk = {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in scan_docs(root, root / "docs")
               if p not in unindexable}
    return indexed == on_disk


def refreshes(root: Path) -> list[str]:
    log = root / ".docir" / "run" / "hooks.log"
    return [line for line in log.read_text().splitlines() if "refreshed" in line] if log.exists() else []


def test_hook_scripts_in_the_repository_match_what_install_writes() -> None:
    for name in githooks.HOOKS:
        assert (REPO / "hooks" / name).read_text() == githooks.render(name)
        assert os.access(REPO / "hooks" / name, os.X_OK)


def test_pre_commit_manifest_is_valid() -> None:
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest",
                           str(REPO / ".pre-commit-hooks.yaml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_checkout_of_another_branch_leaves_the_index_matching_the_files(repo: Path) -> None:
    install(repo)
    git(repo, "checkout", "-qb", "feature")
    (repo / "docs/decisions/new.md").write_text(GOOD.format(id="adr-00000000beef", title="A new decision"))
    changed = repo / "docs/architecture/session-service.md"
    changed.write_text(changed.read_text().replace("nightly job", "hourly job"))
    (repo / "docs/issues/slow-invoice-export.md").unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "feature work")
    subprocess.run([sys.executable, "-m", "docir", "reindex"], cwd=repo, capture_output=True, check=True)
    done = git(repo, "checkout", "-q", "main")
    assert done.returncode == 0
    assert index_matches_files(repo)
    again = git(repo, "checkout", "-q", "feature")
    assert index_matches_files(repo), again.stderr
    assert len(refreshes(repo)) == 2, (repo / ".docir/run/hooks.log").read_text() + again.stderr


def test_checkout_still_succeeds_when_the_hook_meets_a_broken_document(repo: Path) -> None:
    install(repo)
    git(repo, "checkout", "-qb", "broken")
    (repo / "docs/decisions/bad.md").write_text("---\ntitle: [unclosed\n---\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "broken doc", "--no-verify")
    git(repo, "checkout", "-q", "main")
    done = git(repo, "checkout", "broken", check=False)
    assert done.returncode == 0, done.stderr
    assert "docs/decisions/bad.md skipped" in done.stderr
    assert index_matches_files(repo, unindexable=("docs/decisions/bad.md",))


def test_file_checkouts_and_docir_0_skip_the_refresh(repo: Path) -> None:
    install(repo)
    git(repo, "checkout", "-q", "HEAD", "--", "docs/guides/writing-a-decision.md")  # file checkout: $3 = 0
    git(repo, "checkout", "-qb", "same")  # same commit: $1 = $2
    git(repo, "checkout", "-q", "-b", "other", "HEAD~0", env={"DOCIR": "0"})
    (repo / "docs/decisions/x.md").write_text(GOOD.format(id="adr-0000000000ee", title="X"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "x", "--no-verify")
    git(repo, "checkout", "-q", "main", env={"DOCIR": "0"})  # a real switch, skipped by DOCIR=0
    assert refreshes(repo) == []
    # The refresh logic skips the same cases when pre-commit runs it, where no shell shortcut applies.
    assert githooks.refresh_skip_reason("post-checkout", ["a", "b", "0"], {}, repo) == "file checkout"
    assert githooks.refresh_skip_reason("post-checkout", ["a", "a", "1"], {}, repo) == "same commit"


def test_a_rebase_of_twenty_commits_refreshes_once(repo: Path) -> None:
    install(repo)
    git(repo, "checkout", "-qb", "topic")
    for n in range(20):
        (repo / f"docs/decisions/topic-{n}.md").write_text(GOOD.format(id=f"adr-{n:012x}", title=f"Topic {n}"))
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"topic {n}", "--no-verify")
    git(repo, "checkout", "-q", "main")
    (repo / "docs/guides/other.md").write_text(
        GOOD.format(id="adr-0000000f00d0", title="Other").replace("type: decision", "type: decision"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main moves on", "--no-verify")
    git(repo, "checkout", "-q", "topic")
    before = len(refreshes(repo))
    done = git(repo, "rebase", "-q", "main")
    assert done.returncode == 0, done.stderr
    assert len(refreshes(repo)) - before == 1
    assert "post-rewrite: refreshed" in refreshes(repo)[-1]
    assert index_matches_files(repo)


def test_a_foreign_hook_is_chained_and_restored(repo: Path, tmp_path: Path) -> None:
    hooks = repo / ".git" / "hooks"
    foreign = f"#!/bin/sh\necho foreign >> {tmp_path / 'foreign.log'}\n"
    (hooks / "post-checkout").write_text(foreign)
    (hooks / "post-checkout").chmod(0o755)
    install(repo)
    git(repo, "checkout", "-qb", "x")
    (repo / "docs/decisions/x.md").write_text(GOOD.format(id="adr-0000000000ff", title="On x"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "x", "--no-verify")
    git(repo, "checkout", "-q", "main")
    assert (tmp_path / "foreign.log").read_text() == "foreign\nforeign\n"
    assert len(refreshes(repo)) == 1
    done = subprocess.run([sys.executable, "-m", "docir", "hooks", "uninstall"], cwd=repo, capture_output=True,
                          text=True)
    assert done.returncode == 0
    assert (hooks / "post-checkout").read_text() == foreign
    assert not (hooks / "post-checkout.docir-chained").exists()
    assert not (hooks / "post-merge").exists()


def test_core_hooks_path_is_honoured(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", ".githooks")
    install(repo)
    assert githooks.is_ours(repo / ".githooks" / "post-checkout")
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()


def test_plain_pre_commit_hook_blocks_a_broken_document(repo: Path) -> None:
    install(repo)
    (repo / "docs/decisions/bad.md").write_text(
        GOOD.format(id="adr-00000000dead", title="Bad").replace("status: accepted", "status: done"))
    git(repo, "add", "-A")
    done = git(repo, "commit", "-qm", "bad", check=False)
    assert done.returncode != 0
    assert "docs/decisions/bad.md:6:1: DOC008" in done.stdout + done.stderr  # git shows hook output on stderr
    (repo / "docs/decisions/bad.md").write_text(GOOD.format(id="adr-00000000dead", title="Good now"))
    git(repo, "add", "-A")
    assert git(repo, "commit", "-qm", "good", check=False).returncode == 0


def test_init_with_hooks_installs_them(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    result = cli("init", "--root", str(root), "--hooks", "--json")
    assert result.code == 0, result.err
    assert {h["name"] for h in result.json()["hooks"]} == set(githooks.HOOKS)
    assert all(githooks.is_ours(root / ".git" / "hooks" / name) for name in githooks.HOOKS)
    outside = tmp_path / "not-a-repo"
    assert cli("init", "--root", str(outside), "--hooks").code == 2  # one line: run 'git init' first
