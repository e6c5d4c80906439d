import sqlite3
from pathlib import Path

import pytest

from docir.index.db import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    IndexCorrupt,
    IndexUnreadable,
    open_index,
    open_index_readonly,
)


def test_new_index_is_wal_and_versioned(tmp_path: Path) -> None:
    conn = open_index(tmp_path / "index.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert int(conn.execute("PRAGMA busy_timeout").fetchone()[0]) >= 5000


def test_reopening_runs_no_migration_twice(tmp_path: Path) -> None:
    open_index(tmp_path / "index.db").close()
    conn = open_index(tmp_path / "index.db")
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'documents'").fetchone()[0] == 1


def test_text_file_is_corrupt(tmp_path: Path) -> None:
    (tmp_path / "index.db").write_text("hello")
    with pytest.raises(IndexCorrupt, match="not a database"):
        open_index(tmp_path / "index.db")


def test_foreign_sqlite_is_corrupt(tmp_path: Path) -> None:
    other = sqlite3.connect(tmp_path / "index.db")
    other.execute("CREATE TABLE foo (x)")
    other.commit()
    other.close()
    with pytest.raises(IndexCorrupt, match="not a docir index"):
        open_index(tmp_path / "index.db")


def test_newer_schema_is_corrupt_for_the_local_store_and_unreadable_for_a_peer(tmp_path: Path) -> None:
    conn = open_index(tmp_path / "index.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(IndexCorrupt, match="newer docir"):
        open_index(tmp_path / "index.db")
    with pytest.raises(IndexUnreadable, match="schema"):
        open_index_readonly(tmp_path / "index.db")


def test_readonly_connection_refuses_writes(tmp_path: Path) -> None:
    open_index(tmp_path / "index.db").close()
    conn = open_index_readonly(tmp_path / "index.db")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("INSERT INTO settings VALUES ('a', 'b')")


def test_readonly_open_of_a_missing_index(tmp_path: Path) -> None:
    with pytest.raises(IndexUnreadable):
        open_index_readonly(tmp_path / "index.db")
    assert not (tmp_path / "index.db").exists()
