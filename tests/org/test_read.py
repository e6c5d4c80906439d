"""Reading the organisation store as a peer: two repositories publish, a third that has neither reads them.

A real PostgreSQL with pgvector (conftest.py), real stores made by `docir init` and `docir add`, the
real model (ranking by vector is part of what is read), and `docir publish` writing the database.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.caller import caller, settings
from tests.conftest import add_doc
from tests.org.helpers import HSM, Org, stores_yaml
from tests.org.helpers import publish_as as publish

pytest.importorskip("psycopg")


def rows(result: Any) -> list[dict[str, Any]]:
    assert result.code == 0, result.err
    payload = result.json()
    return list(payload.get("results") or payload.get("documents") or [])


def test_context_answers_with_published_documents_naming_store_and_repo(cli: Any, org: Org) -> None:
    found = rows(cli("context", "how are session tokens signed", "--root", str(org.reader), "--full-links", "--json"))
    by_id = {row["id"]: row for row in found}
    signing = by_id[org.ids["signing"]]
    assert signing["repo"] == "acme/platform"
    assert signing["store"].startswith("postgresql://") and "postgres:" not in signing["store"]
    assert signing["similarity"] is not None and signing["matched_section"] is not None
    # the successor lives in another repository, and comes along with the decision it supersedes
    hsm = by_id[org.ids["hsm"]]
    assert hsm["repo"] == "acme/service"
    ranked = [row["id"] for row in found if row.get("via") is None]
    assert ranked.index(org.ids["signing"]) < ranked.index(org.ids["local"])  # merged by similarity
    assert org.ids["queues"] not in ranked[:2]
    local = by_id[org.ids["local"]]
    assert local["store"] == "." and "repo" not in local


def test_a_superseded_decision_brings_its_successor_from_another_repository(cli: Any, org: Org) -> None:
    found = rows(cli("context", "rotating signing keys", "--root", str(org.reader), "--limit", "1", "--full-links",
                     "--json"))
    assert [row["id"] for row in found if row.get("via") is None] == [org.ids["signing"]]
    linked = [row for row in found if row.get("via") is not None]
    assert [(row["id"], row["repo"], row["via"]) for row in linked] == [
        (org.ids["hsm"], "acme/service", {"id": org.ids["signing"], "kind": "supersedes", "direction": "successor"})]


def test_get_returns_published_bodies(cli: Any, org: Org) -> None:
    result = cli("get", org.ids["hsm"], org.ids["local"], "adr-ffffffffffff", "--root", str(org.reader), "--json")
    assert result.code != 0 or result.json()["missing"] == ["adr-ffffffffffff"]
    payload = result.json()
    assert [doc["id"] for doc in payload["documents"]] == [org.ids["hsm"], org.ids["local"]]
    hsm = payload["documents"][0]
    assert "Tokens are signed by the HSM" in hsm["body"] and hsm["repo"] == "acme/service"
    assert hsm["frontmatter"]["title"] == HSM
    section = cli("get", org.ids["signing"], "--section", "Key rotation", "--root", str(org.reader), "--json")
    assert section.json()["documents"][0]["body"].startswith("## Key rotation")


def test_search_and_query_include_the_organisation_store(cli: Any, org: Org) -> None:
    searched = rows(cli("search", "durable queue", "--root", str(org.reader), "--json"))
    assert [(row["id"], row["repo"]) for row in searched] == [(org.ids["queues"], "acme/platform")]
    listed = rows(cli("query", "--type", "decision", "--root", str(org.reader), "--json"))
    assert sorted((row.get("repo", ""), row["id"]) for row in listed) == sorted(
        [("", org.ids["local"]), ("acme/platform", org.ids["signing"]), ("acme/platform", org.ids["queues"]),
         ("acme/service", org.ids["hsm"])])


def test_get_and_query_name_a_published_documents_incoming_links(cli: Any, org: Org) -> None:
    """Its successor lives in another repository; the incoming link is named from its side."""
    replaced = [{"kind": "superseded-by", "id": org.ids["hsm"]}]
    got = cli("get", org.ids["signing"], org.ids["queues"], "--root", str(org.reader), "--json")
    assert [doc["incoming"] for doc in got.json()["documents"]] == [replaced, []]
    listed = {row["id"]: row["incoming"]
              for row in rows(cli("query", "--type", "decision", "--root", str(org.reader), "--json"))}
    assert listed[org.ids["signing"]] == replaced and listed[org.ids["hsm"]] == listed[org.ids["queues"]] == []


def test_a_removed_document_disappears_after_the_next_publish(cli: Any, org: Org) -> None:
    path = next((org.platform / "docs").rglob("*durable-queue*.md"))
    path.unlink()
    publish(cli, org.url, org.platform, "acme/platform")
    assert org.ids["queues"] not in {row["id"] for row in rows(cli("query", "--root", str(org.reader), "--json"))}
    assert rows(cli("search", "durable queue", "--root", str(org.reader), "--json")) == []
    assert cli("get", org.ids["queues"], "--root", str(org.reader), "--json").json()["missing"] == [org.ids["queues"]]


@pytest.mark.parametrize("repos, exclude, expected", [
    ("[acme/platform]", "[]", {"acme/platform"}),
    ("['acme/*']", "['*/service']", {"acme/platform"}),
    ("[]", "['acme/plat*']", {"acme/service"}),
])
def test_repos_and_exclude_choose_the_repositories(cli: Any, org: Org, repos: str, exclude: str,
                                                    expected: set[str]) -> None:
    stores_yaml(org.reader, f"stores:\n  - url: {org.url}\n    repos: {repos}\n    exclude: {exclude}\n")
    found = rows(cli("query", "--root", str(org.reader), "--json"))
    assert {row["repo"] for row in found if "repo" in row} == expected


def test_a_password_in_stores_yaml_is_refused(cli: Any, org: Org) -> None:
    stores_yaml(org.reader, "stores:\n  - url: postgresql://reader:hunter2@db.example/org\n")
    result = cli("query", "--root", str(org.reader))
    assert result.code == 2
    assert result.err.count("\n") == 1 and "PGPASSWORD" in result.err and "hunter2" not in result.err


def test_a_bad_url_is_one_line(cli: Any, org: Org) -> None:
    result = cli("search", "keys", "--root", str(org.reader), "--store", "postgresql://db.example:port/org")
    assert result.code == 2 and result.err.count("\n") == 1 and "bad organisation store URL" in result.err


def test_an_unreachable_server_is_one_warning_and_the_local_answer(cli: Any, org: Org, tmp_path: Path) -> None:
    stores_yaml(org.reader, f"stores:\n  - url: postgresql:///org?host={tmp_path / 'no-such-socket-dir'}\n")
    for args in (["context", "answers cached"], ["search", "cached"], ["query"], ["get", org.ids["local"]]):
        result = cli(*args, "--root", str(org.reader), "--json")
        assert result.code == 0, result.err
        assert len(result.err.splitlines()) == 1, result.err
        assert result.err.startswith("docir: warning: organisation store postgresql:///org?host=")
        assert org.ids["local"] in {row["id"] for row in rows(result)}


def test_another_schema_version_skips_the_store_with_one_warning(cli: Any, org: Org) -> None:
    import psycopg

    with psycopg.connect(org.url, autocommit=True) as conn:
        conn.execute("UPDATE docir.meta SET value = '99' WHERE key = 'schema_version'")
    result = cli("search", "answers cached", "--root", str(org.reader), "--json")
    assert result.code == 0 and len(result.err.splitlines()) == 1 and "version 99" in result.err
    assert [(row["id"], row.get("store", ".")) for row in rows(result)] == [(org.ids["local"], ".")]


def test_a_repository_of_another_model_is_searched_lexically(cli: Any, org: Org) -> None:
    import psycopg

    with psycopg.connect(org.url, autocommit=True) as conn:
        conn.execute("UPDATE docir.repos SET model_id = 'another/model' WHERE name = 'acme/service'")
    result = cli("context", "hardware security module signs tokens", "--root", str(org.reader), "--json",
                 "--no-expand")
    warnings = [line for line in result.err.splitlines() if "searched lexically" in line]
    assert len(warnings) == 1 and "acme/service" in warnings[0] and "another/model" in warnings[0]
    hsm = next(row for row in rows(result) if row["id"] == org.ids["hsm"])
    assert hsm["similarity"] is None


def test_explain_says_where_each_part_came_from(cli: Any, org: Org) -> None:
    found = rows(cli("context", "rotating signing keys", "--root", str(org.reader), "--explain", "--limit", "1",
                     "--json"))
    explain = found[0]["explain"]
    assert explain["repo"] == "acme/platform" and explain["store"] == found[0]["store"]
    assert explain["lexical_rank"] == 1 and explain["vector_rank"] == 1
    # A word in half the sections or more weighs almost nothing (bm25's idf, floored as FTS5 floors it):
    # in three documents every word does, so the score is tiny but there.
    assert explain["fts_score"] is not None and explain["similarity"] == found[0]["similarity"]
    assert set(explain["rankings"]) >= {"sections", "vector"}


def test_the_readers_own_published_copy_is_not_repeated(cli: Any, org: Org) -> None:
    publish(cli, org.url, org.reader, "acme/reader")
    found = rows(cli("context", "the reader caches its answers", "--root", str(org.reader), "--json"))
    assert [row["store"] for row in found if row["id"] == org.ids["local"]] == ["."]
    assert all(row.get("repo") != "acme/reader" for row in rows(cli("query", "--root", str(org.reader), "--json")))


def test_a_read_only_role_reads_and_cannot_write(cli: Any, org: Org) -> None:
    import psycopg

    role = f"reader_{org.url.split('?')[0].rsplit('/', 1)[1]}"  # roles are the server's: one per test database
    with psycopg.connect(org.url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA docir TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA docir TO {role}")
    as_reader = org.url.replace("postgres:@", f"{role}@", 1)
    stores_yaml(org.reader, f"stores:\n  - url: {as_reader}\n")
    result = cli("context", "how are session tokens signed", "--root", str(org.reader), "--json")
    assert result.err == ""
    assert org.ids["signing"] in {row["id"] for row in rows(result)}
    with psycopg.connect(as_reader) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("DELETE FROM docir.documents")


def test_the_reader_never_writes_even_as_a_superuser(org: Org) -> None:
    import psycopg

    from docir.org.address import parse
    from docir.org.peer import OrgPeer

    peer = OrgPeer.open(parse(org.url, committed=False), settings())
    try:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            peer.conn.execute("DELETE FROM docir.documents")
    finally:
        peer.close()


def test_store_option_reads_a_url_for_one_call(cli: Any, org: Org) -> None:
    stores_yaml(org.reader, "stores: []\n")
    alone = rows(cli("search", "durable queue", "--root", str(org.reader), "--json"))
    assert alone == []
    together = rows(cli("search", "durable queue", "--root", str(org.reader), "--store", org.url, "--json"))
    assert [row["repo"] for row in together] == ["acme/platform"]


def test_without_psycopg_one_warning_names_the_extra(cli: Any, org: Org, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg raises ImportError, as when not installed
    result = cli("search", "cached", "--root", str(org.reader), "--json")
    assert result.code == 0
    assert len(result.err.splitlines()) == 1, result.err
    assert result.err.startswith("docir: warning: organisation store postgresql://")
    assert "psycopg is not installed (pip install 'docir[org]')" in result.err
    assert {row.get("store", ".") for row in rows(result)} == {"."}


def test_one_command_reads_one_snapshot(cli: Any, org: Org) -> None:
    """A publish that commits while a command reads is not half-seen: every statement of the command reads
    the store as it was when the command began (REPEATABLE READ), then the next command sees it whole."""
    from docir.org.address import parse
    from docir.org.peer import OrgPeer

    peer = OrgPeer.open(parse(org.url, committed=False), settings())
    try:
        before = [doc.listing.id for doc in peer.documents([org.ids["signing"], org.ids["queues"]])]
        path = next((org.platform / "docs").rglob("*durable-queue*.md"))
        path.unlink()
        publish(cli, org.url, org.platform, "acme/platform")
        during = [doc.listing.id for doc in peer.documents([org.ids["signing"], org.ids["queues"]])]
    finally:
        peer.close()
    assert sorted(before) == sorted(during) == sorted([org.ids["signing"], org.ids["queues"]])
    after = cli("get", org.ids["queues"], "--root", str(org.reader), "--json").json()
    assert after["missing"] == [org.ids["queues"]]


def test_a_local_decision_superseded_in_another_repository_brings_the_published_successor(cli: Any,
                                                                                          org: Org) -> None:
    """The platform reads the store too: its own decision (answered locally) was superseded by the service."""
    stores_yaml(org.platform, f"stores:\n  - url: {org.url}\n")
    result = cli("context", "rotating signing keys", "--root", str(org.platform), "--limit", "1", "--json")
    found = rows(result)
    assert [(row["id"], row["store"]) for row in found if row.get("via") is None] == [(org.ids["signing"], ".")]
    assert [(row["id"], row["repo"], row["via"]) for row in found if row.get("via") is not None] == [
        (org.ids["hsm"], "acme/service",
         {"id": org.ids["signing"], "kind": "supersedes", "direction": "successor", "store": "."})]


def test_a_sketch_and_terms_are_weighed_as_locally(cli: Any, org: Org) -> None:
    """Each form is ranked in the database and weighed by the local gates: a sketch that agrees with the task
    counts, and explain says with what weight."""
    found = rows(cli("context", "how are tokens signed", "--sketch", "The signing key rotates daily and old keys "
                     "verify for a week.", "--terms", "HMAC", "--root", str(org.reader), "--explain", "--limit", "2",
                     "--json"))
    # Both documents say "tokens are signed"; the sketch is about the rotating keys of one of them. (Which of
    # the two the task alone puts first is a near tie: in three documents every word weighs almost nothing.)
    signing = next(row for row in found if row["id"] == org.ids["signing"])
    assert signing["repo"] == "acme/platform"
    explain = signing["explain"]
    assert explain["sketch"]["weight"] > 0 and "terms" in explain
    assert explain["contributions"]["sketch sections"] > 0 and explain["rankings"]["sketch sections"]["rank"] == 1
    assert {"sketch sections", "sketch vector", "terms sections"} <= set(explain["contributions"])
    assert explain["rankings"]["sketch vector"]["rank"] == 1


def test_the_visibility_predicate_is_the_published_activity(cli: Any, org: Org) -> None:
    """`active AND NOT archived`, computed at publish under the publishing repository's schema; get shows any."""
    import psycopg

    with psycopg.connect(org.url, autocommit=True) as conn:
        conn.execute("UPDATE docir.documents SET active = false WHERE id = %s", (org.ids["queues"],))
        conn.execute("UPDATE docir.documents SET archived = true WHERE id = %s", (org.ids["signing"],))
    shown = {row["id"] for row in rows(cli("search", "durable queue signed tokens", "--root", str(org.reader),
                                           "--json"))}
    assert org.ids["queues"] not in shown and org.ids["signing"] not in shown and org.ids["hsm"] in shown
    widened = {row["id"] for row in rows(cli("search", "durable queue signed tokens", "--include-inactive",
                                             "--root", str(org.reader), "--json"))}
    assert org.ids["queues"] in widened and org.ids["signing"] not in widened
    context = {row["id"] for row in rows(cli("context", "rotating signing keys", "--root", str(org.reader), "--json"))}
    assert org.ids["signing"] not in context
    fetched = cli("get", org.ids["signing"], "--root", str(org.reader), "--json").json()["documents"]
    assert [(doc["id"], doc["archived"]) for doc in fetched] == [(org.ids["signing"], True)]


