"""A peer whose files moved on from its index (adr-9a41c6e2f7d3): reads answer from its files, and say so once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

KEPT = "adr-00000000c0a1"
DROPPED = "adr-00000000c0a2"


def document(doc_id: str, title: str, word: str) -> str:
    return (f"---\nid: {doc_id}\ntype: decision\ntitle: {title}\n"
            f"description: A decision of the peer store, long enough to pass the description lint.\n"
            f"status: accepted\nowner: \"@team\"\nverified: 2026-11-01\n---\n\n## Body\n\nAbout {word}.\n")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                           "-c", "protocol.file.allow=always", *args], cwd=cwd, capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


@pytest.fixture
def moved(tmp_path: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """A store with a peer that is a git submodule, indexed at one commit, then checked out at an older one
    where one document does not exist yet and the other had another title."""
    root, old = with_submodule_peer(tmp_path, cli)
    move(root, old)
    return root


def move(root: Path, commit: str) -> None:
    """Check the submodule out at `commit`; nothing runs docir in it."""
    peer = root / "peer"
    git(peer, "checkout", "-q", commit)
    assert not (peer / "docs" / "decisions" / "dropped.md").exists()


def with_submodule_peer(tmp_path: Path, cli) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    """A store whose peer is a git submodule indexed at its newer commit; and the older commit."""
    source = tmp_path / "peer-source"
    source.mkdir()
    git(source, "init", "-q")
    assert cli("init", "--root", str(source)).code == 0
    decisions = source / "docs" / "decisions"
    decisions.mkdir(parents=True, exist_ok=True)
    (decisions / "kept.md").write_text(document(KEPT, "Old title of the kept one", "lighthouses"), encoding="utf-8")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "one")
    old = git(source, "rev-parse", "HEAD")
    (decisions / "kept.md").write_text(document(KEPT, "New title of the kept one", "lighthouses"), encoding="utf-8")
    (decisions / "dropped.md").write_text(document(DROPPED, "The later one", "zeppelins"), encoding="utf-8")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "two")

    root = tmp_path / "main"
    root.mkdir()
    git(root, "init", "-q")
    assert cli("init", "--root", str(root)).code == 0
    git(root, "submodule", "add", "-q", "../peer-source", "peer")
    peer = root / "peer"
    assert cli("init", "--root", str(peer)).code == 0
    assert cli("query", "--root", str(peer)).code == 0  # the peer's index, at the newer commit
    (root / ".docir" / "stores.yaml").write_text("stores:\n  - path: peer\n", encoding="utf-8")
    found = cli("search", "zeppelins", "--root", str(root), "--json")
    assert [r["id"] for r in found.json()["results"]] == [DROPPED]  # type: ignore[index]
    return root, old


WARNING = ("docir: warning: peer: its index is behind its files (1 new or changed, 1 gone); "
           "answering from the files (a docir command there brings its index up to date)")


def test_search_never_returns_a_document_whose_file_is_gone(moved: Path, cli) -> None:  # type: ignore[no-untyped-def]
    index = moved / "peer" / ".docir" / "index.db"
    before = index.read_bytes()

    gone = cli("search", "zeppelins", "--root", str(moved), "--json")
    changed = cli("search", "lighthouses", "--root", str(moved), "--json")

    assert gone.code == 0
    assert gone.json()["results"] == []  # type: ignore[index]
    assert gone.err.splitlines() == [WARNING]
    assert [r["title"] for r in changed.json()["results"]] == ["Old title of the kept one"]  # type: ignore[index]
    assert changed.err.splitlines() == [WARNING]
    assert index.read_bytes() == before  # read-only: the peer's index is not touched


def test_get_answers_from_the_peer_files(moved: Path, cli) -> None:  # type: ignore[no-untyped-def]
    gone = cli("get", DROPPED, "--root", str(moved), "--json")
    kept = cli("get", KEPT, "--root", str(moved), "--json")

    assert gone.code == 1
    assert gone.json()["documents"] == []  # type: ignore[index]
    assert gone.err.splitlines() == [
        WARNING, f"docir: error: no document with id {DROPPED}; find ids with 'docir search' or 'docir query'"]
    assert kept.code == 0
    assert kept.err.splitlines() == [WARNING]
    document_ = kept.json()["documents"][0]  # type: ignore[index]
    assert document_["title"] == "Old title of the kept one" and document_["store"] == "peer"



def test_a_warm_worker_answers_from_the_peer_files_after_the_submodule_moves(
        tmp_path: Path, cli, model_cache: Path) -> None:  # type: ignore[no-untyped-def]
    """The same move while this store's warm worker serves: the worker keeps no peer from one command to the next."""
    import json
    import os

    from tests.worker.helpers import docir, start_worker

    root, old = with_submodule_peer(tmp_path, cli)
    warm = {**os.environ, "DOCIR_WORKER": "1", "DOCIR_WORKER_IDLE": "60", "XDG_CACHE_HOME": str(model_cache)}
    start_worker(root, warm)
    try:
        before = docir(root, "search", "zeppelins", "--json", env=warm)
        assert [r["id"] for r in json.loads(before.stdout)["results"]] == [DROPPED]
        move(root, old)
        after = docir(root, "search", "zeppelins", "--json", env=warm)
        assert after.returncode == 0 and json.loads(after.stdout)["results"] == []
        assert after.stderr.splitlines() == [WARNING]
        assert json.loads(docir(root, "worker", "status", env=warm).stdout)["running"]  # it was the worker's answer
    finally:
        docir(root, "worker", "stop", env=warm, timeout=60)
