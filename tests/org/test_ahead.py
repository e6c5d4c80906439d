"""ahead(): an iterator drawn in a thread, in order, bounded, its errors raised in the reader."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from docir.org.ahead import ahead


def test_every_item_arrives_in_order() -> None:
    with ahead(iter(range(100))) as items:
        assert list(items) == list(range(100))


def test_the_thread_draws_at_most_depth_items_beyond_the_one_being_read() -> None:
    drawn: list[int] = []
    read = threading.Event()

    def counting() -> Iterator[int]:
        for n in range(50):
            drawn.append(n)
            yield n

    with ahead(counting(), depth=2) as items:
        first = next(items)
        read.wait(0.3)  # time for the thread to run ahead as far as it may
        # The one read, two waiting in the queue, and one drawn that waits for room.
        assert first == 0 and len(drawn) <= 4


def test_an_error_in_the_thread_is_raised_in_the_reader() -> None:
    def failing() -> Iterator[int]:
        yield 1
        raise ValueError("broken index")

    with ahead(failing()) as items:
        assert next(items) == 1
        with pytest.raises(ValueError, match="broken index"):
            next(items)


def test_a_reader_that_stops_early_stops_the_thread_and_closes_the_iterator() -> None:
    closed = threading.Event()

    def endless() -> Iterator[int]:
        try:
            n = 0
            while True:
                yield n
                n += 1
        finally:
            closed.set()

    with pytest.raises(RuntimeError), ahead(endless()) as items:
        next(items)
        raise RuntimeError("the database went away")
    assert closed.is_set()
    assert not any(t.name == "docir-ahead" for t in threading.enumerate())