def test_the_warm_worker_reads_the_organisation_store_as_a_cold_command_does(cli: Any, org: Org, tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import os
    import signal

    from docir.worker import paths
    from tests.worker.helpers import docir, start_worker

    args = ("context", "how are session tokens signed", "--json", "--full-links")
    cold = [(row["id"], row.get("repo")) for row in rows(cli(*args, "--root", str(org.reader)))]
    monkeypatch.setenv("DOCIR_WORKER", "1")
    pid = start_worker(org.reader)
    # The client cannot import psycopg: had it answered itself, it would have warned so.
    broken = tmp_path / "no-psycopg" / "psycopg"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('not here')\n")
    try:
        warm = docir(org.reader, *args, env={**os.environ, "PYTHONPATH": str(broken.parent)})
        assert warm.returncode == 0 and warm.stderr == "", warm.stderr
        assert [(row["id"], row.get("repo")) for row in json.loads(warm.stdout)["results"]] == cold
    finally:
        docir(org.reader, "worker", "stop", timeout=60)
        if paths.pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def docir_backends(url: str) -> list[int]:
    """The database's backends that docir opened (the query's own is not one)."""
    from tests.org.helpers import sql

    return [int(pid) for (pid,) in sql(url, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                            "AND application_name = 'docir' ORDER BY pid")]


def test_the_warm_worker_keeps_one_connection_and_replaces_a_killed_one(org: Org) -> None:
    """Warm commands one after another read through one server backend (adr-8a976b997594); when the server
    ends it, the next command connects anew without a word. Every answer is the cold one, byte for byte."""
    import os
    import signal

    from docir.worker import paths
    from tests.org.helpers import sql
    from tests.worker.helpers import docir, start_worker, wait_for

    args = ("context", "how are session tokens signed", "--json", "--full-links")
    cold = docir(org.reader, *args)  # DOCIR_WORKER=0: its own process
    assert (cold.returncode, cold.stderr) == (0, "") and '"repo": "acme/service"' in cold.stdout
    warm_env = {**os.environ, "DOCIR_WORKER": "1"}
    pid = start_worker(org.reader, env=warm_env)
    try:
        first = docir(org.reader, *args, env=warm_env)
        kept = docir_backends(org.url)
        second = docir(org.reader, *args, env=warm_env)
        assert len(kept) == 1 and docir_backends(org.url) == kept
        assert sql(org.url, "SELECT pg_terminate_backend(%s, 10000)", (kept[0],)) == [(True,)]
        third = docir(org.reader, *args, env=warm_env)
        replaced = docir_backends(org.url)
        assert len(replaced) == 1 and replaced != kept
        for warm in (first, second, third):
            assert (warm.returncode, warm.stderr, warm.stdout) == (0, "", cold.stdout)
    finally:
        docir(org.reader, "worker", "stop", env=warm_env, timeout=60)
        if paths.pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: docir_backends(org.url) == [], timeout=30)  # a stopping worker closes what it kept


