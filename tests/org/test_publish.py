"""docir publish against a real PostgreSQL with pgvector: what lands, what is rewritten, what is refused."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from docir.org.tables import SCHEMA_VERSION
from tests.caller import settings
from tests.cli.helpers import A0, A1, B1, C1, C2, E1, PATHS, one_line
from tests.conftest import REPO
from tests.org.helpers import NAME, SAMPLE_DOCUMENTS, as_user, counts, git, sample_repo, sql, versions


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return sample_repo(tmp_path / "repo")


def publish(cli: Any, root: Path, url: str, *args: str) -> dict[str, Any]:
    result = cli("publish", url, "--root", str(root), "--json", *args)
    assert result.code == 0, result.err
    payload: dict[str, Any] = result.json()
    return payload


def refused(cli: Any, root: Path, url: str, *args: str) -> str:
    result = cli("publish", url, "--root", str(root), *args)
    assert result.code == 2, (result.out, result.err)
    assert result.out == ""
    return one_line(result.err, "error")


def test_a_first_publish_creates_the_tables_and_holds_every_document(cli: Any, repo: Path, pg_url: str) -> None:
    report = publish(cli, repo, pg_url)
    assert (report["repo"], report["tables"], report["added"], report["written"]) == (NAME, "created",
                                                                                      SAMPLE_DOCUMENTS, True)
    assert counts(pg_url) == {"repos": 1, "documents": SAMPLE_DOCUMENTS, "sections": 12, "links": 4}
    assert sql(pg_url, "SELECT value FROM docir.meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    rows = {r[0]: r[1:] for r in sql(pg_url, "SELECT id, path, status, active, archived FROM docir.documents")}
    assert {i: r[0] for i, r in rows.items()} == PATHS
    # Closed statuses are inactive under the sample's own schema; the archive says archived.
    assert {i for i, r in rows.items() if not r[2]} == {A0, C1}
    assert {i for i, r in rows.items() if r[3]} == {E1}
    # The body is what `docir get` returns.
    got = cli("get", A1, "--root", str(repo), "--json").json()["documents"][0]
    body, meta = sql(pg_url, "SELECT body, meta FROM docir.documents WHERE id = %s", (A1,))[0]
    assert (body, meta) == (got["body"], got["frontmatter"])
    assert sql(pg_url, "SELECT kind, target FROM docir.links WHERE doc_id = %s ORDER BY kind", (A1,)) == [
        ("relates-to", B1), ("supersedes", A0)]
    sections = sql(pg_url, "SELECT heading, start_line, end_line FROM docir.sections WHERE doc_id = %s ORDER BY ord",
                   (A1,))
    lines = body.split("\n")
    assert [s[0] for s in sections] == [["Context"], ["Decision"], ["Consequences"]]
    assert [lines[s[1] - 1] for s in sections] == ["## Context", "## Decision", "## Consequences"]
    # The words are FTS5's tokens (porter stems), as the local index has them (org/lexemes.py).
    assert sql(pg_url, "SELECT count(*) FROM docir.documents WHERE lex @@ 'session'::tsquery")[0][0] > 0
    repos = sql(pg_url, "SELECT name, remote, documents, schema->'types' ? 'decision' FROM docir.repos")
    assert repos == [(NAME, NAME, SAMPLE_DOCUMENTS, True)]


def test_a_second_publish_writes_nothing_and_says_so(cli: Any, repo: Path, pg_url: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    publish(cli, repo, pg_url)
    before = versions(pg_url)
    repo_row = sql(pg_url, "SELECT xmin::text, published_at FROM docir.repos")
    report = publish(cli, repo, pg_url)
    assert (report["written"], report["added"], report["changed"], report["removed"], report["unchanged"]) == (
        False, 0, 0, 0, SAMPLE_DOCUMENTS)
    assert versions(pg_url) == before
    assert sql(pg_url, "SELECT xmin::text, published_at FROM docir.repos") == repo_row
    monkeypatch.setattr("docir.invocation.Invocation.wants_json", lambda call: call.json)  # as if on a terminal
    terminal = cli("publish", pg_url, "--root", str(repo))
    assert "result: up to date: nothing written" in terminal.out


def test_a_changed_document_is_the_only_row_written_again(cli: Any, repo: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url)
    before = versions(pg_url)
    path = repo / PATHS[B1]
    path.write_text(path.read_text() + "\nA new paragraph about token expiry.\n")
    report = publish(cli, repo, pg_url)
    assert (report["added"], report["changed"], report["removed"]) == (0, 1, 0)
    after = versions(pg_url)
    assert {i for i in before if after[i] != before[i]} == {B1}
    assert sql(pg_url, "SELECT count(*) FROM docir.documents WHERE id = %s AND body LIKE %s",
               (B1, "%token expiry%"))[0][0] == 1


def test_a_removed_document_is_deleted_with_its_sections_and_links(cli: Any, repo: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url)
    (repo / PATHS[C2]).unlink()
    report = publish(cli, repo, pg_url)
    assert (report["added"], report["changed"], report["removed"]) == (0, 0, 1)
    assert C2 not in versions(pg_url)
    assert sql(pg_url, "SELECT count(*) FROM docir.sections WHERE doc_id = %s", (C2,)) == [(0,)]
    assert sql(pg_url, "SELECT count(*) FROM docir.links WHERE doc_id = %s", (C2,)) == [(0,)]
    assert sql(pg_url, "SELECT documents FROM docir.repos") == [(SAMPLE_DOCUMENTS - 1,)]


def test_a_status_closed_by_a_schema_edit_rewrites_only_its_activity(cli: Any, repo: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url)
    schema = repo / "docs-schema.yaml"
    text = schema.read_text()
    assert "inactive_statuses: [resolved" in text or "inactive_statuses" in text
    # 'open' issues closed too: C2 turns inactive though its file did not change.
    schema.write_text(text.replace("inactive_statuses: [resolved", "inactive_statuses: [open, resolved", 1))
    report = publish(cli, repo, pg_url)
    assert report["changed"] == 1
    assert sql(pg_url, "SELECT active FROM docir.documents WHERE id = %s", (C2,)) == [(False,)]


_RECOUNT = """
    SELECT lexeme, sum(d)::integer, sum(s)::integer FROM (
        SELECT unnest(tsvector_to_array(lex)) AS lexeme, 1 AS d, 0 AS s FROM docir.documents WHERE lex IS NOT NULL
        UNION ALL
        SELECT unnest(tsvector_to_array(lex)), 0, 1 FROM docir.sections WHERE lex IS NOT NULL) x
    GROUP BY lexeme ORDER BY lexeme"""


def test_the_word_counts_follow_every_change_and_bm25s_totals_too(cli: Any, repo: Path, pg_url: str) -> None:
    """docir.terms and the repository's totals, kept up to date a publish at a time, equal a recount of
    the rows (ranking_sql's idf and average lengths read them instead of the rows)."""
    def kept() -> list[Any]:
        return sql(pg_url, "SELECT lexeme, documents, sections FROM docir.terms ORDER BY lexeme")

    def totals() -> list[Any]:
        return sql(pg_url, "SELECT lex_documents, lex_document_tokens, lex_sections, lex_section_tokens"
                           " FROM docir.repos")

    recount_totals = ("SELECT (SELECT count(lex) FROM docir.documents), (SELECT sum(lex_tokens) FROM docir.documents),"
                      " (SELECT count(lex) FROM docir.sections), (SELECT sum(lex_tokens) FROM docir.sections)")
    publish(cli, repo, pg_url)
    first = kept()
    assert first == sql(pg_url, _RECOUNT) and ("zebracorn", 1, 1) not in first
    assert totals() == sql(pg_url, recount_totals)
    path = repo / PATHS[B1]
    path.write_text(path.read_text() + "\nA zebracorn paragraph.\n")
    (repo / PATHS[C2]).unlink()
    publish(cli, repo, pg_url)
    assert ("zebracorn", 1, 1) in kept() and kept() == sql(pg_url, _RECOUNT) and kept() != first
    assert totals() == sql(pg_url, recount_totals)
    path.write_text(path.read_text().replace("zebracorn", "plain"))
    publish(cli, repo, pg_url)
    assert "zebracorn" not in [row[0] for row in kept()] and kept() == sql(pg_url, _RECOUNT)


def test_a_dry_run_lists_what_would_change_and_writes_nothing(cli: Any, repo: Path, pg_url: str) -> None:
    report = publish(cli, repo, pg_url, "--dry-run")
    assert (report["dry_run"], report["written"], report["tables"]) == (True, False, "would be created")
    assert len(report["ids"]["added"]) == SAMPLE_DOCUMENTS
    assert sql(pg_url, "SELECT to_regclass('docir.meta') IS NULL") == [(True,)]

    publish(cli, repo, pg_url)
    before = versions(pg_url)
    (repo / PATHS[C2]).unlink()
    path = repo / PATHS[B1]
    path.write_text(path.read_text() + "\nMore.\n")
    report = publish(cli, repo, pg_url, "--dry-run")
    assert report["ids"] == {"added": [], "changed": [B1], "removed": [C2]}
    assert versions(pg_url) == before


def test_remove_takes_out_this_repository_and_only_it(cli: Any, repo: Path, tmp_path: Path, pg_url: str) -> None:
    other = sample_repo(tmp_path / "other", "git@github.com:acme/other.git")
    publish(cli, repo, pg_url)
    publish(cli, other, pg_url)
    dry = publish(cli, repo, pg_url, "--remove", "--dry-run")
    assert (dry["removed_repository"], dry["removed"]) == (True, SAMPLE_DOCUMENTS)
    assert counts(pg_url)["documents"] == 2 * SAMPLE_DOCUMENTS
    report = publish(cli, repo, pg_url, "--remove")
    assert (report["removed_repository"], report["removed"]) == (True, SAMPLE_DOCUMENTS)
    assert sql(pg_url, "SELECT name FROM docir.repos") == [("github.com/acme/other",)]
    assert sql(pg_url, "SELECT DISTINCT repo FROM docir.documents") == [("github.com/acme/other",)]
    again = publish(cli, repo, pg_url, "--remove")
    assert again["removed_repository"] is False


@pytest.mark.parametrize("remote", ["https://github.com/acme/sample.git", "git@github.com:acme/sample.git",
                                    "ssh://git@github.com/acme/sample", "https://ci-token:s3cret@GitHub.com/acme/sample/"])
def test_every_form_of_the_remote_gives_one_name(cli: Any, tmp_path: Path, pg_url: str, remote: str) -> None:
    root = sample_repo(tmp_path / "clone", remote)
    assert publish(cli, root, pg_url, "--dry-run")["repo"] == NAME


def test_two_clones_publish_to_the_same_place(cli: Any, repo: Path, tmp_path: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url)
    clone = sample_repo(tmp_path / "clone", "git@github.com:acme/sample.git")
    report = publish(cli, clone, pg_url)
    assert (report["repo"], report["written"]) == (NAME, False)


def test_as_names_the_repository(cli: Any, tmp_path: Path, pg_url: str) -> None:
    root = sample_repo(tmp_path / "bare", remote=None)
    assert "no git remote" in refused(cli, root, pg_url)
    report = publish(cli, root, pg_url, "--as", "team/handbook")
    assert report["repo"] == "team/handbook"
    assert sql(pg_url, "SELECT name, remote FROM docir.repos") == [("team/handbook", "")]


def test_a_name_another_remote_publishes_under_is_refused(cli: Any, repo: Path, tmp_path: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url, "--as", "handbook")
    before = versions(pg_url, "handbook")
    other = sample_repo(tmp_path / "other", "https://github.com/acme/other.git")
    path = other / PATHS[B1]
    path.write_text(path.read_text() + "\nChanged.\n")
    line = refused(cli, other, pg_url, "--as", "handbook")
    assert "already published from github.com/acme/sample" in line
    assert versions(pg_url, "handbook") == before


@pytest.mark.parametrize("url", ["mysql://db.example.com/docs", "sqlite:///tmp/docs.db", "db.example.com/docs"])
def test_a_url_that_is_not_postgresql_is_refused(cli: Any, repo: Path, url: str) -> None:
    message = refused(cli, repo, url)
    assert "must be a PostgreSQL URL" in message and url not in message  # not quoted: it may hold a password


def test_a_password_in_the_url_is_never_repeated(cli: Any, repo: Path) -> None:
    result = cli("publish", "postgresql://ci:hunter2@127.0.0.1:1/docs", "--root", str(repo))
    assert result.code == 2
    assert "hunter2" not in result.err
    assert "cannot connect to 127.0.0.1/docs" in result.err


def test_a_database_without_pgvector_is_refused(cli: Any, repo: Path, pg_server: Any) -> None:
    sql(pg_server.get_uri(), "CREATE DATABASE novector")
    url = pg_server.get_uri("novector")
    line = refused(cli, repo, url)
    assert "has no pgvector extension" in line and "CREATE EXTENSION vector;" in line
    assert sql(url, "SELECT to_regclass('docir.meta') IS NULL") == [(True,)]


def test_tables_newer_than_this_docir_are_refused(cli: Any, repo: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url)
    sql(pg_url, "UPDATE docir.meta SET value = '999' WHERE key = 'schema_version'")
    before = versions(pg_url)
    (repo / PATHS[C2]).unlink()
    line = refused(cli, repo, pg_url)
    assert f"version 999, newer than this docir's {SCHEMA_VERSION}" in line
    assert versions(pg_url) == before


def test_a_read_only_role_cannot_publish(cli: Any, repo: Path, pg_url: str) -> None:
    sql(pg_url, "CREATE ROLE reader LOGIN")
    reader = as_user(pg_url, "reader")
    assert "cannot create or migrate docir's tables" in refused(cli, repo, reader)
    publish(cli, repo, pg_url)
    sql(pg_url, "GRANT USAGE ON SCHEMA docir TO reader; GRANT SELECT ON ALL TABLES IN SCHEMA docir TO reader")
    before = versions(pg_url)
    (repo / PATHS[C2]).unlink()
    line = refused(cli, repo, reader)
    assert "permission denied" in line and "nothing was written" in line
    assert versions(pg_url) == before
    assert sql(reader, "SELECT count(*) FROM docir.documents") == [(SAMPLE_DOCUMENTS,)]


def test_missing_vectors_are_published_without_and_counted(cli: Any, repo: Path, pg_url: str) -> None:
    result = cli("publish", pg_url, "--root", str(repo), "--json")
    assert result.code == 0
    # Seven documents can have vectors (the archived one gets none); none were computed.
    assert result.json()["vectors_missing"] == SAMPLE_DOCUMENTS - 1
    assert "7 of 8 documents are published without all their vectors" in one_line(result.err, "warning")
    assert sql(pg_url, "SELECT count(*) FROM docir.documents WHERE vector IS NOT NULL") == [(0,)]
    assert sql(pg_url, "SELECT model_id FROM docir.repos") == [(None,)]


def test_the_revision_published_is_the_commit(cli: Any, repo: Path, pg_url: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    head = git(repo, "rev-parse", "HEAD").strip()
    assert publish(cli, repo, pg_url)["revision"] == head
    assert sql(pg_url, "SELECT revision FROM docir.repos") == [(head,)]


def test_the_guide_s_roles_let_the_writer_publish_and_the_reader_only_read(cli: Any, repo: Path, pg_url: str) -> None:
    guide = (REPO / "docs" / "guides" / "publish-every-repository-to-the-organisation-store.md").read_text()
    block = re.search(r"```sql\n(.*?)```", guide, re.S)
    assert block is not None
    database = urlsplit(pg_url).path.strip("/")
    sql(pg_url, block.group(1).replace("DATABASE docs", f"DATABASE {database}"))
    writer, reader = as_user(pg_url, "docir_writer"), as_user(pg_url, "docir_reader")
    assert publish(cli, repo, writer)["added"] == SAMPLE_DOCUMENTS
    assert sql(reader, "SELECT count(*) FROM docir.documents") == [(SAMPLE_DOCUMENTS,)]
    (repo / PATHS[C2]).unlink()
    assert "permission denied" in refused(cli, repo, reader)
    assert publish(cli, repo, writer)["removed"] == 1


def test_older_tables_are_migrated_by_a_publish_and_refused_by_a_reader(cli: Any, repo: Path, pg_url: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from docir.org import connect, tables
    from docir.services.publishing import publish as publishing

    publish(cli, repo, pg_url)
    # A later docir, with one more migration.
    monkeypatch.setattr(connect, "MIGRATIONS", (*tables.MIGRATIONS, "ALTER TABLE docir.repos ADD COLUMN team text"))
    now, later = SCHEMA_VERSION, SCHEMA_VERSION + 1
    monkeypatch.setattr(connect, "SCHEMA_VERSION", later)
    monkeypatch.setattr(connect, "OLDEST_READABLE", later)  # a migration that changes what a reader reads
    monkeypatch.setattr(publishing, "SCHEMA_VERSION", later)
    with pytest.raises(connect.OrgError, match=f"version {now}, older than this docir's {later}"):
        connect.open_database(pg_url, settings(), write=False)
    assert publish(cli, repo, pg_url, "--dry-run")["tables"] == f"would be migrated from version {now}"
    assert sql(pg_url, "SELECT value FROM docir.meta") == [(str(now),)]
    report = publish(cli, repo, pg_url)
    assert (report["tables"], report["written"]) == (f"migrated from version {now}", False)
    assert sql(pg_url, "SELECT value FROM docir.meta") == [(str(later),)]
    assert sql(pg_url, "SELECT team FROM docir.repos") == [(None,)]


def test_tables_a_reader_still_reads_are_read_as_they_are_and_migrated_by_the_next_publish(
        cli: Any, repo: Path, pg_url: str) -> None:
    """Version 4 only gave the words' key their counts (tables.OLDEST_READABLE): a reader of this docir
    reads version 3 tables, with the same rows, until a publish migrates them."""
    from docir.org import ranking_sql
    from docir.org.address import parse
    from docir.org.peer import OrgPeer

    def lists() -> list[Any]:
        peer = OrgPeer.open(parse(pg_url, committed=False), settings())
        try:
            task = "the decision on session tokens and their signing keys"
            return [ranking_sql.lexical_sections(peer, peer.names, task, include_inactive=False, limit=60),
                    ranking_sql.lexical_pairs(peer, peer.names, task, include_inactive=False, limit=60)]
        finally:
            peer.close()

    def key() -> str:
        return str(sql(pg_url, "SELECT indexdef FROM pg_indexes WHERE indexname = 'terms_pkey'")[0][0])

    publish(cli, repo, pg_url)
    assert key().endswith("(lexeme, repo) INCLUDE (documents, sections)")
    current = lists()
    # As a docir of version 3 left them.
    sql(pg_url, "ALTER TABLE docir.terms DROP CONSTRAINT terms_pkey, ADD PRIMARY KEY (lexeme, repo)")
    sql(pg_url, "UPDATE docir.meta SET value = '3' WHERE key = 'schema_version'")
    assert lists() == current and current[0]
    assert publish(cli, repo, pg_url)["tables"] == "migrated from version 3"
    assert key().endswith("(lexeme, repo) INCLUDE (documents, sections)")
    assert sql(pg_url, "SELECT value FROM docir.meta") == [(str(SCHEMA_VERSION),)]
    assert lists() == current


def test_without_psycopg_publish_says_what_to_install(cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if it were not installed
    line = refused(cli, repo, "postgresql://db.example.com/docs")
    assert line == "docir: error: the organisation store needs psycopg: pip install 'docir[org]'"


def test_ids_another_repository_publishes_are_named(cli: Any, repo: Path, tmp_path: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url)
    copy = sample_repo(tmp_path / "copy", "https://github.com/acme/copy.git")
    result = cli("publish", pg_url, "--root", str(copy), "--json")
    assert result.code == 0
    warning = f"{SAMPLE_DOCUMENTS} id(s) of github.com/acme/copy are published by another repository too: {A0} ({NAME})"
    assert warning in result.err
    # Both are kept: the primary key is (repository, id), and a reader decides what a copy means.
    assert sql(pg_url, "SELECT count(DISTINCT repo) FROM docir.documents WHERE id = %s", (A0,)) == [(2,)]


def test_a_role_that_may_not_read_docir_s_schema_is_one_line(cli: Any, repo: Path, pg_url: str) -> None:
    publish(cli, repo, pg_url)
    sql(pg_url, "CREATE ROLE stranger LOGIN")
    assert "permission denied for schema docir" in refused(cli, repo, as_user(pg_url, "stranger"))


def test_progress_goes_to_stderr_a_line_a_batch(cli: Any, repo: Path, pg_url: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("docir.services.publishing.publish.BATCH", 3)
    result = cli("publish", pg_url, "--root", str(repo), "--json")
    assert result.code == 0
    lines = [line for line in result.err.splitlines() if "publishing:" in line]
    assert lines == [f"docir: publishing: {n}/8 documents written" for n in (3, 6, 8)]
    assert result.json()["added"] == SAMPLE_DOCUMENTS


def test_a_duplicate_id_publishes_the_first_by_path_and_says_so(cli: Any, repo: Path, pg_url: str) -> None:
    copy = repo / "docs" / "decisions" / "zz-copy.md"
    copy.write_text((repo / PATHS[A1]).read_text())
    result = cli("publish", pg_url, "--root", str(repo), "--json")
    assert result.code == 0
    assert f"duplicate id {A1} in {PATHS[A1]} and docs/decisions/zz-copy.md; publishing {PATHS[A1]}" in result.err
    assert sql(pg_url, "SELECT path FROM docir.documents WHERE id = %s", (A1,)) == [(PATHS[A1],)]


def test_a_huge_body_is_published_whole_and_searched_by_its_beginning(cli: Any, repo: Path, pg_url: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("docir.org.published.SEARCHED_MAX", 200)
    path = repo / PATHS[B1]
    path.write_text(path.read_text() + "\n" + "filler " * 100 + "zebracorn\n")
    result = cli("publish", pg_url, "--root", str(repo), "--json")
    assert result.code == 0
    assert f"{PATHS[B1]}: only its first 200 characters are searched by words" in result.err
    body, found = sql(pg_url, "SELECT body, lex @@ 'zebracorn'::tsquery FROM docir.documents"
                              " WHERE id = %s", (B1,))[0]
    assert body.endswith("zebracorn\n") and found is False
