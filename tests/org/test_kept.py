"""The connections the warm worker keeps between commands (docir/org/kept.py), read through OrgPeer in-process.

A real PostgreSQL (conftest.py); docir's tables are made by a publisher's migration, no repository
is published. Which server backend answered is pg_backend_pid(); pg_stat_activity says what is open.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from docir.org import kept
from docir.org.address import parse
from docir.org.peer import CONNECT_TIMEOUT, OrgPeer
from docir.org.records import OrgUnavailable
from docir.org.tables import SCHEMA_VERSION
from tests.caller import settings
from tests.org.helpers import sql
from tests.worker.helpers import wait_for

pytest.importorskip("psycopg")


@pytest.fixture
def url(pg_url: str) -> str:
    from docir.org.connect import open_database

    conn, _ = open_database(pg_url, settings(), write=True)
    conn.close()
    return pg_url


@pytest.fixture
def keeper() -> Iterator[kept.Keeper]:
    """What the worker turns on at its start, and off at its end."""
    keeper = kept.start()
    yield keeper
    kept.stop()


def backend(peer: OrgPeer) -> int:
    return int(peer.run(lambda c: c.execute("SELECT pg_backend_pid()").fetchone())[0])  # type: ignore[index]


def docir_backends(url: str) -> list[tuple[int, str]]:
    """(pid, state) of the database's backends that docir opened (the query's own is not one)."""
    return [(int(pid), str(state)) for pid, state in sql(
        url, "SELECT pid, state FROM pg_stat_activity WHERE datname = current_database() "
             "AND application_name = 'docir' ORDER BY pid")]


def command(url: str, read: Any = backend) -> Any:
    """What one command does with the organisation store: open, read, close."""
    peer = OrgPeer.open(parse(url, committed=False), settings())
    try:
        return read(peer)
    finally:
        peer.close()


def test_a_cold_command_closes_its_connection(url: str) -> None:
    assert kept.current() is None
    pid = command(url)
    assert wait_for(lambda: pid not in [p for p, _ in docir_backends(url)], timeout=30)


def test_commands_one_after_another_reuse_one_connection_idle_between_them(url: str, keeper: kept.Keeper) -> None:
    first = command(url)
    assert docir_backends(url) == [(first, "idle")]  # its transaction ended with the command: no snapshot held
    assert command(url) == first
    assert docir_backends(url) == [(first, "idle")]
    assert keeper.idle() == 1


def test_commands_side_by_side_never_share_a_connection(url: str, keeper: kept.Keeper) -> None:
    address = parse(url, committed=False)
    command(url)
    peers = [OrgPeer.open(address, settings()) for _ in range(kept.MOST + 1)]
    try:
        pids = [backend(peer) for peer in peers]
        assert len(set(pids)) == len(peers)
        assert keeper.idle() == 0  # the one kept before is one of them, taken
    finally:
        for peer in peers:
            peer.close()
    assert keeper.idle() == kept.MOST  # the most recently given back: the first is closed
    assert wait_for(lambda: sorted(p for p, _ in docir_backends(url)) == sorted(pids[1:]), timeout=30)


def test_a_connection_the_server_ended_is_replaced_without_a_word(url: str, keeper: kept.Keeper) -> None:
    first = command(url)
    assert sql(url, "SELECT pg_terminate_backend(%s, 10000)", (first,)) == [(True,)]
    second = command(url)
    assert second != first
    assert command(url, lambda peer: (backend(peer), peer.repos)) == (second, [])
    assert docir_backends(url) == [(second, "idle")]


def test_each_command_checks_the_schema_version_again(url: str, keeper: kept.Keeper) -> None:
    command(url)
    sql(url, "UPDATE docir.meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(OrgUnavailable, match="newer than this docir's"):
        command(url)
    assert keeper.idle() == 0  # the refused connection is closed, not kept


def test_another_address_or_environment_never_takes_a_connection(url: str, keeper: kept.Keeper,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    first = command(url)
    other = command(url + ("&" if "?" in url else "?") + "sslmode=disable")
    monkeypatch.setenv("PGAPPNAME", "other")
    third = command(url)
    assert len({first, other, third}) == 3
    assert kept.key_of(url, CONNECT_TIMEOUT, settings()) != kept.key_of(url, CONNECT_TIMEOUT + 1, settings())


def test_a_connection_idle_too_long_is_closed(url: str) -> None:
    from docir.org.connect import connect

    now = [0.0]
    keeper = kept.Keeper(idle_seconds=300.0, clock=lambda: now[0])
    key = kept.key_of(url, CONNECT_TIMEOUT, settings())
    old, young = connect(url, settings()), connect(url, settings())
    keeper.give(key, old)
    now[0] = 200.0
    keeper.give(key, young)
    now[0] = 300.0
    keeper.prune()
    assert old.closed and not young.closed
    assert keeper.take(key) is young
    keeper.stop()
    young.close()


def test_the_timer_closes_an_idle_connection_with_no_command_coming(url: str) -> None:
    from docir.org.connect import connect

    keeper = kept.Keeper(idle_seconds=0.2)
    conn = connect(url, settings())
    keeper.give(kept.key_of(url, CONNECT_TIMEOUT, settings()), conn)
    assert wait_for(lambda: bool(conn.closed), timeout=30)
    assert keeper.idle() == 0


def test_stopping_closes_what_is_kept_and_what_comes_back_later(url: str) -> None:
    keeper = kept.start()
    try:
        address = parse(url, committed=False)
        idle, busy = OrgPeer.open(address, settings()), OrgPeer.open(address, settings())
        idle.close()
    finally:
        kept.stop()
    assert idle.conn.closed and not busy.conn.closed
    busy.close()  # its command ends after the worker stopped keeping
    assert busy.conn.closed and keeper.idle() == 0
    assert kept.current() is None


def test_a_reader_beside_takes_a_kept_connection_and_gives_it_back(url: str, keeper: kept.Keeper) -> None:
    """A big store's second reader (OrgPeer.beside) is a kept connection in the worker, as the first is:
    the next command's two readers are the same two backends, and no more are opened."""
    def two(peer: OrgPeer) -> tuple[int, int]:
        other = peer.beside()
        assert other is not None
        try:
            return backend(peer), backend(other)
        finally:
            other.close()

    first = command(url, two)
    assert first[0] != first[1] and keeper.idle() == 2
    assert set(command(url, two)) == set(first)
    assert sorted(pid for pid, _ in docir_backends(url)) == sorted(first)
