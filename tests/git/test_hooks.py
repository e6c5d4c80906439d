"""Git integration with real git: installed hooks keep the index fresh and never break git."""

from __future__ import annotations

import hashlib
import json
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


def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed author and committer, whatever the machine's git configuration says."""
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}.items():
        monkeypatch.setenv(key, value)


def sample_in_git(root: Path) -> Path:
    """The sample docir store copied to `root`, set up by `docir init` and committed on main."""
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    git(root, "init", "-q", "-b", "main")
    # As after `docir init`: .docir/.gitignore is committed, so derived files never are.
    subprocess.run([sys.executable, "-m", "docir", "init", "--root", str(root)], capture_output=True, check=True)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose root is the sample docir store, with one commit on main."""
    git_identity(monkeypatch)
    root = sample_in_git(tmp_path / "repo")
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


# --- the commit hook lints what the commit holds, not the files on disk (adr-b6dd1c2330ab) ---------------

def commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    return git(repo, "commit", "-qm", message, check=False)


def test_a_broken_status_staged_then_fixed_only_on_disk_is_still_blocked(repo: Path) -> None:
    install(repo)
    bad = repo / "docs/decisions/bad.md"
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Bad").replace("status: accepted", "status: nonsense"))
    git(repo, "add", "docs/decisions/bad.md")
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Bad"))  # fixed, but not staged (git add -p)
    done = commit(repo, "bad")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "docs/decisions/bad.md:6:1: DOC008 status 'nonsense' is not allowed" in done.stdout + done.stderr
    assert git(repo, "rev-list", "--count", "HEAD").stdout.strip() == "1"


def test_a_valid_staged_document_commits_beside_broken_work_on_disk(repo: Path) -> None:
    install(repo)
    doc = repo / "docs/decisions/wip.md"
    doc.write_text(GOOD.format(id="adr-0000000000a9", title="Work in progress"))
    git(repo, "add", "docs/decisions/wip.md")
    doc.write_text("---\nid: adr-0000000000a9\nstatus: [unclosed\n---\n")  # half-written, not staged
    done = commit(repo, "good")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "status: accepted" in git(repo, "show", "HEAD:docs/decisions/wip.md").stdout


def test_deleting_a_linked_document_reports_the_link_not_the_deleted_file(repo: Path) -> None:
    install(repo)
    git(repo, "rm", "-q", "docs/architecture/billing-pipeline.md")
    done = commit(repo, "drop billing")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert ("docs/issues/slow-invoice-export.md:9:1: DOC011 relates-to: arch-0000000000b2 points at no document"
            in output)
    assert "billing-pipeline.md" not in output
    # Kept on disk but deleted from the commit (git rm --cached): the link still breaks in HEAD.
    git(repo, "reset", "-q", "HEAD", "--", "docs/architecture/billing-pipeline.md")
    git(repo, "checkout", "-q", "--", "docs/architecture/billing-pipeline.md")
    git(repo, "rm", "-q", "--cached", "docs/architecture/billing-pipeline.md")
    again = commit(repo, "untrack billing")
    assert again.returncode == 1, again.stdout + again.stderr
    assert "slow-invoice-export.md:9:1: DOC011" in again.stdout + again.stderr


def test_the_staged_schema_is_the_one_documents_are_checked_against(repo: Path) -> None:
    install(repo)
    schema = repo / "docs-schema.yaml"
    original = schema.read_text()
    assert "statuses: [proposed, accepted" in original
    schema.write_text(original.replace("statuses: [proposed, accepted", "statuses: [piloting, proposed, accepted", 1))
    doc = repo / "docs/decisions/pilot.md"
    doc.write_text(GOOD.format(id="adr-0000000000b9", title="Pilot").replace("status: accepted", "status: piloting"))
    git(repo, "add", "docs/decisions/pilot.md")  # the schema edit that allows 'piloting' stays unstaged
    done = commit(repo, "pilot")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "docs/decisions/pilot.md:6:1: DOC008 status 'piloting'" in done.stdout + done.stderr
    git(repo, "add", "docs-schema.yaml")
    assert commit(repo, "pilot with its status").returncode == 0


def test_the_staged_exclude_list_says_which_files_a_commit_leaves_unlinted(repo: Path) -> None:
    """adr-547a50927c6b: a file the store does not own never blocks a commit; the staged schema says which."""
    install(repo)
    (repo / "docs/notes").mkdir()
    (repo / "docs/notes/meeting.md").write_text("# Notes from Tuesday\n\nstatus: nonsense\n")
    schema = repo / "docs-schema.yaml"
    schema.write_text(schema.read_text() + "exclude: [notes/**]\n")
    git(repo, "add", "docs/notes/meeting.md")  # the list that leaves it out stays unstaged
    blocked = commit(repo, "notes")
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "docs/notes/meeting.md:1:1: DOC002" in blocked.stdout + blocked.stderr
    git(repo, "add", "docs-schema.yaml")
    done = commit(repo, "notes, left out of the store")
    assert done.returncode == 0, done.stdout + done.stderr
    (repo / "docs/notes/meeting.md").write_text("edited, still no frontmatter\n")
    git(repo, "add", "docs/notes/meeting.md")
    assert commit(repo, "more notes").returncode == 0


def test_lint_staged_by_hand_reads_git_s_index(repo: Path) -> None:
    bad = repo / "docs/decisions/bad.md"
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Bad").replace("status: accepted", "status: nonsense"))
    git(repo, "add", "docs/decisions/bad.md")
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Bad"))
    staged = subprocess.run([sys.executable, "-m", "docir", "lint", "--staged"], cwd=repo / "docs",
                            capture_output=True, text=True)
    assert staged.returncode == 1, staged.stdout + staged.stderr
    assert staged.stdout.splitlines()[0] == "decisions/bad.md:6:1: DOC008 status 'nonsense' is not allowed " \
        "for decision; use one of: proposed, accepted, rejected, deprecated, superseded"
    on_disk = subprocess.run([sys.executable, "-m", "docir", "lint", "docs/decisions/bad.md"], cwd=repo,
                             capture_output=True, text=True)
    assert on_disk.returncode == 0, on_disk.stdout
    named = subprocess.run([sys.executable, "-m", "docir", "lint", "--staged", "docs/decisions/bad.md"], cwd=repo,
                           capture_output=True, text=True)  # as the pre-commit framework passes files
    assert named.returncode == 1 and "docs/decisions/bad.md:6:1: DOC008" in named.stdout, named.stdout
    wrong = subprocess.run([sys.executable, "-m", "docir", "lint", "--staged", "--deep"], cwd=repo,
                           capture_output=True, text=True)
    assert wrong.returncode == 2 and len(wrong.stderr.strip().splitlines()) == 1, wrong.stderr


# --- every store of a monorepo is served by the one set of hooks (adr-a9d6f450a4d1) ----------------------

@pytest.fixture
def monorepo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with no store at its top and two below it, each set up with `docir init --hooks`."""
    git_identity(monkeypatch)
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    (top / "README.md").write_text("mono\n")
    actions = []
    for name in ("api", "web"):
        store = top / "services" / name
        shutil.copytree(FIXTURES / "stores" / "sample", store)
        done = subprocess.run([sys.executable, "-m", "docir", "init", "--hooks", "--json"], cwd=store,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["root"] == str(store)
        actions.append({h["name"]: h["action"] for h in json.loads(done.stdout)["hooks"]})
    assert actions[0]["pre-commit"] == "installed"
    assert actions[1]["pre-commit"] == "updated"  # the same repository hooks, reused
    assert githooks.is_ours(top / ".git" / "hooks" / "pre-commit")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "start", "--no-verify")
    monkeypatch.chdir(top)
    return top


