"""An iterator drawn one step ahead of its reader, in a thread of its own (adr-97ebb77d9713).

A publish reads and tokenizes documents (Python) while the database takes the rows before them
(a wait on a socket, the GIL released): run one after the other, each waits for the other. The
thread holds at most `depth` items its reader has not taken, so memory stays bounded however
long the iterator is; an error in the thread is raised in the reader, and a reader that stops
early stops the thread before the context ends.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

_END = object()
_WAIT = 0.05  # seconds between the thread's looks at whether its reader has stopped


@contextmanager
def ahead(items: Iterator[T], depth: int = 1) -> Iterator[Iterator[T]]:
    """`items`, each drawn in a thread while the reader works on the one before."""
    pending: queue.Queue[tuple[object, BaseException | None]] = queue.Queue(maxsize=depth)
    stopped = threading.Event()

    def offer(entry: tuple[object, BaseException | None]) -> bool:
        while not stopped.is_set():
            try:
                pending.put(entry, timeout=_WAIT)
                return True
            except queue.Full:
                continue
        return False

    def draw() -> None:
        try:
            for item in items:
                if not offer((item, None)):
                    break
            else:
                offer((_END, None))
        except BaseException as exc:  # handed to the reader, which raises it
            offer((_END, exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    def read() -> Generator[T, None, None]:
        while True:
            item, error = pending.get()
            if error is not None:
                raise error
            if item is _END:
                return
            yield item  # type: ignore[misc]

    thread = threading.Thread(target=draw, name="docir-ahead", daemon=True)
    thread.start()
    try:
        yield read()
    finally:
        stopped.set()
        thread.join()
