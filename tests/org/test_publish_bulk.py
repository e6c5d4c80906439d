"""A publish of many section vectors builds its repository an HNSW index of its own, at once (adr-6c44f1cb3e41)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import A1
from tests.org.helpers import sample_repo, sql
from tests.org.test_publish import publish


def own_indexes(url: str) -> list[str]:
    return [name for (name,) in sql(url, "SELECT indexname FROM pg_indexes WHERE schemaname = 'docir'"
                                         " AND indexname LIKE 'sections\\_vector\\_%%' ORDER BY indexname")]


def nearest_to(url: str, doc_id: str) -> list[str]:
    """The reader's vectors list for a document's own vector, through the statement a reader runs."""
    from docir.org import ranking_sql
    from docir.org.address import parse
    from docir.org.peer import OrgPeer
    from tests.caller import settings

    vector = sql(url, "SELECT vector::text FROM docir.documents WHERE id = %s AND vector IS NOT NULL", (doc_id,))[0][0]
    peer = OrgPeer.open(parse(url, committed=False, repos=()), settings())
    try:
        rows = ranking_sql.nearest(peer, peer.names, [float(x) for x in vector.strip("[]").split(",")],
                                   include_inactive=False, limit=5)
    finally:
        peer.close()
    return [row.id for row in rows]


def test_the_index_of_its_own_is_built_replaced_kept_and_dropped(
        cli: Any, tmp_path: Path, pg_url: str, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docir.services.publishing import publish as service

    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    root = sample_repo(tmp_path / "repo")
    monkeypatch.setattr(service, "BULK_VECTORS", 1)  # every publish that writes a vector is a bulk one
    first = cli("publish", pg_url, "--root", str(root), "--wait-embeddings", "--json")
    assert first.code == 0, first.err
    assert "in an index of its own" in first.err
    [built] = own_indexes(pg_url)
    assert sql(pg_url, "SELECT vector_index FROM docir.repos") == [(built,)]
    assert sql(pg_url, "SELECT DISTINCT own_index FROM docir.sections") == [(True,)]
    assert nearest_to(pg_url, A1)[0] == A1
    # The reader's statement can reach the sections through that index: its predicate matches.
    from docir.org import ranking_sql

    repo = sql(pg_url, "SELECT name FROM docir.repos")[0][0]
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")  # a table this small is read whole; could it use the index?
        lines = [r[0] for r in conn.execute("EXPLAIN " + ranking_sql.nearest_statement(384, False, [repo]), {
            "v": ranking_sql.vector_literal([0.05] * 384), "repos": [repo], "wide": 40, "limit": 5}).fetchall()]
    assert any(built in line for line in lines), "\n".join(lines)

    # Another bulk publish builds the next index beside it, and the first is dropped once it commits.
    changed = root / "docs" / "decisions" / next(p.name for p in (root / "docs" / "decisions").glob("*.md"))
    changed.write_text(changed.read_text(encoding="utf-8") + "\n## Later\n\nA new section on rollbacks.\n",
                       encoding="utf-8")
    again = cli("publish", pg_url, "--root", str(root), "--wait-embeddings", "--json")
    assert again.code == 0, again.err
    [rebuilt] = own_indexes(pg_url)
    assert rebuilt != built and sql(pg_url, "SELECT vector_index FROM docir.repos") == [(rebuilt,)]

    # A small publish of that repository writes into its own index: its rows stay out of the shared one.
    monkeypatch.setattr(service, "BULK_VECTORS", 10**9)
    changed.write_text(changed.read_text(encoding="utf-8") + "\n## Later still\n\nAnd one on canaries.\n",
                       encoding="utf-8")
    small = cli("publish", pg_url, "--root", str(root), "--wait-embeddings", "--json")
    assert small.code == 0, small.err
    assert "in an index of its own" not in small.err
    assert own_indexes(pg_url) == [rebuilt]
    assert sql(pg_url, "SELECT DISTINCT own_index FROM docir.sections") == [(True,)]
    assert nearest_to(pg_url, A1)[0] == A1

    # Taken out, the repository leaves no index behind.
    gone = cli("publish", pg_url, "--root", str(root), "--remove", "--json")
    assert gone.code == 0, gone.err
    assert own_indexes(pg_url) == []


def test_a_small_publish_uses_the_shared_index(cli: Any, tmp_path: Path, pg_url: str, model_cache: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    root = sample_repo(tmp_path / "repo")
    report = publish(cli, root, pg_url, "--wait-embeddings")
    assert report["vectors_missing"] == 0
    assert own_indexes(pg_url) == []
    assert sql(pg_url, "SELECT vector_index FROM docir.repos") == [(None,)]
    assert sql(pg_url, "SELECT DISTINCT own_index FROM docir.sections") == [(False,)]
    assert nearest_to(pg_url, A1)[0] == A1


def test_a_version_2_database_is_migrated_with_its_rows_drawn(cli: Any, tmp_path: Path, pg_url: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Migration 3 gives rows published before it their draw and leaves their vectors in the shared index."""
    from docir.org import connect, tables
    from tests.caller import settings

    with monkeypatch.context() as patched:
        patched.setattr(connect, "MIGRATIONS", tables.MIGRATIONS[:2])
        patched.setattr(connect, "SCHEMA_VERSION", 2)
        conn, found = connect.open_database(pg_url, settings(), write=True)
        conn.close()
    assert found == 0
    vector = "[" + ",".join(["0.05"] * 384) + "]"
    sql(pg_url, "INSERT INTO docir.repos (name, remote, schema) VALUES ('acme/old', '', '{}')")
    sql(pg_url, "INSERT INTO docir.documents (repo, id, path, type, title, description, active, archived, tags,"
                " related, applies_to, meta, body, sha256, fingerprint, vector) VALUES ('acme/old', 'adr-0',"
                " 'docs/a.md', 'decision', 't', 'd', true, false, '{}', '[]', '{}', '{}', 'b', 's', 'f', %s)",
        (vector,))
    sql(pg_url, "INSERT INTO docir.sections (repo, doc_id, ord, heading, start_line, end_line, vector)"
                " VALUES ('acme/old', 'adr-0', 0, '{h}', 1, 2, %s)", (vector,))

    report = publish(cli, sample_repo(tmp_path / "repo"), pg_url)
    assert report["tables"] == "migrated from version 2"
    [(doc_draw,)] = sql(pg_url, "SELECT draw FROM docir.documents WHERE repo = 'acme/old'")
    assert sql(pg_url, "SELECT draw, own_index FROM docir.sections WHERE repo = 'acme/old'") == [(doc_draw, False)]
    assert 0.0 <= doc_draw < 1.0
    assert sql(pg_url, "SELECT vector_index FROM docir.repos WHERE name = 'acme/old'") == [(None,)]


