"""A walk of docs/ is skipped while the folders it listed saw no change (documents/watch.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from docir.documents.ownership import EVERYTHING, Ownership
from docir.documents.scan import FileStat, scan_docs
from docir.documents.watch import FolderWatch
from docir.services.indexing import shared_walk
from docir.services.indexing.shared_walk import WatchedWalk


def _store(tmp_path: Path) -> Path:
    (tmp_path / "docs" / "guides").mkdir(parents=True)
    (tmp_path / "docs" / "guides" / "a.md").write_text("first\n", encoding="utf-8")
    return tmp_path


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """How many walks of docs/ were actually done: the rest were vouched for by the watch."""
    done: list[Path] = []

    def counted(root: Path, docs_dir: Path, on_folder: Callable[[str], None] | None = None,
                owned: Ownership = EVERYTHING) -> dict[str, FileStat]:
        done.append(docs_dir)
        return scan_docs(root, docs_dir, on_folder, owned)

    monkeypatch.setattr(shared_walk, "scan_docs", counted)
    return lambda: len(done)


def test_every_kind_of_change_is_an_event_and_quiet_is_not(tmp_path: Path) -> None:
    folder = _store(tmp_path) / "docs" / "guides"
    watch = FolderWatch.open()
    assert watch is not None  # Linux: the platform these tests run on has inotify
    watch.add(str(folder))
    assert not watch.changed()
    path = folder / "a.md"
    changes = [
        lambda: _append(path, "appended in place\n"),
        lambda: os.utime(path, ns=(1, 1)),
        lambda: path.rename(folder / "b.md"),
        lambda: (folder / "c.md").write_text("new\n", encoding="utf-8"),
        lambda: (folder / "c.md").unlink(),
        lambda: (folder / "sub").mkdir(),
    ]
    for change in changes:
        change()
        assert watch.changed()
        assert not watch.changed()  # every event was read


def test_a_quiet_store_is_walked_once_and_each_change_is_seen_by_the_next_walk(
        tmp_path: Path, walks: Callable[[], int]) -> None:
    root = _store(tmp_path)
    walk = WatchedWalk(root, root / "docs", watch=True)
    first = walk()
    assert walk() is first and walks() == 1
    folder_mtime = (root / "docs" / "guides").stat().st_mtime_ns
    with open(root / "docs" / "guides" / "a.md", "a", encoding="utf-8") as handle:
        handle.write("an in-place edit: the folder's mtime stays\n")
    assert (root / "docs" / "guides").stat().st_mtime_ns == folder_mtime
    edited = walk()
    assert walks() == 2 and edited["docs/guides/a.md"][0] > first["docs/guides/a.md"][0]  # (size, mtime_ns)
    (root / "docs" / "new").mkdir()
    walk()
    (root / "docs" / "new" / "b.md").write_text("in a folder born after the first walk\n", encoding="utf-8")
    assert "docs/new/b.md" in walk()  # the new folder is watched too


def test_a_folder_the_exclude_list_names_is_not_watched(tmp_path: Path, walks: Callable[[], int]) -> None:
    """adr-547a50927c6b: what happens in a folder the store does not own never costs the next read a walk."""
    root = _store(tmp_path)
    (root / "docs" / "site").mkdir()
    walk = WatchedWalk(root, root / "docs", watch=True, owned=Ownership(["site"]))
    first = walk()
    (root / "docs" / "site" / "index.md").write_text("# the site's home page\n", encoding="utf-8")
    assert walk() is first and walks() == 1
    (root / "docs" / "guides" / "b.md").write_text("a document\n", encoding="utf-8")
    assert "docs/guides/b.md" in walk() and walks() == 2


def test_without_docs_or_without_a_watch_every_call_walks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          walks: Callable[[], int]) -> None:
    walk = WatchedWalk(tmp_path, tmp_path / "docs", watch=True)
    assert walk() == {} and walk() == {} and walks() == 2  # nothing watched: nothing vouched for
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("x\n", encoding="utf-8")
    assert "docs/a.md" in walk()
    monkeypatch.setattr(shared_walk.FolderWatch, "open", classmethod(lambda cls: None))
    unwatched = WatchedWalk(tmp_path, tmp_path / "docs", watch=True)
    before = walks()
    unwatched()
    unwatched()
    assert walks() - before == 2


def test_a_folder_that_cannot_be_watched_leaves_the_walk_to_run_every_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walks: Callable[[], int]) -> None:
    root = _store(tmp_path)
    walk = WatchedWalk(root, root / "docs", watch=True)
    monkeypatch.setattr(FolderWatch, "add", lambda self, folder: setattr(self, "whole", False))  # the limit, say
    walk()
    walk()
    assert walks() == 2