def test_a_repository_published_between_two_warm_commands_is_in_the_second(cli: Any, org: Org,
                                                                           tmp_path: Path) -> None:
    import json
    import os
    import signal

    from docir.worker import paths
    from tests.worker.helpers import docir, start_worker

    billing = tmp_path / "billing"
    assert cli("init", "--root", str(billing)).code == 0
    invoices = add_doc(cli, billing, "decision", "Invoices carry signed session tokens",
                       "Every invoice link carries a session token signed by the billing service.",
                       "--wait-embeddings")
    args = ("context", "how are session tokens signed", "--json", "--full-links")
    warm_env = {**os.environ, "DOCIR_WORKER": "1"}
    pid = start_worker(org.reader, env=warm_env)
    try:
        before = docir(org.reader, *args, env=warm_env)
        publish(cli, org.url, billing, "acme/billing")
        after = docir(org.reader, *args, env=warm_env)
    finally:
        docir(org.reader, "worker", "stop", env=warm_env, timeout=60)
        if paths.pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert before.stderr == after.stderr == ""
    assert "acme/billing" not in {row.get("repo") for row in json.loads(before.stdout)["results"]}
    assert (invoices, "acme/billing") in [(row["id"], row.get("repo")) for row in json.loads(after.stdout)["results"]]
    assert after.stdout == docir(org.reader, *args).stdout  # and as a cold command reads it