def test_a_bad_document_in_a_store_below_the_top_level_blocks_the_commit(monorepo: Path) -> None:
    bad = monorepo / "services/api/docs/decisions/bad.md"
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Bad").replace("status: accepted", "status: done"))
    (monorepo / "services/web/docs/decisions/fine.md").write_text(GOOD.format(id="adr-00000000f1e0", title="Fine"))
    git(monorepo, "add", "-A")
    done = git(monorepo, "commit", "-qm", "bad", check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "services/api/docs/decisions/bad.md:6:1: DOC008 status 'done' is not allowed" in output
    assert "fine.md" not in output
    bad.write_text(GOOD.format(id="adr-00000000dead", title="Good now"))
    git(monorepo, "add", "-A")
    assert git(monorepo, "commit", "-qm", "good", check=False).returncode == 0


def test_checkouts_refresh_every_store_of_the_repository(monorepo: Path) -> None:
    git(monorepo, "checkout", "-qb", "feature")
    for name in ("api", "web"):
        (monorepo / f"services/{name}/docs/decisions/new.md").write_text(
            GOOD.format(id="adr-00000000beef", title=f"New in {name}"))
    git(monorepo, "add", "-A")
    git(monorepo, "commit", "-qm", "feature work", "--no-verify")
    git(monorepo, "checkout", "-q", "main")
    for name in ("api", "web"):
        store = monorepo / "services" / name
        assert index_matches_files(store), name
        assert len(refreshes(store)) == 1, name
    git(monorepo, "checkout", "-q", "feature")
    assert all(index_matches_files(monorepo / "services" / name) for name in ("api", "web"))


def test_a_commit_of_no_store_s_files_starts_no_python(monorepo: Path, tmp_path: Path) -> None:
    # Every Python start imports sitecustomize from PYTHONPATH: its log counts the starts.
    probe = tmp_path / "probe"
    probe.mkdir()
    starts = tmp_path / "python-starts.log"
    (probe / "sitecustomize.py").write_text(f"open({str(starts)!r}, 'a').write('start\\n')\n")
    env = {"PYTHONPATH": str(probe)}
    (monorepo / "README.md").write_text("mono, changed\n")
    git(monorepo, "add", "README.md")
    assert git(monorepo, "commit", "-qm", "readme", env=env).returncode == 0
    assert not starts.exists()
    (monorepo / "services/web/docs/decisions/fine.md").write_text(GOOD.format(id="adr-00000000f1e0", title="Fine"))
    git(monorepo, "add", "-A")
    assert git(monorepo, "commit", "-qm", "doc", env=env).returncode == 0
    assert starts.read_text().count("start") >= 1  # the probe does see the lint of a document


def test_a_tab_indenting_frontmatter_is_named_as_a_tab_at_its_line(repo: Path) -> None:
    install(repo)
    text = GOOD.format(id="adr-0000000007ab", title="Tabbed").replace(
        "status: accepted\n", "status: accepted\nrelated:\n\t- relates-to: adr-0000000000a0\n")
    (repo / "docs/decisions/tabbed.md").write_text(text)
    git(repo, "add", "-A")
    done = git(repo, "commit", "-qm", "tabbed", check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("docs/decisions/tabbed.md:8:1: DOC001 invalid YAML: a tab indents this line; YAML does not allow "
            "tabs for indentation, indent with spaces (in frontmatter)") in done.stdout + done.stderr
    assert "cannot start any token" not in done.stdout + done.stderr


def test_lint_staged_reports_every_store_in_one_json_document(monorepo: Path) -> None:
    for name in ("api", "web"):
        (monorepo / f"services/{name}/docs/decisions/bad.md").write_text(
            GOOD.format(id="adr-00000000dead", title="Bad").replace("status: accepted", "status: done"))
    git(monorepo, "add", "-A")
    done = subprocess.run([sys.executable, "-m", "docir", "lint", "--staged", "--format", "json"], cwd=monorepo,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [(f["path"], f["code"]) for f in report["findings"]] == [
        ("services/api/docs/decisions/bad.md", "DOC008"), ("services/web/docs/decisions/bad.md", "DOC008")]
    assert report["summary"]["files"] == 2
