"""In a big index, a sketch's common words (a quarter of the documents or more hold them) are left out of its
sections, not of its word pairs or its coverage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docir.index.fts import match_expression
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
    finally:
        session.close()


def test_a_sketch_leaves_its_common_words_out_of_its_sections_only_and_only_in_a_big_index(
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
        assert sketch.match == '"upload"' and sketch.terms == ["upload"]  # what its gate and sections are scored by
        assert sketch.weightless(session) == task.weightless(session) == {"gateway", "retrying"}
        sections, every_section = sketch.sections(session), task.sections(session)
        pairs, every_pair = sketch.pairs(session), task.pairs(session)
        found = sketch.ranked(session, sections, pairs)
        everything = task.ranked(session, every_section, every_pair)
        ids = session.catalog.docs.listings_by_rowid([c.rowid for c in everything])
    finally:
        session.close()
    assert [ids[rowid].id for rowid, _ in sections[0]] == ["guide-000000000003"]  # "Retrying the upload."
    assert len(every_section[0]) == 6
    # Its word pairs are every pair's, common words and all: "gateway call. The webhook ... fires"
    assert pairs == every_pair and len(pairs) == 3
    coverage = {c.rowid: c.coverage for c in everything}
    assert {c.rowid: c.coverage for c in found} == {rowid: coverage[rowid] for rowid, _ in pairs}
    assert coverage[sections[0][0][0]] < 1.0  # every word counted: "upload" and "retrying" of the five


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
