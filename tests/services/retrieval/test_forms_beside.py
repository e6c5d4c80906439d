"""A sketch's lexical lists are ranked on a thread and a connection of their own, beside the task's."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import pytest

from docir.index.catalog import Catalog
from docir.services.retrieval import lexical, local_ranking
from docir.services.retrieval.need import Need

TASK = "the export job ran two times on the batch hosts"
SKETCH = "Nightly batch jobs run from crontab entries on the batch host, one schedule per host."
OTHER = "phone client without connectivity"


def rows(result: local_ranking.ContextResult) -> list[tuple[object, object]]:
    return [(row["id"], row.get("score")) for row in result.results]


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, sqlite3.Connection, str]]:
    """Each lexical ranking of a form: its thread, its connection, its text."""
    found: list[tuple[int, sqlite3.Connection, str]] = []
    rank_documents = lexical.rank_documents

    def recorded(session: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        found.append((threading.get_ident(), session.catalog.conn, text))
        return rank_documents(session, text, *args, **kwargs)

    monkeypatch.setattr(lexical, "rank_documents", recorded)
    return found


def test_the_forms_after_the_first_are_ranked_beside_it_with_the_same_lists(semantic_session: Any,
                                                                             seen: list[Any]) -> None:
    session, source = semantic_session
    needs = [Need(TASK, SKETCH), Need(OTHER)]
    beside = local_ranking.context(session, needs, source, limit=5, explain=True)
    assert [text for *_, text in seen] == [TASK, SKETCH, OTHER]
    (main, conn, _), (thread, other, _), (again, other_again, _) = seen
    assert main == threading.get_ident() and conn is session.catalog.conn
    assert thread == again != main and other is other_again is not conn
    with pytest.raises(sqlite3.ProgrammingError):  # closed once its forms were ranked
        other.execute("SELECT 1")

    seen.clear()
    assert local_ranking._FORMS_AT_A_TIME.acquire(blocking=False)  # another command's forms, being ranked
    try:
        alone = local_ranking.context(session, needs, source, limit=5, explain=True)
    finally:
        local_ranking._FORMS_AT_A_TIME.release()
    assert {(ident, conn) for ident, conn, _ in seen} == {(threading.get_ident(), session.catalog.conn)}
    assert rows(beside) == rows(alone) and beside.to_json() == alone.to_json()


def test_a_task_alone_opens_no_other_connection(semantic_session: Any, seen: list[Any]) -> None:
    session, source = semantic_session
    local_ranking.context(session, [TASK], source, limit=5)
    assert [(ident, conn) for ident, conn, _ in seen] == [(threading.get_ident(), session.catalog.conn)]


def test_an_index_that_is_no_file_has_no_session_beside_it(semantic_session: Any) -> None:
    session, _ = semantic_session
    memory = sqlite3.connect(":memory:")
    try:
        in_memory = type(session)(session.store, session.schema, Catalog(memory), session.today, session.caller)
        assert in_memory.beside() is None
    finally:
        memory.close()
