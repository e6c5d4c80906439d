"""A document git could not merge: lint names its conflict markers, reads skip it and say why."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.git.test_hooks import git, git_identity, install, sample_in_git

DOC = "docs/decisions/keep-sessions-in-the-database.md"


def docir(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "docir", *args], cwd=repo, capture_output=True, text=True)


@pytest.fixture
def conflicted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample store in git, mid-merge: two branches set the same status and edit the same body line."""
    git_identity(monkeypatch)
    root = sample_in_git(tmp_path / "repo")
    path = root / DOC
    original = path.read_text()
    assert "status: accepted\n" in original and "\n## Decision\n\n" in original
    for branch, status, line in (("other", "deprecated", "Theirs."), ("main", "proposed", "Ours.")):
        if branch == "other":
            git(root, "checkout", "-qb", "other")
        else:
            git(root, "checkout", "-q", "main")
        path.write_text(original.replace("status: accepted", f"status: {status}")
                        .replace("\n## Decision\n\n", f"\n## Decision\n\n{line}\n"))
        git(root, "commit", "-qam", branch)
    merged = git(root, "merge", "-q", "other", check=False)
    assert merged.returncode != 0 and "<<<<<<< HEAD" in path.read_text()
    return root


def marker_lines(path: Path) -> list[tuple[int, str]]:
    return [(n, line[:7]) for n, line in enumerate(path.read_text().splitlines(), start=1)
            if line[:7] in ("<<<<<<<", "=======", ">>>>>>>")]


def test_lint_reports_each_conflict_marker_at_its_line(conflicted: Path) -> None:
    done = docir(conflicted, "lint")
    assert done.returncode == 1, done.stdout + done.stderr
    markers = marker_lines(conflicted / DOC)
    assert [n for n, _ in markers][:3] == [6, 8, 10]  # the status conflict in the frontmatter
    assert len(markers) == 6  # and one in the body
    found = [line for line in done.stdout.splitlines() if line.startswith(DOC)]
    assert found == [f"{DOC}:{n}:1: DOC023 unresolved merge conflict marker '{marker}'; keep one side and delete "
                     "the marker lines" for n, marker in markers]
    assert "DOC001" not in done.stdout
    assert "DOC011" not in done.stdout  # the documents linking to it still find its id
    rule = docir(conflicted, "rule", "conflict-markers")
    assert rule.returncode == 0 and "DOC023" in rule.stdout


def test_the_commit_hook_blocks_a_document_added_with_its_markers(conflicted: Path) -> None:
    install(conflicted)
    git(conflicted, "add", DOC)
    done = git(conflicted, "commit", "-qm", "merge", check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{DOC}:6:1: DOC023 unresolved merge conflict marker '<<<<<<<'" in done.stdout + done.stderr


def test_reads_skip_a_document_in_conflict_with_a_warning_every_time(conflicted: Path) -> None:
    warning = f"docir: warning: {DOC} skipped: line 6: it is in conflict (unresolved merge markers); resolve the " \
              "conflict and 'git add' it"
    for _ in range(2):  # the second read finds it remembered as skipped, and still says so
        got = docir(conflicted, "get", "adr-0000000000a0", "--json")
        assert got.returncode == 0, got.stderr
        assert got.stderr.splitlines() == [warning], got.stderr
    context = docir(conflicted, "context", "where sessions are kept", "--json")
    assert context.returncode == 0, context.stderr
    assert warning in context.stderr.splitlines()
    assert DOC not in context.stdout
