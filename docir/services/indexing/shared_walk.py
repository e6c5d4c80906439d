"""One stat walk of docs/ for all the commands that ask for one while it runs.

Every read starts with a stat walk of docs/ (adr-dd8cbb0fd892). In the warm worker many
commands run at once (adr-b5766f49b387), and eight of them walking the same folder side by
side do the same work eight times, under one interpreter lock. Here they share it.

Freshness is kept: a command never takes the result of a walk that began before it asked.
That walk may already have passed a file edited just before the command started. So a
command that arrives while a walk runs waits for the *next* walk, which begins as soon as
the running one ends and serves every command that arrived meanwhile. A command that
arrives when no walk runs starts one at once: alone, nothing changes.

In a long-lived process (the warm worker, the MCP server: they call `keep_watch`), every folder
a walk lists is watched (documents/watch.py): while no event arrives, the next walk's result is
the last one's, and no file is stat'ed again (adr-dd8cbb0fd892). A one-shot command walks once
and would gain nothing but the cost of setting up the watch.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from docir.documents.ownership import EVERYTHING, Ownership
from docir.documents.scan import FileStat, scan_docs
from docir.documents.watch import FolderWatch
from docir.index import changes

T = TypeVar("T")


class SharedWalk(Generic[T]):
    """Calls `walk` for the callers that arrive together; each gets a result begun after it asked."""

    def __init__(self, walk: Callable[[], T]) -> None:
        self._walk = walk
        self._turns = threading.Condition()
        self._started = 0  # walks begun so far; they are numbered 1, 2, ...
        self._running = False
        self._finished = 0  # the number of the last walk that returned a result
        self._result: tuple[T] | None = None  # that walk's result

    def __call__(self) -> T:
        with self._turns:
            wanted = self._started + 1  # the first walk to begin after this call
            while self._finished < wanted:
                if not self._running:
                    self._running = True
                    self._started += 1
                    number = self._started
                    break
                self._turns.wait()
            else:
                assert self._result is not None
                return self._result[0]
        try:
            result = self._walk()
        except BaseException:
            with self._turns:  # a waiter starts the next walk; this caller sees the error
                self._running = False
                self._turns.notify_all()
            raise
        with self._turns:
            self._running = False
            self._finished = number
            self._result = (result,)
            self._turns.notify_all()
        return result


class WatchedWalk:
    """scan_docs of one docs/ folder, done again only when something in it changed since the last
    walk began (or when nothing can tell: no inotify, a folder left unwatched, no docs/ yet).

    A folder the exclude list leaves out is never listed, so never watched: nothing in it counts."""

    def __init__(self, root: Path, docs_dir: Path, watch: bool, owned: Ownership = EVERYTHING) -> None:
        self._root, self._docs_dir, self._owned = root, docs_dir, owned
        self._watch = FolderWatch.open() if watch else None
        self._last: dict[str, FileStat] | None = None

    def __call__(self) -> dict[str, FileStat]:
        watch = self._watch
        # Reading the events first: one that arrives during the walk is left for the next call.
        if watch is None or watch.changed() or self._last is None:
            self._last = None
            # Each folder is watched before it is listed, so a later change in it is an event; a walk
            # that listed nothing (no docs/ yet) watched nothing, and is not kept.
            added = 0 if watch is None else watch.added
            result = scan_docs(self._root, self._docs_dir, on_folder=None if watch is None else watch.add,
                               owned=self._owned)
            if watch is not None and watch.whole and watch.added > added:
                self._last = result
            return result
        return self._last


# Per docs/ folder. A long-lived process serves one store, or a few (tests): keep the last few.
_KEEP = 8
_WALKS: OrderedDict[tuple[str, str, Any], SharedWalk[dict[str, FileStat]]] = OrderedDict()
_WALKS_LOCK = threading.Lock()
_WATCHING = [False]  # set once by a long-lived process: keep_watch


def keep_watch() -> None:
    """This process lives long and reads often: watch the folders walked (see the module docstring),
    and keep what is read of an index until it changes (index/changes.py)."""
    _WATCHING[0] = True
    changes.keep()


def let_go() -> None:
    """Close the index connections keep_watch kept: the last connection to close checkpoints the WAL."""
    changes.forget()


def scan_docs_shared(root: Path, docs_dir: Path, owned: Ownership = EVERYTHING) -> dict[str, FileStat]:
    """scan_docs(root, docs_dir, owned=owned), shared with the commands that ask at the same time.

    The dict may be handed to several commands at once: read it, never change it. An edited exclude
    list is another walk, begun afresh: the last one's result leaves out other files.
    """
    key = (str(root), str(docs_dir), owned.key)
    with _WALKS_LOCK:
        shared = _WALKS.get(key)
        if shared is None:
            shared = _WALKS[key] = SharedWalk(WatchedWalk(root, docs_dir, _WATCHING[0], owned))
            while len(_WALKS) > _KEEP:
                _WALKS.popitem(last=False)  # its watch closes when the last walk using it returns
        _WALKS.move_to_end(key)
    return shared()
