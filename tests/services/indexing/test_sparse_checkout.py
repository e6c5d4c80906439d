"""A sparse checkout (adr-5d0b7e31c9a6): a link to a document git has off disk is not broken; reads say so."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

DECISION = "adr-0000000005a1"
GUIDE = "guide-0000000005b1"


def document(doc_id: str, doc_type: str, status: str, extra: str = "") -> str:
    return (f"---\nid: {doc_id}\ntype: {doc_type}\ntitle: Title of {doc_id}\n"
            f"description: A document of a repository checked out sparsely, long enough for the lint.\n"
            f"status: {status}\nowner: \"@team\"\nverified: 2026-11-01\n{extra}---\n\n## Body\n\nText.\n")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=root,
                          capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def sparse(tmp_path: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """A repository whose decision relates to a guide, checked out with only docs/decisions."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    assert cli("init", "--root", str(root)).code == 0
    (root / "docs" / "decisions").mkdir(parents=True, exist_ok=True)
    (root / "docs" / "guides").mkdir(parents=True, exist_ok=True)
    (root / "docs" / "decisions" / "d.md").write_text(
        document(DECISION, "decision", "accepted", f"related:\n  - relates-to: {GUIDE}\napplies_to: [src/**]\n"),
        encoding="utf-8")
    (root / "docs" / "guides" / "g.md").write_text(document(GUIDE, "guide", "current"), encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "documents")
    git(root, "sparse-checkout", "set", "docs/decisions", "src")
    assert not (root / "docs" / "guides" / "g.md").exists()
    assert "S docs/guides/g.md" in git(root, "ls-files", "-t")
    return root


def test_a_link_to_a_document_outside_the_checkout_is_not_broken(sparse: Path, cli) -> None:  # type: ignore[no-untyped-def]
    lint = cli("lint", "--root", str(sparse))
    named = cli("lint", "--root", str(sparse), "docs/decisions/d.md")

    assert lint.code == 0, lint.out
    assert "DOC011" not in lint.out
    assert named.code == 0, named.out
    assert "DOC011" not in named.out
    # An id git does not have either is still a broken link.
    path = sparse / "docs" / "decisions" / "d.md"
    path.write_text(path.read_text(encoding="utf-8").replace(GUIDE, "guide-00000000dead"), encoding="utf-8")
    broken = cli("lint", "--root", str(sparse))
    assert broken.code == 1
    assert "docs/decisions/d.md:10:1: DOC011 relates-to: guide-00000000dead points at no document" in broken.out


def test_get_says_a_linked_document_is_outside_the_checkout(sparse: Path, cli) -> None:  # type: ignore[no-untyped-def]
    linking = cli("get", DECISION, "--root", str(sparse), "--json")
    linked = cli("get", GUIDE, "--root", str(sparse), "--json")

    assert linking.code == 0
    assert linking.err.splitlines() == [
        f"docir: warning: {DECISION} relates-to {GUIDE}, which is outside this sparse checkout (docs/guides/g.md); "
        "'git sparse-checkout add' its folder to read it"]
    assert linked.code == 1
    assert linked.err.splitlines() == [
        f"docir: error: {GUIDE} is outside this sparse checkout (docs/guides/g.md); "
        "'git sparse-checkout add docs/guides' brings it in"]


def test_context_says_a_linked_document_is_outside_the_checkout(sparse: Path, cli,  # type: ignore[no-untyped-def]
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(sparse)
    result = cli("context", "--path", "src/a.py", "--root", str(sparse), "--json")

    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        f"docir: warning: {DECISION} relates-to {GUIDE}, which is outside this sparse checkout (docs/guides/g.md); "
        "'git sparse-checkout add' its folder to read it"]
