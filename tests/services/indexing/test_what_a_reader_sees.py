"""HTML comments are not searched, embedded or chunked; a section holding only one is no section;
the file keeps every byte (adr-b3bfbc7a2dfb)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from docir.services.indexing.session import open_session
from docir.services.retrieval import local_ranking
from docir.services.vectors import embedding
from docir.services.vectors.query_source import NoModel
from tests.caller import caller, settings
from tests.conftest import UNDO_M008, as_written_at
from tests.fakes import CountingEmbedder

DOC_ID = "adr-0000000000c1"
FENCE = "```"
TEMPLATED = f"""---
id: {DOC_ID}
type: decision
title: Queue jobs in a table
description: Jobs wait in a SQLite table that the workers poll, so no broker has to run beside the app.
status: accepted
owner: "@team"
---

## Context and Problem Statement

Jobs must survive a restart of the web process.

<!-- This is an optional element. Feel free to remove. -->
## Decision Drivers

<!-- List the forces here: xylophone budget, hiring, the
     deadline. -->

## Decision Outcome

Chosen option: a table that workers poll. <!-- quokka, a note to the author -->

{FENCE}html
<!-- marimba: a comment inside code is code -->
{FENCE}

## Confirmation

<!-- Describe how the implementation will be confirmed, e.g. a review or an ArchUnit test. -->
"""
NO_MODEL = NoModel("not needed here")


def _store(sample_store: Path) -> Path:
    (sample_store / "docs" / "decisions" / "queue-jobs.md").write_text(TEMPLATED, encoding="utf-8")
    return sample_store


def _found(cli, root: Path, text: str) -> list[str]:  # type: ignore[no-untyped-def]
    result = cli("search", text, "--root", str(root), "--json")
    assert result.code == 0, result.err
    return [r["id"] for r in result.json()["results"]]


def test_search_never_matches_a_word_only_in_a_comment_but_does_in_code(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _store(sample_store)
    assert DOC_ID not in _found(cli, root, "xylophone")  # a comment on lines of its own
    assert DOC_ID not in _found(cli, root, "quokka")  # a comment at the end of a line
    assert DOC_ID in _found(cli, root, "marimba")  # inside a fenced block: code, shown as written
    assert DOC_ID in _found(cli, root, "workers poll")


def test_a_section_holding_only_a_comment_never_wins_matched_section(sample_store: Path) -> None:
    session = open_session(_store(sample_store), caller())
    result = local_ranking.context(session, ["how is the implementation confirmed, and what are the decision drivers"],
                             NO_MODEL, limit=10, expand=False, mode="lexical")
    mine = [r for r in result.results if r["id"] == DOC_ID]
    assert all(r["matched_section"] not in ("Confirmation", "Decision Drivers") for r in mine)
    sections = session.catalog.conn.execute(
        "SELECT s.path FROM sections s JOIN documents d ON d.rowid = s.doc WHERE d.id = ?", (DOC_ID,)).fetchall()
    assert [r[0] for r in sections] == ['["Context and Problem Statement"]', '["Decision Outcome"]']
    session.close()


def test_a_section_holding_only_a_comment_makes_no_chunk_and_no_text_embeds_a_comment(sample_store: Path) -> None:
    session = open_session(_store(sample_store), caller())
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake, settings())
    rowid = session.catalog.docs.by_id(DOC_ID)[0][0]
    chunks = session.catalog.vectors.chunk_rows(rowid)
    assert [c.section for c in sorted(chunks.values(), key=lambda c: c.ordinal)] == [
        "Context and Problem Statement", "Decision Outcome"]
    mine = [t for t in fake.texts if "workers poll" in t]
    assert mine and all("xylophone" not in t and "quokka" not in t and "optional element" not in t for t in mine)
    assert any("marimba" in t for t in mine)
    session.close()


def test_the_file_round_trips_byte_for_byte_through_update_and_get(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _store(sample_store)
    path = root / "docs" / "decisions" / "queue-jobs.md"
    result = cli("update", DOC_ID, "--status", "deprecated", "--root", str(root), "--json")
    assert result.code == 0, result.err
    assert path.read_bytes() == TEMPLATED.replace("status: accepted", "status: deprecated").encode("utf-8")
    result = cli("update", DOC_ID, "--status", "accepted", "--root", str(root), "--json")
    assert result.code == 0, result.err
    assert path.read_bytes() == TEMPLATED.encode("utf-8")
    got = cli("get", DOC_ID, "--root", str(root), "--json")
    assert got.code == 0, got.err
    body = got.json()["documents"][0]["body"]
    assert TEMPLATED.endswith(body) and "<!-- List the forces here: xylophone budget" in body


def test_an_index_from_before_drops_what_it_searched_in_comments_on_the_next_command(sample_store: Path) -> None:
    root = _store(sample_store)
    session = open_session(root, caller())
    documents = session.catalog.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    session.close()
    conn = sqlite3.connect(root / ".docir" / "index.db")
    conn.isolation_level = None
    # What an index written before comments were left out holds: the raw body in its FTS rows.
    rowid, body = conn.execute("SELECT rowid, body FROM documents WHERE id = ?", (DOC_ID,)).fetchone()
    conn.execute("UPDATE documents_fts SET body = ? WHERE rowid = ?", (body, rowid))
    conn.close()
    as_written_at(root / ".docir" / "index.db", 6, "ALTER TABLE documents DROP COLUMN shown", *UNDO_M008)

    session = open_session(root, caller(), refresh=False)
    assert session.refresh().updated == documents
    hits = session.catalog.search.lexical_hits('"xylophone"')
    assert hits == []
    session.close()


def test_size_says_how_much_of_a_read_is_comments_and_only_where_there_are_any(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _store(sample_store)
    comments = ["<!-- This is an optional element. Feel free to remove. -->\n",
                "<!-- List the forces here: xylophone budget, hiring, the\n     deadline. -->\n",
                " <!-- quokka, a note to the author -->",
                "<!-- Describe how the implementation will be confirmed, e.g. a review or an ArchUnit test. -->\n"]
    assert all(c in TEMPLATED for c in comments)
    result = cli("search", "workers poll", "--root", str(root), "--json")
    rows = {r["id"]: r for r in result.json()["results"]}
    size = rows[DOC_ID]["size"]
    assert size["bytes"] == len(TEMPLATED.encode())  # still what `get` returns, comments and all
    # What the comments take, their lines included where they stood alone (a reader sees none of it).
    assert size["hidden"] == sum(len(c.encode()) for c in comments)
    assert all("hidden" not in r["size"] for i, r in rows.items() if i != DOC_ID)

    session = open_session(root, caller())
    found = local_ranking.context(session, ["which option was chosen: a table that workers poll"], NO_MODEL, limit=10,
                            expand=False, mode="lexical").results
    session.close()
    mine = next(r for r in found if r["id"] == DOC_ID)
    assert mine["matched_section"] == "Decision Outcome"
    assert mine["matched_section_size"]["hidden"] == len(comments[2].encode())