def test_two_bulk_publishes_at_once_both_land(cli: Any, tmp_path: Path, pg_url: str, model_cache: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bulk publish builds its index under a lock the other waits for: neither deadlocks the other."""
    import shutil
    import threading

    from docir.services.indexing.session import open_session
    from docir.services.publishing import publish as service
    from tests.caller import caller
    from tests.org.helpers import git

    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    first = sample_repo(tmp_path / "one")
    assert cli("embed", "--flush", "--root", str(first)).code == 0
    second = tmp_path / "two"
    shutil.copytree(first, second)
    git(second, "remote", "set-url", "origin", "https://github.com/acme/two.git")
    monkeypatch.setattr(service, "BULK_VECTORS", 1)
    failed: list[BaseException] = []

    def publish_one(root: Path) -> None:
        session = open_session(root, caller())
        try:
            service.publish(session, pg_url)
        except BaseException as exc:  # handed to the test below
            failed.append(exc)
        finally:
            session.close()

    threads = [threading.Thread(target=publish_one, args=(root,)) for root in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == []
    assert len(own_indexes(pg_url)) == 2
    assert sorted(sql(pg_url, "SELECT name, vector_index IS NOT NULL FROM docir.repos")) == [
        ("github.com/acme/sample", True), ("github.com/acme/two", True)]


def test_a_writer_that_does_not_own_the_tables_publishes_into_the_shared_index(
        cli: Any, tmp_path: Path, pg_url: str, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the tables' owner may build an index: another writer's big publish still lands, in the shared one."""
    from docir.services.publishing import publish as service
    from tests.org.helpers import as_user

    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.setattr(service, "BULK_VECTORS", 1)
    root = sample_repo(tmp_path / "repo")
    owner = sample_repo(tmp_path / "other", "https://github.com/acme/other.git")
    assert cli("publish", pg_url, "--root", str(owner), "--json").code == 0  # makes the tables, no vectors yet
    sql(pg_url, "CREATE ROLE writer LOGIN; GRANT USAGE ON SCHEMA docir TO writer;"
                " GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA docir TO writer")
    done = cli("publish", as_user(pg_url, "writer"), "--root", str(root), "--wait-embeddings", "--json")
    assert done.code == 0, done.err
    assert "in an index of its own" not in done.err
    assert own_indexes(pg_url) == []
    assert sql(pg_url, "SELECT DISTINCT own_index FROM docir.sections WHERE repo = 'github.com/acme/sample'") == [
        (False,)]
    assert nearest_to(pg_url, A1)[0] == A1
