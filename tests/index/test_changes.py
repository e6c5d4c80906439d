"""An index's stamp changes with every commit to its file and with the file itself, and only then."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from docir.index import changes
from docir.index.db import file_identity


@pytest.fixture
def long_lived(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(changes, "_ON", [True])
    yield
    changes.forget()


def made(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (a)")
    return conn


def test_a_commit_by_any_connection_changes_the_stamp_and_a_read_does_not(tmp_path: Path, long_lived: None) -> None:
    path = tmp_path / "index.db"
    conn = made(path)
    first = changes.stamp(path, file_identity(path), conn)
    assert first is not None
    conn.execute("SELECT * FROM t").fetchall()
    assert changes.stamp(path, file_identity(path), conn) == first
    conn.execute("INSERT INTO t VALUES (1)")
    second = changes.stamp(path, file_identity(path), conn)
    assert second is not None and second != first
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("INSERT INTO t VALUES (2)")
    assert changes.current(path) not in (first, second)


def test_another_file_put_in_its_place_is_another_stamp(tmp_path: Path, long_lived: None) -> None:
    path = tmp_path / "index.db"
    old = made(path)
    seen = file_identity(path)
    before = changes.stamp(path, seen, old)
    os.replace(path, tmp_path / "aside.db")
    made(path)
    now = changes.current(path)
    assert now is not None and before is not None and now[1] != before[1]
    # The old file's connection may cache nothing: the path names another file than the one it reads.
    assert changes.stamp(path, seen, old) is None


def test_no_stamp_in_a_one_shot_process_or_inside_a_transaction(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "index.db"
    conn = made(path)
    assert changes.stamp(path, file_identity(path), conn) is None  # nothing called keep()
    monkeypatch.setattr(changes, "_ON", [True])
    try:
        conn.execute("BEGIN")
        assert changes.stamp(path, file_identity(path), conn) is None
        conn.execute("COMMIT")
        assert changes.stamp(path, file_identity(path), conn) is not None
    finally:
        changes.forget()


def test_a_kept_value_is_read_again_once_the_index_changed(tmp_path: Path, long_lived: None) -> None:
    path = tmp_path / "index.db"
    conn = made(path)
    kept: changes.Kept[int] = changes.Kept()

    def count() -> int:
        return int(conn.execute("SELECT count(*) FROM t").fetchone()[0])

    assert kept.get(changes.stamp(path, file_identity(path), conn), count) == 0
    sqlite3.connect(path, isolation_level=None).execute("INSERT INTO t VALUES (1)")
    assert kept.get(changes.stamp(path, file_identity(path), conn), count) == 1
    reads: list[int] = []

    def counted() -> int:
        reads.append(1)
        return 9

    assert kept.get(changes.stamp(path, file_identity(path), conn), counted) == 1
    assert reads == []
    assert kept.get(None, lambda: 7) == 7  # no stamp: always read
