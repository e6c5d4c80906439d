"""The worker's query vectors: a repeated query goes through the model once, with the same vectors."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from docir.services.vectors.query_cache import CachedQueries
from tests.fakes import CountingEmbedder


def test_a_repeated_query_is_embedded_once_with_identical_vectors() -> None:
    model = CountingEmbedder()
    cached = CachedQueries(model)
    first = cached.embed(["retry policy", "webhooks"])
    again = cached.embed(["retry policy", "webhooks"])
    assert model.texts == ["retry policy", "webhooks"]
    assert np.array_equal(first, again)
    cached.embed(["retry policy"])  # another batch is another key: embedded as asked, never pieced together
    assert model.texts == ["retry policy", "webhooks", "retry policy"]


def test_a_caller_changing_its_vectors_never_changes_the_next_callers() -> None:
    cached = CachedQueries(CountingEmbedder())
    first = cached.embed(["q"])
    expected = first.copy()
    first[:] = 0
    assert np.array_equal(cached.embed(["q"]), expected)


def test_the_oldest_queries_go_first() -> None:
    model = CountingEmbedder()
    cached = CachedQueries(model, size=2)
    for text in ("a", "b", "a", "c", "a", "b"):
        cached.embed([text])
    assert model.texts == ["a", "b", "c", "b"]  # "a" was used recently each time; "b" was evicted by "c"


def test_concurrent_askers_of_one_query_share_one_computation() -> None:
    class Slow(CountingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.entered, self.release = threading.Event(), threading.Event()

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            self.entered.set()
            assert self.release.wait(10)
            return super().embed(texts)

    model = Slow()
    cached = CachedQueries(model)
    got: list[np.ndarray] = []
    threads = [threading.Thread(target=lambda: got.append(cached.embed(["same"]))) for _ in range(4)]
    threads[0].start()
    assert model.entered.wait(10)
    for thread in threads[1:]:
        thread.start()
    model.release.set()
    for thread in threads:
        thread.join(10)
    assert len(got) == 4 and model.texts == ["same"]
    assert all(np.array_equal(g, got[0]) for g in got)


def test_a_failed_computation_is_not_kept() -> None:
    class FailsOnce(CountingEmbedder):
        failed = False

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            if not self.failed:
                self.failed = True
                raise RuntimeError("model busy")
            return super().embed(texts)

    cached = CachedQueries(FailsOnce())
    with pytest.raises(RuntimeError):
        cached.embed(["q"])
    assert cached.embed(["q"]).shape == (1, 16)
