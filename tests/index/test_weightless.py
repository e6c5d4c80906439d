"""Words in half the documents or more weigh nothing in bm25, so the gate and NEAR leave them out."""

from __future__ import annotations

from pathlib import Path

import pytest

from docir.index.db import open_index_readonly
from docir.index.fts import match_expression, near_expression
from docir.index.search import LexicalSearch
from docir.services.indexing.session import open_session
from docir.services.retrieval import lexical
from docir.services.retrieval.visibility import Visibility
from tests.caller import caller

# Six guides: every one says "retrying", three of six "gateway" (exactly half), two "webhook".
BODIES = [
    "Retrying the gateway call. The webhook webhook webhook fires.",
    "Retrying the gateway call. A webhook fires once.",
    "Retrying the gateway call.",
    "Retrying the upload.",
    "Retrying the download.",
    "Retrying the export.",
]


def _store(store: Path) -> Path:
    folder = store / "docs" / "guides"
    folder.mkdir(parents=True, exist_ok=True)
    for number, body in enumerate(BODIES):
        doc_id = f"guide-00000000{number:04x}"
        (folder / f"{doc_id}.md").write_text(
            f"---\nid: {doc_id}\ntype: guide\ntitle: Runbook {number}\ndescription: What to do, case {number}.\n"
            f"status: current\nowner: '@ops'\n---\n\n## Steps\n\n{body}\n", encoding="utf-8")
    return store


def test_a_word_in_at_least_half_the_documents_is_weightless_stemmed_as_the_index_is(store: Path) -> None:
    session = open_session(_store(store), caller())
    try:
        found = session.catalog.search.weightless(["retries", "gateway", "webhook", "zebra", "runbook"])
    finally:
        session.close()
    # "retries" and "retrying" share their stem; "runbook" is in every title; "gateway" in three of six.
    assert found == {"retries", "gateway", "runbook"}


def test_leaving_weightless_words_out_changes_no_order_among_the_documents_that_match_another(store: Path) -> None:
    session = open_session(_store(store), caller())
    try:
        search = session.catalog.search
        task = "retries through the gateway when the webhook fires"
        weightless = search.weightless(["retries", "gateway", "webhook", "fires"])
        assert weightless == {"retries", "gateway"}
        every = [hit.rowid for hit in search.lexical_hits(match_expression(task) or "")]
        weighed = [hit.rowid for hit in search.lexical_hits(match_expression(task, weightless) or "")]
    finally:
        session.close()
    assert len(every) == 6 and len(weighed) == 2
    assert every[:2] == weighed


def test_a_read_only_peer_connection_answers_too(store: Path) -> None:
    root = _store(store)
    open_session(root, caller()).close()
    conn = open_index_readonly(root / ".docir" / "index.db")
    try:
        assert LexicalSearch(conn).weightless(["gateway", "webhook"]) == {"gateway"}
    finally:
        conn.close()


def test_pairs_of_two_weightless_words_are_left_out_unless_every_pair_is() -> None:
    task = "retry gateway webhook timeout"
    assert near_expression(task, weightless={"retry", "gateway"}) == (
        'NEAR("gateway" "webhook", 10) OR NEAR("webhook" "timeout", 10)')
    assert near_expression("retry gateway", weightless={"retry", "gateway"}) == 'NEAR("retry" "gateway", 10)'
    assert match_expression(task, weightless={"retry", "gateway"}) == '"webhook" OR "timeout"'
    assert match_expression("retry gateway", weightless={"retry", "gateway"}) == '"retry" OR "gateway"'


def test_the_lexical_ranking_is_the_same_with_weightless_words_left_out_or_not(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Here the rare words match two documents, fewer than a ranking's list: the whole queries run."""
    monkeypatch.setattr(lexical, "GATE_FROM_SECTIONS", 0)  # the big-index path, where words are weighed
    session = open_session(_store(store), caller())
    visibility = Visibility.from_schema(session.schema)
    task = "retrying the gateway call when the webhook fires"
    try:
        lean = lexical.rank_documents(session, task, visibility)
        monkeypatch.setattr(LexicalSearch, "weightless", lambda self, words, known=None: frozenset())
        whole = lexical.rank_documents(session, task, visibility)
    finally:
        session.close()
    assert len(lean) == 6
    assert [(c.rowid, c.near, c.section, c.coverage) for c in lean] == [
        (c.rowid, c.near, c.section, c.coverage) for c in whole]