def test_the_full_text_lists_score_what_a_local_index_scores(org: Org, monkeypatch: pytest.MonkeyPatch) -> None:
    """A published repository's sections and word-pairs lists are the local index's own, number for
    number: the same FTS5 tokens (org/lexemes.py) and FTS5's bm25 computed in SQL (adr-8a976b997594)."""
    from docir.org import ranking_sql
    from docir.org.address import parse
    from docir.org.peer import OrgPeer
    from docir.services.indexing.session import open_session
    from docir.services.retrieval import lexical
    from docir.services.retrieval.visibility import Visibility

    task = "the signing key rotates daily; failed jobs retry with backoff"
    peer = OrgPeer.open(parse(org.url, committed=False, repos=("acme/platform",)), settings())
    session = open_session(org.platform, caller())
    try:
        local = lexical.rank_documents(session, task, Visibility.from_schema(session.schema))
        ids = {rowid: row.id for rowid, row in session.catalog.docs.rows_by_rowid(c.rowid for c in local).items()}
        sections = ranking_sql.lexical_sections(peer, peer.names, task, include_inactive=False, limit=60)
        pairs = ranking_sql.lexical_pairs(peer, peer.names, task, include_inactive=False, limit=60)
        # A big store scores the sections of the documents the whole-document bm25 puts first: with
        # every document inside the gate, the same list.
        monkeypatch.setattr(ranking_sql, "GATE_FROM_SECTIONS", 0)
        gated = ranking_sql.lexical_sections(peer, peer.names, task, include_inactive=False, limit=60)
        big_pairs = ranking_sql.lexical_pairs(peer, peer.names, task, include_inactive=False, limit=60)
    finally:
        session.close()
        peer.close()
    by_section = sorted((c for c in local if c.section), key=lambda c: c.section.rank)  # type: ignore[union-attr]
    by_near = sorted((c for c in local if c.near), key=lambda c: c.near.rank)  # type: ignore[union-attr]
    assert len(by_section) == 2 and len(by_near) == 2  # both documents, each with a pair close together
    assert [(row.id, row.coverage) for row in sections] == [(ids[c.rowid], c.coverage) for c in by_section]
    assert [row.raw for row in sections] == pytest.approx([c.section.raw for c in by_section])  # type: ignore[union-attr]
    assert gated == sections and big_pairs == pairs
    assert [row.id for row in pairs] == [ids[c.rowid] for c in by_near]
    assert [row.raw for row in pairs] == pytest.approx([c.near.raw for c in by_near])  # type: ignore[union-attr]


