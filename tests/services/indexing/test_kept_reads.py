"""What a long-lived process keeps of an index between commands (index/changes.py) is read again once the
index changed: a ranking after a write, an edit or another process's commit answers as a one-shot command."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from docir.index import changes
from docir.services.indexing import shared_walk
from docir.services.indexing.session import open_session
from docir.services.retrieval import local_ranking
from docir.services.vectors.query_source import NoModel
from tests.caller import caller

NO_MODEL = NoModel("the index's changes are the point here")
TASK = "where are sessions kept"
KEPT = "adr-0000000000a1"  # status: accepted, found by the task
DECISION = "docs/decisions/keep-sessions-in-the-database.md"


@pytest.fixture
def long_lived(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process as the worker runs: folders watched, what is read of an index kept."""
    monkeypatch.setattr(shared_walk, "_WATCHING", [False])
    monkeypatch.setattr(changes, "_ON", [False])
    shared_walk.keep_watch()
    yield
    changes.forget()


def ranked(root: Path) -> list[tuple[str, object]]:
    session = open_session(root, caller())
    try:
        result = local_ranking.context(session, [TASK], NO_MODEL, limit=5, expand=False)
        return [(str(entry.get("id")), entry.get("score")) for entry in result.results]
    finally:
        session.close()


def one_shot(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, object]]:
    with monkeypatch.context() as patched:
        patched.setattr(changes, "_ON", [False])
        return ranked(root)


def test_a_status_changed_in_the_index_by_another_connection_hides_the_document(
        sample_store: Path, long_lived: None, monkeypatch: pytest.MonkeyPatch) -> None:
    first = ranked(sample_store)
    assert KEPT in [doc for doc, _ in first]
    assert ranked(sample_store) == first == one_shot(sample_store, monkeypatch)  # the kept reads answer alike
    other = sqlite3.connect(sample_store / ".docir" / "index.db", isolation_level=None)
    other.execute("UPDATE documents SET status = 'rejected' WHERE id = ?", (KEPT,))
    other.close()
    after = ranked(sample_store)
    assert KEPT not in [doc for doc, _ in after]
    assert after == one_shot(sample_store, monkeypatch)


def test_an_edited_file_is_ranked_by_its_new_status(sample_store: Path, long_lived: None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert KEPT in [doc for doc, _ in ranked(sample_store)]
    assert KEPT in [doc for doc, _ in ranked(sample_store)]  # kept from a command that wrote nothing
    path = sample_store / DECISION
    path.write_text(path.read_text(encoding="utf-8").replace("status: accepted", "status: rejected", 1),
                    encoding="utf-8")
    after = ranked(sample_store)
    assert KEPT not in [doc for doc, _ in after]
    assert after == one_shot(sample_store, monkeypatch)


def test_the_walk_is_planned_again_when_the_index_changed_under_the_same_files(
        sample_store: Path, long_lived: None, monkeypatch: pytest.MonkeyPatch) -> None:
    one_shot(sample_store, monkeypatch)  # the index built
    ranked(sample_store)  # the walk and its plan (nothing to do), kept
    index = sample_store / ".docir" / "index.db"
    other = sqlite3.connect(index, isolation_level=None)
    other.execute("UPDATE documents SET mtime_ns = 1 WHERE id = ?", (KEPT,))
    ranked(sample_store)  # the same walk (no file changed), another index: the stat plan reads the file again
    (mtime,) = other.execute("SELECT mtime_ns FROM documents WHERE id = ?", (KEPT,)).fetchone()
    other.close()
    assert mtime == (sample_store / DECISION).stat().st_mtime_ns
