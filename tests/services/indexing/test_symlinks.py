"""Symlinks under docs/ (adr-7c2e94a0d5b1): followed while they stay in the repository, reported when not."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from docir.documents.scan import LINK_LEAVES, scan_docs
from tests.conftest import run_process

GUIDE_ID = "guide-00000000a11c"
NOTE_ID = "adr-00000000b0b0"


def document(doc_id: str, doc_type: str, title: str, status: str) -> str:
    return (f"---\nid: {doc_id}\ntype: {doc_type}\ntitle: {title}\n"
            f"description: A document reached through a symlink, long enough for the description lint.\n"
            f"status: {status}\nowner: \"@team\"\nverified: 2026-11-01\n---\n\n## Body\n\nText.\n")


@pytest.fixture
def repo(tmp_path: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """A git repository whose store is at its root, with documents kept outside docs/ and linked in."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert cli("init", "--root", str(root)).code == 0
    (root / "handbook").mkdir()
    (root / "handbook" / "setup.md").write_text(document(GUIDE_ID, "guide", "Set up", "current"), encoding="utf-8")
    (root / "notes").mkdir()
    (root / "notes" / "decision.md").write_text(document(NOTE_ID, "decision", "Linked", "accepted"),
                                                encoding="utf-8")
    os.symlink("../handbook", root / "docs" / "handbook")  # a folder
    (root / "docs" / "decisions").mkdir(parents=True, exist_ok=True)
    os.symlink("../../notes/decision.md", root / "docs" / "decisions" / "linked.md")  # a file
    return root


def test_documents_reached_through_links_inside_the_repository_are_indexed_under_their_link_path(
        repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    got = cli("get", GUIDE_ID, NOTE_ID, "--root", str(repo), "--json")

    assert got.code == 0, got.err
    assert got.err == ""
    paths = {d["id"]: d["path"] for d in got.json()["documents"]}  # type: ignore[index]
    assert paths == {GUIDE_ID: "docs/handbook/setup.md", NOTE_ID: "docs/decisions/linked.md"}


def test_lint_checks_documents_reached_through_links(repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (repo / "handbook" / "broken.md").write_text("no frontmatter\n", encoding="utf-8")

    everything = cli("lint", "--root", str(repo))
    named = cli("lint", "--root", str(repo), "docs/handbook/broken.md")

    assert "docs/handbook/broken.md:1:1: DOC002 " in everything.out
    assert "docs/handbook/broken.md:1:1: DOC002 " in named.out
    assert everything.code == named.code == 1


def test_links_that_leave_loop_or_dangle_are_lint_warnings_and_read_warnings(
        repo: Path, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "far.md").write_text(document("guide-00000000fa12", "guide", "Far", "current"), encoding="utf-8")
    docs = repo / "docs"
    os.symlink(str(outside), docs / "elsewhere")
    os.symlink(str(outside / "far.md"), docs / "far.md")
    os.symlink("b.md", docs / "a.md")
    os.symlink("a.md", docs / "b.md")
    os.symlink("../handbook", repo / "handbook" / "again")  # handbook/again -> handbook: a folder loop
    os.symlink("nowhere.md", docs / "gone.md")

    lint = cli("lint", "--root", str(repo))
    first = cli("query", "--root", str(repo), "--json")
    second = run_process("query", "--root", str(repo), "--json")  # its own process: the forked walk

    found = sorted(line for line in lint.out.splitlines() if " DOC024 " in line)
    assert found == [
        "docs/a.md:1:1: DOC024 symlink loops back on itself; not followed",
        "docs/b.md:1:1: DOC024 symlink loops back on itself; not followed",
        "docs/elsewhere:1:1: DOC024 symlink points outside the repository; not followed",
        "docs/far.md:1:1: DOC024 symlink points outside the repository; not followed",
        "docs/gone.md:1:1: DOC024 symlink points at nothing",
        "docs/handbook/again:1:1: DOC024 symlink loops back on itself; not followed",
    ], lint.out
    assert lint.code == 0, lint.out  # warnings only
    for read in (first, second):  # every read says it, one line each, not only the first
        assert read.code == 0
        lines = read.err.splitlines()
        assert len(lines) == 6, read.err
        assert any("docs/elsewhere skipped: symlink points outside the repository" in line for line in lines)
        assert any("docs/handbook/again skipped: symlink loops back" in line for line in lines)
    ids = {d["id"] for d in first.json()["results"]}  # type: ignore[index]
    assert "guide-00000000fa12" not in ids and GUIDE_ID in ids


def test_without_git_the_store_root_is_the_boundary(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "plain" / "store"
    assert cli("init", "--root", str(root)).code == 0
    beside = tmp_path / "plain" / "beside"
    beside.mkdir()
    (beside / "g.md").write_text(document(GUIDE_ID, "guide", "Beside", "current"), encoding="utf-8")
    os.symlink("../../beside", root / "docs" / "beside")
    plain = root / "docs" / "plain.md"
    plain.write_text(document(NOTE_ID, "decision", "Plain", "accepted"), encoding="utf-8")

    st = plain.stat()
    assert scan_docs(root, root / "docs") == {"docs/beside": (LINK_LEAVES, 0),
                                              "docs/plain.md": (st.st_size, st.st_mtime_ns)}


def test_a_watched_walk_sees_an_edit_behind_a_link(repo: Path) -> None:
    from docir.services.indexing.shared_walk import WatchedWalk

    walk = WatchedWalk(repo, repo / "docs", watch=True)
    first = walk()
    assert walk() is first  # quiet: vouched for by the watch
    for target in (repo / "notes" / "decision.md", repo / "handbook" / "setup.md"):  # behind a file, a folder link
        with open(target, "a", encoding="utf-8") as handle:
            handle.write("an in-place edit\n")
        edited = walk()
        assert edited is not first
        first = edited
    assert edited["docs/decisions/linked.md"][0] > 0 and edited["docs/handbook/setup.md"][0] > 0


def test_writes_through_a_file_link_change_its_target_and_keep_the_link(repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    link = repo / "docs" / "decisions" / "linked.md"
    target = repo / "notes" / "decision.md"

    updated = cli("update", NOTE_ID, "--status", "deprecated", "--root", str(repo))

    assert updated.code == 0, updated.err
    assert link.is_symlink() and os.readlink(link) == "../../notes/decision.md"
    assert "status: deprecated\n" in target.read_text(encoding="utf-8")

    archived = cli("archive", NOTE_ID, "--root", str(repo), "--json")

    assert archived.code == 0, archived.err
    moved = repo / "docs" / "archive" / "decisions" / "linked.md"
    assert not link.exists() and moved.is_symlink() and moved.resolve() == target.resolve()
    got = cli("get", NOTE_ID, "--root", str(repo), "--json")
    assert got.code == 0 and got.err == ""
    assert got.json()["documents"][0]["path"] == "docs/archive/decisions/linked.md"  # type: ignore[index]
