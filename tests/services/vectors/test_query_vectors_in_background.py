"""The query vectors are computed on a thread of their own while the lexical rankings run."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from docir import background
from docir.services.indexing.session import open_session
from docir.services.retrieval import local_ranking
from tests.caller import caller
from tests.fakes import CountingEmbedder

ASKED_BY: contextvars.ContextVar[str] = contextvars.ContextVar("asked_by", default="nobody")


class Source:
    """A query source that records where it ran, and can fail."""

    status = "on"

    def __init__(self, fail: bool = False) -> None:
        self.inner = CountingEmbedder()
        self.fail = fail
        self.seen: list[tuple[int, str]] = []  # (thread id, the caller's context variable)

    @property
    def model_id(self) -> str | None:
        return self.inner.model_id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.append((threading.get_ident(), ASKED_BY.get()))
        if self.fail:
            raise ConnectionError("the worker went away")
        return self.inner.embed(texts)


@pytest.fixture
def session(sample_store: Path):  # type: ignore[no-untyped-def]
    opened = open_session(sample_store, caller())
    yield opened
    opened.close()


def test_the_query_vectors_come_from_another_thread_in_the_callers_context(session) -> None:  # type: ignore[no-untyped-def]
    source = Source()
    ASKED_BY.set("this command")
    result = local_ranking.context(session, ["session renewal"], source, limit=3, expand=False)  # type: ignore[arg-type]
    assert [asked for _, asked in source.seen] == ["this command"]
    assert source.seen[0][0] != threading.get_ident()
    assert result.results  # ranked, with whatever the fake vectors say


def test_an_error_while_embedding_is_raised_by_context_itself(session) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConnectionError, match="went away"):
        local_ranking.context(session, ["session renewal"], Source(fail=True), limit=3)  # type: ignore[arg-type]


def test_while_another_command_embeds_beside_its_work_this_one_embeds_in_its_own_thread(session) -> None:  # type: ignore[no-untyped-def]
    source = Source()
    assert background.ONE_AT_A_TIME.acquire(blocking=False)  # another command's query vectors, being computed
    try:
        local_ranking.context(session, ["session renewal"], source, limit=3, expand=False)  # type: ignore[arg-type]
    finally:
        background.ONE_AT_A_TIME.release()
    assert [ident for ident, _ in source.seen] == [threading.get_ident()]
    local_ranking.context(session, ["session renewal"], source, limit=3, expand=False)  # type: ignore[arg-type]
    assert source.seen[-1][0] != threading.get_ident()  # the limit was given back