def test_a_reader_of_the_whole_store_names_no_repository_and_reads_the_same_rows(
        org: Org, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader of every repository sends no list of them (OrgPeer.scope: at thousands of repositories
    the list cost each statement more than its reading); its lists are the rows the full list reads, and
    a reader of one repository still reads that one alone."""
    from docir.org import ranking_sql
    from docir.org.address import parse
    from docir.org.peer import OrgPeer

    task = "signing session tokens with rotating keys and retrying failed jobs"
    vector = [0.05] * ranking_sql.EXAMPLE_DIMENSION

    def lists(peer: OrgPeer) -> list[list[Any]]:
        names = peer.names
        return [ranking_sql.lexical_sections(peer, names, task, include_inactive=False, limit=60),
                ranking_sql.lexical_pairs(peer, names, task, include_inactive=False, limit=60),
                ranking_sql.nearest(peer, names, vector, include_inactive=False, limit=60),
                sorted(ranking_sql.background(peer, names, vector).items()),
                peer.listings(names, where="TRUE", params={}, limit=None, include_inactive=False),
                peer.documents([org.ids["signing"], org.ids["hsm"]]),
                peer.successors(names, [org.ids["signing"]], ["supersedes"])]

    everyone = OrgPeer.open(parse(org.url, committed=False), settings())
    one = OrgPeer.open(parse(org.url, committed=False, repos=("acme/platform",)), settings())
    try:
        assert everyone.scope(everyone.names) is None
        assert one.scope(one.names) == everyone.scope(one.names) == ["acme/platform"]
        unnamed, mine = lists(everyone), lists(one)
        monkeypatch.setattr(OrgPeer, "scope", lambda self, repos: list(repos))
        named = lists(everyone)
    finally:
        everyone.close()
        one.close()
    assert unnamed == named
    assert all(unnamed) and {row.repo for row in unnamed[4]} == {"acme/platform", "acme/service"}
    assert [edge.repo for edge in unnamed[6]] == ["acme/service"] and mine[6] == []
    assert {row.repo for rows in (mine[0], mine[1], mine[2], mine[4]) for row in rows} == {"acme/platform"}


def test_a_second_reader_reads_the_first_readers_snapshot(cli: Any, org: Org, tmp_path: Path) -> None:
    """OrgPeer.beside reads the store as its peer's transaction does: a publish that commits after the
    peer began is seen by neither, even by a reader opened after it."""
    from docir.org.address import parse
    from docir.org.peer import OrgPeer

    peer = OrgPeer.open(parse(org.url, committed=False), settings())
    try:
        count = "SELECT count(*) FROM docir.repos"
        before = peer.run(lambda c: c.execute(count).fetchall())
        later = tmp_path / "later"
        assert cli("init", "--root", str(later)).code == 0
        add_doc(cli, later, "decision", "Published after the reader began", "A later repository.")
        publish(cli, org.url, later, "acme/later")
        other = peer.beside()
        assert other is not None and other.conn is not peer.conn
        try:
            assert other.run(lambda c: c.execute(count).fetchall()) == before == [(2,)]
            assert other.known is peer.known  # what one read, the other need not read again
        finally:
            other.close()
        assert other.conn.closed
    finally:
        peer.close()
    fresh = OrgPeer.open(parse(org.url, committed=False), settings())
    try:
        assert fresh.run(lambda c: c.execute(count).fetchall()) == [(3,)]
    finally:
        fresh.close()


def test_a_big_store_reads_its_pairs_beside_its_other_lists_and_answers_the_same(
        cli: Any, org: Org, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past GATE_FROM_SECTIONS a form's pairs list is read on a second connection while the first reads
    the others (services/retrieval/org_ranking.py): the same answer as one connection's, the second
    connection closed after the command."""
    from docir.org import ranking_sql
    from docir.org.peer import OrgPeer

    monkeypatch.setattr(ranking_sql, "GATE_FROM_SECTIONS", 0)
    opened: list[OrgPeer] = []
    real = OrgPeer.beside

    def spied(self: OrgPeer) -> OrgPeer | None:
        other = real(self)
        opened.append(other)  # type: ignore[arg-type]
        return other

    monkeypatch.setattr(OrgPeer, "beside", spied)
    args = ("context", "signing session tokens with rotating keys", "--sketch",
            "A decision on rotating the HMAC key that signs session tokens, and its successor",
            "--root", str(org.reader), "--explain", "--json")
    beside = cli(*args)
    assert beside.code == 0, beside.err
    assert len(opened) == 1 and opened[0] is not None and opened[0].conn.closed
    monkeypatch.setattr(OrgPeer, "beside", lambda self: None)
    alone = cli(*args)
    assert alone.code == 0 and alone.out == beside.out
    assert any(row.get("repo") == "acme/platform" for row in rows(beside))


def test_a_repository_published_by_an_older_docir_is_named_and_found_by_meaning(cli: Any, org: Org) -> None:
    """Rows of an older row format have no words until their repository publishes again (tables.py,
    migration 2): one warning names it, and its documents are still found by their vectors."""
    import psycopg

    with psycopg.connect(org.url, autocommit=True) as conn:
        conn.execute("UPDATE docir.repos SET row_format = 1 WHERE name = 'acme/platform'")
        # What an older docir wrote has another row format: every fingerprint differs from this one's.
        conn.execute("UPDATE docir.documents SET lex = NULL, fingerprint = 'older' WHERE repo = 'acme/platform'")
        conn.execute("UPDATE docir.sections SET lex = NULL WHERE repo = 'acme/platform'")
    result = cli("context", "how are session tokens signed with rotating keys", "--root", str(org.reader), "--json")
    found = rows(result)
    assert "acme/platform published with an older docir: found by meaning alone" in result.err
    assert org.ids["signing"] in [row["id"] for row in found]
    publish(cli, org.url, org.platform, "acme/platform")
    again = cli("context", "how are session tokens signed with rotating keys", "--root", str(org.reader))
    assert again.code == 0 and "older docir" not in again.err


def test_published_candidates_lend_to_the_decision_they_build_on(cli: Any, org: Org) -> None:
    """Lending as locally (adr-4716947e3ea9): documents of one repository that depend on a decision of
    another lend it part of their score, along links whose kind builds under the linking repository's
    schema; a successor link lends nothing."""
    foundation = add_doc(cli, org.platform, "decision", "Message bus topology",
                         "Topics are partitioned per tenant and replicated three ways.", "--wait-embeddings")
    followers = [add_doc(cli, org.service, "decision", f"Webhook retries on the message bus, part {n}",
                         "Webhook deliveries are retried with exponential backoff through the message bus.",
                         "--body", "## Retries\n\nWebhook deliveries retry with exponential backoff.\n",
                         "--wait-embeddings") for n in (1, 2, 3)]
    for n, follower in enumerate(followers):
        path = next(p for p in (org.service / "docs").rglob("*.md") if follower in p.read_text())
        kind = "supersedes" if n == 2 else "depends-on"  # a successor edge: no loan
        path.write_text(path.read_text().replace("owner:", f"related:\n  - {kind}: {foundation}\nowner:", 1))
    publish(cli, org.url, org.platform, "acme/platform")
    publish(cli, org.url, org.service, "acme/service")
    found = rows(cli("context", "webhook retries with exponential backoff on the message bus", "--root",
                     str(org.reader), "--explain", "--no-expand", "--limit", "10", "--json"))
    base = next(row for row in found if row["id"] == foundation)
    assert base["explain"]["contributions"]["lent"] > 0
    assert sorted(base["explain"]["rankings"]["lent_by"]) == sorted(followers[:2])
    assert all("lent_by" not in row["explain"]["rankings"] for row in found if row["id"] != foundation)
