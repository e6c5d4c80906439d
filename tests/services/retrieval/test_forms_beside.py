"""The lexical lists of several forms are shared out between this thread and one beside it, on a connection of
its own (services/retrieval/lexical_pieces.py), and are the lists read one after the other."""

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
def seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, sqlite3.Connection, str, str]]:
    """Each list of a form read: its thread, its connection, its form's text, which list."""
    found: list[tuple[int, sqlite3.Connection, str, str]] = []
    for kind in ("sections", "pairs"):
        read = getattr(lexical.LexicalLists, kind)

        def recorded(form: lexical.LexicalLists, session: Any, *, _read: Any = read, _kind: str = kind) -> Any:
            found.append((threading.get_ident(), session.catalog.conn, form.text, _kind))
            return _read(form, session)

        monkeypatch.setattr(lexical.LexicalLists, kind, recorded)
    return found


def test_the_lists_of_several_forms_are_shared_with_a_thread_beside_and_are_the_same(semantic_session: Any,
                                                                                      seen: list[Any]) -> None:
    session, source = semantic_session
    needs = [Need(TASK, SKETCH), Need(OTHER)]
    beside = local_ranking.context(session, needs, source, limit=5, explain=True)
    assert sorted((text, kind) for *_, text, kind in seen) == sorted(
        (text, kind) for text in (TASK, SKETCH, OTHER) for kind in ("sections", "pairs"))  # each list read once
    here = threading.get_ident()
    others = {(ident, conn) for ident, conn, *_ in seen if ident != here}
    assert {conn for ident, conn, *_ in seen if ident == here} <= {session.catalog.conn}
    assert len(others) <= 1 and all(conn is not session.catalog.conn for _, conn in others)
    for _, other in others:
        with pytest.raises(sqlite3.ProgrammingError):  # closed once the lists were read
            other.execute("SELECT 1")

    seen.clear()
    assert local_ranking._FORMS_AT_A_TIME.acquire(blocking=False)  # another command's forms, being ranked
    try:
        alone = local_ranking.context(session, needs, source, limit=5, explain=True)
    finally:
        local_ranking._FORMS_AT_A_TIME.release()
    assert {(ident, conn) for ident, conn, *_ in seen} == {(here, session.catalog.conn)}
    assert len(seen) == 6
    assert rows(beside) == rows(alone) and beside.to_json() == alone.to_json()


def test_a_list_that_fails_beside_fails_the_command_and_closes_its_connection(semantic_session: Any,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    session, source = semantic_session
    here = threading.get_ident()
    taken = threading.Event()
    failed_on: list[sqlite3.Connection] = []
    sections = lexical.LexicalLists.sections

    def failing_beside(form: lexical.LexicalLists, on: Any) -> Any:
        if threading.get_ident() != here:
            failed_on.append(on.catalog.conn)
            taken.set()
            raise sqlite3.OperationalError("disk I/O error")
        taken.wait(10)  # this thread holds its first piece until the thread beside has taken one
        return sections(form, on)

    monkeypatch.setattr(lexical.LexicalLists, "sections", failing_beside)
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        local_ranking.context(session, [Need(TASK, SKETCH), Need(OTHER)], source, limit=5)
    assert len(failed_on) == 1 and failed_on[0] is not session.catalog.conn
    with pytest.raises(sqlite3.ProgrammingError):  # closed all the same
        failed_on[0].execute("SELECT 1")


def test_a_task_alone_opens_no_other_connection(semantic_session: Any, seen: list[Any]) -> None:
    session, source = semantic_session
    local_ranking.context(session, [TASK], source, limit=5)
    assert {(ident, conn) for ident, conn, *_ in seen} == {(threading.get_ident(), session.catalog.conn)}
    assert sorted(kind for *_, kind in seen) == ["pairs", "sections"]


def test_an_index_that_is_no_file_has_no_session_beside_it(semantic_session: Any) -> None:
    session, _ = semantic_session
    memory = sqlite3.connect(":memory:")
    try:
        in_memory = type(session)(session.store, session.schema, Catalog(memory), session.today, session.caller)
        assert in_memory.beside() is None
    finally:
        memory.close()
