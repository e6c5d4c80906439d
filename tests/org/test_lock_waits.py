"""No publish waits without end, and none waits silently: a lock another publish holds is waited for in bounded
attempts, said, and given up when its holder is stalled (a CI runner stopped mid-publish: its server process sits
idle in its transaction); readers give a lock up long before their statement timeout and keep the local answer.

The stalled publisher is a connection left idle in a transaction holding what a bulk publish holds (SHARE ROW
EXCLUSIVE on docir.sections), exactly what a publisher stopped with SIGSTOP leaves on the server."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from docir.org import peer, published
from tests.org.helpers import counts, sample_repo, sql

pytest.importorskip("psycopg")


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waits of a publish scaled down, so that giving up takes seconds, not half a minute."""
    monkeypatch.setattr(published, "LOCK_WAIT_MS", 300)
    monkeypatch.setattr(published, "STALLED_SECONDS", 1.5)
    monkeypatch.setattr(published, "SAY_EVERY_SECONDS", 0.0)


def hold(url: str, statement: str) -> Any:
    import psycopg

    conn = psycopg.connect(url)
    conn.execute(statement)  # the transaction stays open, idle, its lock held
    return conn


def test_a_publish_beside_a_stalled_bulk_publish_gives_up_naming_it(cli: Any, tmp_path: Path, pg_url: str,
                                                                    quick: None) -> None:
    first = sample_repo(tmp_path / "first", "https://github.com/acme/first.git")
    assert cli("publish", pg_url, "--root", str(first), "--json").code == 0  # the tables exist
    stalled = hold(pg_url, "LOCK TABLE docir.sections IN SHARE ROW EXCLUSIVE MODE")
    try:
        pid = stalled.info.backend_pid
        second = sample_repo(tmp_path / "second", "https://github.com/acme/second.git")
        result = cli("publish", pg_url, "--root", str(second))
        assert result.code == 2, result.err
        errors = [line for line in result.err.splitlines() if line.startswith("docir: error: ")]
        assert len(errors) == 1 and f"server process {pid}" in errors[0] and "nothing was written" in errors[0]
        assert "pg_terminate_backend" in errors[0]
        assert any(line.startswith("docir: warning: waiting for another publish") for line in result.err.splitlines())
        assert "github.com/acme/second" not in {r[0] for r in sql(pg_url, "SELECT name FROM docir.repos")}
    finally:
        stalled.close()


def test_a_publish_waits_for_a_working_holder_and_lands_when_it_ends(cli: Any, tmp_path: Path, pg_url: str,
                                                                    quick: None, monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    monkeypatch.setattr(published, "STALLED_SECONDS", 60.0)  # a holder that works is waited for
    first = sample_repo(tmp_path / "first", "https://github.com/acme/first.git")
    assert cli("publish", pg_url, "--root", str(first), "--json").code == 0
    holder = hold(pg_url, "LOCK TABLE docir.sections IN SHARE ROW EXCLUSIVE MODE")
    said = threading.Event()
    ended: list[bool] = []
    real_again = published.Waiting.again

    def again(self: published.Waiting, conn: Any) -> None:
        real_again(self, conn)
        said.set()

    monkeypatch.setattr(published.Waiting, "again", again)

    def release() -> None:
        said.wait(30)
        ended.append(True)
        holder.commit()  # the bulk publish it stands for ends

    releasing = threading.Thread(target=release)
    releasing.start()
    second = sample_repo(tmp_path / "second", "https://github.com/acme/second.git")
    result = cli("publish", pg_url, "--root", str(second), "--json")
    releasing.join()
    holder.close()
    assert result.code == 0, result.err
    assert ended == [True]  # it landed after the holder ended, having waited for it, said
    assert "waiting for another publish" in result.err
    assert counts(pg_url)["repos"] == 2


def test_a_reader_gives_a_lock_up_long_before_its_statement_timeout(cli: Any, tmp_path: Path, pg_url: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peer, "LOCK_WAIT_MS", 300)
    monkeypatch.setattr(peer, "STATEMENT_TIMEOUT_MS", 600_000)  # the read must not owe its answer to this one
    first = sample_repo(tmp_path / "first", "https://github.com/acme/first.git")
    assert cli("publish", pg_url, "--root", str(first), "--json").code == 0
    reader = sample_repo(tmp_path / "reader", None)
    migrating = hold(pg_url, "LOCK TABLE docir.documents IN ACCESS EXCLUSIVE MODE")  # as a migration holds it
    try:
        result = cli("search", "sessions", "--root", str(reader), "--store", pg_url, "--json")
        still_held = migrating.info.transaction_status.name == "INTRANS"
    finally:
        migrating.close()
    assert still_held  # the answer came while the lock was still held
    assert result.code == 0, result.err
    warnings = result.err.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("docir: warning: organisation store ")
    assert result.json()["results"]  # the local answer stands
