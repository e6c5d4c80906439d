"""In a big index, a sketch's common words (a quarter of the documents or more hold them) are left out of its lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docir.index.fts import match_expression, near_expression
from docir.services.indexing.session import open_session
from docir.services.retrieval import lexical
from docir.services.retrieval.visibility import Visibility
from tests.caller import caller
from tests.index.test_weightless import _store

# The six guides of test_weightless: "retrying" in six, "gateway" in three, "webhook" and "fires" in two
# (a third: common), "upload" in one.
SKETCH = "The gateway webhook fires after retrying the upload."


def test_a_word_of_one_term_a_quarter_of_the_documents_hold_is_common_unless_every_word_is(store: Path) -> None:
    session = open_session(_store(store), caller())
    try:
        search = session.catalog.search
        assert search.common(["retries", "gateway", "webhook", "upload", "zebra"]) == {"retries", "gateway", "webhook"}
        assert search.common(["retries", "gateway", "zebra"]) == {"retries", "gateway"}  # zebra has a term
        assert search.common(["retries", "gateway"]) == frozenset()  # every word common: none left out
        words = ["retries", "gateway", "webhook", "upload", "zebra"]  # both from one tokenizing and count
        assert search.common_and_weightless(words) == (search.common(words), search.weightless(words))
        assert search.weightless(words) == {"retries", "gateway"}
    finally:
        session.close()


def test_a_sketch_leaves_its_common_words_out_of_its_lists_in_a_big_index_only(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = open_session(_store(store), caller())
    visibility = Visibility.from_schema(session.schema)
    try:
        small = lexical.LexicalLists(session, SKETCH, visibility, leave_common=True)
        assert small.common == frozenset() and small.match == match_expression(SKETCH)
        monkeypatch.setattr(lexical, "GATE_FROM_SECTIONS", 0)  # this small index is read as a big one
        task = lexical.LexicalLists(session, SKETCH, visibility)
        assert task.common == frozenset() and task.match == match_expression(SKETCH)
        sketch = lexical.LexicalLists(session, SKETCH, visibility, leave_common=True)
        assert sketch.common == {"gateway", "webhook", "fires", "retrying"}
        assert sketch.match == '"upload"' and sketch.terms == ["upload"]
        assert near_expression(SKETCH, weightless=sketch.common) == 'NEAR("retrying" "upload", 10)'
        found = sketch.ranked(session, sketch.sections(session), sketch.pairs(session))
        everything = task.ranked(session, task.sections(session), task.pairs(session))
        ids = session.catalog.docs.listings_by_rowid([c.rowid for c in found])
    finally:
        session.close()
    assert [ids[c.rowid].id for c in found] == ["guide-000000000003"]  # "Retrying the upload."
    assert found[0].section is not None and found[0].near is not None
    assert found[0].coverage == 1.0  # of the words it kept: one
    assert len(everything) == 6 and found[0].rowid in {c.rowid for c in everything}
    assert next(c for c in everything if c.rowid == found[0].rowid).coverage < 1.0


def test_context_reads_a_sketch_leaving_its_common_words_out_and_its_task_whole(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docir.services.retrieval import local_ranking
    from docir.services.retrieval.need import Need
    from docir.services.vectors.query_source import NoModel

    monkeypatch.setattr(lexical, "GATE_FROM_SECTIONS", 0)
    made: list[tuple[str, frozenset[str]]] = []
    lists = lexical.LexicalLists

    class Recorded(lists):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append((self.text, self.common))

    monkeypatch.setattr(lexical, "LexicalLists", Recorded)
    session = open_session(_store(store), caller())
    try:
        local_ranking.context(session, [Need("why did the upload stop", SKETCH)], NoModel("not needed here"), limit=3,
                              expand=False, mode="lexical")
    finally:
        session.close()
    assert sorted(made) == [("The gateway webhook fires after retrying the upload.",
                             frozenset({"gateway", "webhook", "fires", "retrying"})),
                            ("why did the upload stop", frozenset())]
