"""A piece of a command's work on a thread of its own, beside the rest of it.

`context` embeds its tasks while SQLite ranks them by their words: both the model and SQLite let go
of the GIL, so on an idle machine the two overlap. At most one command of a process does so at a
time. When several run at once (the warm worker under many clients) the cores are busy anyway, and a
thread per command only contended with the model's own threads: with this limit many clients at once
are no slower than with no thread at all, and one client alone is faster (arch-e78bb21b4e69 holds
the measurements).

Each such thread is limited by a semaphore of its own kind: the query vectors by ONE_AT_A_TIME, a
sketch's lexical lists by theirs (services/retrieval/local_ranking.py). A cold command's model load
(services/vectors/query_source.py) is not limited: a one-shot process runs no other command. Nor
are the model's runs side by side (embed/onnx_model.py): they are as many as the cores.
"""

from __future__ import annotations

import _thread
import contextvars
import threading
from collections.abc import Callable
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")

ONE_AT_A_TIME = threading.BoundedSemaphore(1)


def start(work: Callable[[A], R], argument: A, *,
          limit: threading.BoundedSemaphore | None = ONE_AT_A_TIME) -> Callable[[], R]:
    """`work(argument)` on a thread of its own (or here and now, while another command's runs); the
    returned function waits for its result or raises its error.

    The thread runs in this command's context: inside the warm worker, a command's working folder,
    environment and streams live in a context variable (adr-b5766f49b387), which a new thread would
    not see. With a `limit`, only while no other thread of that kind runs in this process.
    """
    if limit is not None and not limit.acquire(blocking=False):
        return already(work(argument))
    done: list[R] = []
    failed: list[BaseException] = []
    context = contextvars.copy_context()
    finished = _thread.allocate_lock()
    finished.acquire()

    def run() -> None:
        try:
            done.append(context.run(work, argument))
        except BaseException as exc:  # handed to the caller, who raises it as its own
            failed.append(exc)
        finally:
            if limit is not None:
                limit.release()
            finished.release()

    # Not threading.Thread: its start() waits until the new thread has run, which on a loaded machine is
    # a scheduler's wake-up (2.5 ms of a warm context on 2 busy cores); this thread runs no code of
    # threading's and is waited for by its own lock. Like a daemon thread, it never holds up an exit.
    try:
        _thread.start_new_thread(run, ())
    except RuntimeError:  # no thread to be had: do it here
        if limit is not None:
            limit.release()
        return already(work(argument))

    def result() -> R:
        with finished:
            pass
        if failed:
            raise failed[0]
        return done[0]

    return result


def already(value: R) -> Callable[[], R]:
    """A result already had, in start's shape."""
    return lambda: value
