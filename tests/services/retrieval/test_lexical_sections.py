"""The lexical side ranks heading sections one by one, and an old index gains them without re-embedding."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from docir.index import migrations
from docir.index.fts import match_expression
from docir.index.records import Hit
from docir.services.indexing.session import open_session
from docir.services.retrieval import lexical, local_ranking
from docir.services.retrieval.visibility import Visibility
from docir.services.vectors.query_source import NoModel
from tests.caller import caller, settings
from tests.conftest import FIXTURES, UNDO_M008, as_written_at

LONG_GUIDE = "guide-5e5510000013"  # nine sections; the weekend rota is the last of them
NO_MODEL = NoModel("not needed here")
BROAD_TASK = "weekend roster, checkout fallback, vault credentials and the job scheduler"  # 8 documents match


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    shutil.copytree(FIXTURES / "stores" / "semantic", root)
    return root


def test_a_long_documents_last_section_wins_lexically_and_is_the_matched_section(tmp_path: Path) -> None:
    session = open_session(_store(tmp_path), caller())
    result = local_ranking.context(session, ["weekend roster swaps when the primary does not acknowledge"], NO_MODEL,
                             limit=3, expand=False, explain=True, mode="lexical")
    top = result.results[0]
    assert top["id"] == LONG_GUIDE
    assert top["matched_section"] == "Weekend paging rotation"  # from the lexical side: there are no vectors
    assert top["matched_section_size"]["tokens"] < top["size"]["tokens"] // 5
    sections = top["explain"]["rankings"]["sections"]
    assert sections["rank"] == 1 and sections["bm25"] > 0 and sections["z"] > 0
    assert sections["section"] == "Weekend paging rotation"
    assert top["explain"]["contributions"]["vector"] == 0.0
    session.close()


def test_search_finds_a_document_by_words_only_its_description_and_tags_have(tmp_path: Path) -> None:
    root = _store(tmp_path)
    (root / "docs" / "described.md").write_text(
        "---\nid: guide-00000000aa03\ntype: guide\ntitle: Rota notes\n"
        "description: Who answers the pager during the zanzibar offsite.\ntags: [quokka]\n"
        "status: current\nowner: '@t'\n---\n\n## Notes\n\nNothing here names the trip.\n\n## More\n\nStill not.\n")
    session = open_session(root, caller())
    visibility = Visibility.from_schema(session.schema)
    for word in ("zanzibar", "quokka"):
        (found,) = lexical.rank_documents(session, word, visibility)
        assert session.catalog.docs.listings_by_rowid([found.rowid])[found.rowid].id == "guide-00000000aa03"
    session.close()


def test_near_ranking_prefers_the_task_words_standing_together(tmp_path: Path) -> None:
    root = _store(tmp_path)
    together = root / "docs" / "together.md"
    apart = root / "docs" / "apart.md"
    front = "---\nid: {id}\ntype: guide\ntitle: {title}\ndescription: A guide about something else entirely.\n" \
            "status: current\nowner: '@t'\n---\n\n"
    together.write_text(front.format(id="guide-00000000aa01", title="Notes one")
                        + "## Notes\n\nThe priority fee goes to the proposer. Other words fill the rest.\n")
    apart.write_text(front.format(id="guide-00000000aa02", title="Notes two")
                     + "## Notes\n\nThe fee is set here. " + "filler " * 40 + "Priority is another matter.\n")
    session = open_session(root, caller())
    found = lexical.rank_documents(session, "priority fee", Visibility.from_schema(session.schema))
    ids = [session.catalog.docs.listings_by_rowid([c.rowid])[c.rowid].id for c in found]
    assert ids.index("guide-00000000aa01") < ids.index("guide-00000000aa02")
    near = {i: c.near for i, c in zip(ids, found, strict=True)}
    assert near["guide-00000000aa01"] is not None and near["guide-00000000aa02"] is None
    session.close()


def test_an_index_from_before_sections_gains_them_on_the_next_command_without_new_vectors(tmp_path: Path) -> None:
    from docir.services.vectors import embedding
    from tests.fakes import CountingEmbedder

    root = _store(tmp_path)
    session = open_session(root, caller())
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake, settings())
    documents = session.catalog.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    session.close()
    # What an index written before sections existed holds; dropping `sections` takes migration 8's
    # column and index on it along, so only its other two columns are undone by hand.
    as_written_at(root / ".docir" / "index.db", 4, "DROP TABLE sections_fts", "DROP TABLE sections",
                  "ALTER TABLE documents DROP COLUMN shown", *UNDO_M008[2:])

    session = open_session(root, caller(), refresh=False)
    assert session.refresh().updated == documents
    assert session.catalog.conn.execute("SELECT count(DISTINCT doc) FROM sections").fetchone()[0] == documents
    assert session.catalog.vectors.waiting(fake.model_id)[0] == 0  # text unchanged: no document vector is due
    again = CountingEmbedder()
    embedding.drain(session.catalog, again, settings())  # sections are planned again, every vector reused by its hash
    assert again.texts == [] and session.catalog.vectors.queue_counts(fake.model_id)[0] == 0
    session.close()


def test_sections_are_scored_only_in_the_documents_whole_document_bm25_ranks_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = open_session(_store(tmp_path), caller())
    visibility = Visibility.from_schema(session.schema)
    task = BROAD_TASK
    search = session.catalog.search
    whole = [h.rowid for h in search.lexical_hits(match_expression(task) or "", -1)]
    assert len(whole) > 2
    monkeypatch.setattr(lexical, "GATE_FROM_SECTIONS", 0)  # this small index is gated as a big one would be
    # the whole-document ranking, as the gate sees it: only the two documents it ranked last
    monkeypatch.setattr(search, "lexical_hits", lambda match, limit=-1: [Hit(r, -1.0) for r in whole[-2:]])
    gated = lexical.rank_documents(session, task, visibility)
    assert {c.rowid for c in gated if c.section is not None} == set(whole[-2:])
    session.close()


def test_a_section_query_among_some_documents_finds_sections_of_those_only(tmp_path: Path) -> None:
    session = open_session(_store(tmp_path), caller())
    search = session.catalog.search
    match = match_expression(BROAD_TASK) or ""
    everywhere = {h.doc for h in search.best_sections(match, 1000)}
    assert len(everywhere) > 2
    one = sorted(everywhere)[1]
    assert {h.doc for h in search.best_sections(match, 1000, [one])} == {one}
    assert search.best_sections(match, 1000, []) == []
    session.close()


def test_the_section_query_among_some_documents_scans_the_match_once(tmp_path: Path) -> None:
    """The kept documents' sections reach FTS5 as no constraint of its own: given a rowid IN, FTS5 would run the
    MATCH once per rowid."""
    session = open_session(_store(tmp_path), caller())
    conn = session.catalog.conn
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        found = session.catalog.search.best_sections(match_expression(BROAD_TASK) or "", 1000, [1, 2, 3])
    finally:
        conn.set_trace_callback(None)
    (sql,) = [s for s in statements if "sections_fts MATCH" in s]
    plan = [str(row[3]) for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    session.close()
    assert found and {h.doc for h in found} <= {1, 2, 3}
    scans = [step for step in plan if "sections_fts" in step]
    assert scans == ["SCAN sections_fts VIRTUAL TABLE INDEX 0:M5"], plan  # the MATCH alone: no "=" (a rowid) before M


def test_sections_among_some_documents_score_and_order_as_a_match_naming_those_documents_would(
        tmp_path: Path) -> None:
    session = open_session(_store(tmp_path), caller())
    search = session.catalog.search
    rowids = sorted(int(r[0]) for r in session.catalog.conn.execute("SELECT rowid FROM documents"))

    def named_in_the_match(match: str, limit: int, among: list[int]) -> list[tuple[int, tuple[str, ...], float]]:
        # The documents ORed into the MATCH as `doc` phrases of weight 0: what the kept rowids replace.
        named = " OR ".join(f'"{rowid}"' for rowid in among)
        rows = session.catalog.conn.execute(
            "SELECT s.doc, s.path, min(f.score) AS best FROM (SELECT rowid, bm25(sections_fts, 1, 1, 1, 1, 0) AS score"
            " FROM sections_fts WHERE sections_fts MATCH ? ORDER BY score LIMIT ?) f JOIN sections s"
            " ON s.rowid = f.rowid GROUP BY s.doc ORDER BY best, s.doc",
            (f"{{title about heading body}} : ({match}) AND doc : ({named})", limit))
        return [(int(r[0]), tuple(json.loads(r[1])), float(r[2])) for r in rows]

    compared = 0
    for task in (BROAD_TASK, "weekend roster swaps when the primary does not acknowledge", "vault credentials"):
        match = match_expression(task) or ""
        for among in (rowids, rowids[::2], rowids[1:4]):
            for limit in (1, 3, 1000):
                kept = [(h.doc, h.path, h.bm25) for h in search.best_sections(match, limit, among)]
                assert kept == named_in_the_match(match, limit, among)
                compared += bool(kept)
    assert compared > 10
    session.close()


def test_a_number_in_the_task_is_never_matched_against_a_sections_document_rowid(tmp_path: Path) -> None:
    session = open_session(_store(tmp_path), caller())
    rowids = [int(r[0]) for r in session.catalog.conn.execute("SELECT rowid FROM documents")]
    hits = session.catalog.search.best_sections(" OR ".join(f'"{r}"' for r in rowids), 100, rowids)
    # Every section's owner column holds one of these numbers; no section's text does.
    assert hits == []
    session.close()


def test_an_index_from_before_the_owner_column_is_migrated_in_place_without_reading_the_files(tmp_path: Path) -> None:
    root = _store(tmp_path)
    session = open_session(root, caller())
    task = "weekend roster swaps when the primary does not acknowledge"
    visibility = Visibility.from_schema(session.schema)
    before = [(c.rowid, c.best_section) for c in lexical.rank_documents(session, task, visibility)]
    session.close()
    conn = sqlite3.connect(root / ".docir" / "index.db")
    conn.isolation_level = None
    rows = conn.execute("SELECT f.rowid, f.title, f.about, f.heading, f.body FROM sections_fts f").fetchall()
    conn.execute("DROP TABLE sections_fts")  # the table as migration 5 made it
    conn.execute("CREATE VIRTUAL TABLE sections_fts USING fts5(title, about, heading, body,"
                 " tokenize = \"porter unicode61 remove_diacritics 2 tokenchars '-_'\")")
    conn.executemany("INSERT INTO sections_fts (rowid, title, about, heading, body) VALUES (?, ?, ?, ?, ?)", rows)
    # Migration 6 alone: the later ones re-read the files for reasons of their own.
    conn.execute("BEGIN")
    migrations.m006_section_owner_column(conn)
    conn.execute("COMMIT")
    conn.close()

    session = open_session(root, caller(), refresh=False)
    assert session.refresh().updated == 0  # no file was read again
    after = [(c.rowid, c.best_section) for c in lexical.rank_documents(session, task, visibility)]
    assert after == before and after
    session.close()
