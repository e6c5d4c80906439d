"""Commands that arrive together share one stat walk, and none takes a walk that began before it asked."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from docir.documents.ownership import EVERYTHING
from docir.services.indexing import shared_walk
from docir.services.indexing.session import open_session
from docir.services.indexing.shared_walk import SharedWalk
from tests.caller import caller

WAIT = 10.0


class Gated:
    """A walk that reports when it starts and, for walk number `hold`, waits to be let go."""

    def __init__(self, hold: int = 1) -> None:
        self.hold = hold
        self.count = 0
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> int:
        self.count += 1
        number = self.count
        if number == self.hold:
            self.started.set()
            assert self.release.wait(WAIT)
        return number


def call_in_thread(walk: SharedWalk[int]) -> tuple[threading.Thread, list[int]]:
    got: list[int] = []
    thread = threading.Thread(target=lambda: got.append(walk()))
    thread.start()
    return thread, got


def wait_until_waiting(walk: SharedWalk[int], callers: int) -> None:
    """Until `callers` threads wait in the walk's condition (its waiters are private: poll them)."""
    for _ in range(1000):
        with walk._turns:
            if len(getattr(walk._turns, "_waiters", ())) >= callers:
                return
        threading.Event().wait(0.01)
    raise AssertionError(f"{callers} callers never waited")


def test_alone_every_call_walks() -> None:
    gated = Gated(hold=0)
    walk = SharedWalk(gated)
    assert [walk(), walk(), walk()] == [1, 2, 3]


def test_a_call_during_a_walk_gets_the_next_walk_and_callers_arriving_together_share_it() -> None:
    gated = Gated(hold=1)
    walk = SharedWalk(gated)
    first, first_got = call_in_thread(walk)
    assert gated.started.wait(WAIT)
    late = [call_in_thread(walk) for _ in range(5)]  # all arrive while walk 1 runs
    wait_until_waiting(walk, 5)
    gated.release.set()
    for thread, _ in [(first, first_got), *late]:
        thread.join(WAIT)
    assert first_got == [1]
    assert [got for _, got in late] == [[2]] * 5  # walk 2 began after they asked; one walk served all five
    assert gated.count == 2


def test_a_failed_walk_raises_to_its_caller_and_the_waiters_walk_again() -> None:
    calls: list[int] = []
    entered, release = threading.Event(), threading.Event()

    def walk_fn() -> int:
        calls.append(1)
        if len(calls) == 1:
            entered.set()
            assert release.wait(WAIT)
            raise OSError("disk gone")
        return len(calls)

    walk = SharedWalk(walk_fn)
    errors: list[BaseException] = []

    def first() -> None:
        try:
            walk()
        except OSError as exc:
            errors.append(exc)

    failing = threading.Thread(target=first)
    failing.start()
    assert entered.wait(WAIT)
    waiter, got = call_in_thread(walk)
    wait_until_waiting(walk, 1)
    release.set()
    failing.join(WAIT)
    waiter.join(WAIT)
    assert len(errors) == 1 and got == [2]


def test_a_refresh_sees_an_edit_made_while_an_earlier_walk_was_running(sample_store: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The edit lands after walk 1 has passed the file; a command that starts after the edit must see it."""
    open_session(sample_store, caller()).close()  # index it
    real_scan = shared_walk.scan_docs
    passed, release = threading.Event(), threading.Event()
    walks: list[int] = []

    def slow_first_scan(root: Path, docs_dir: Path, on_folder=None, owned=EVERYTHING) -> dict:  # type: ignore[no-untyped-def, type-arg]
        found = real_scan(root, docs_dir, on_folder, owned)
        walks.append(1)
        if len(walks) == 1:
            passed.set()  # every file's stat is taken: an edit now is one this walk cannot see
            assert release.wait(WAIT)
        return found

    monkeypatch.setattr(shared_walk, "scan_docs", slow_first_scan)
    monkeypatch.setattr(shared_walk, "_WALKS", type(shared_walk._WALKS)())
    early = open_session(sample_store, caller(), refresh=False)
    late = open_session(sample_store, caller(), refresh=False)
    try:
        early_reports = []
        early_thread = threading.Thread(target=lambda: early_reports.append(early.refresh()))
        early_thread.start()
        assert passed.wait(WAIT)
        path = sample_store / "docs" / "issues" / "login-loop.md"
        path.write_text(path.read_text(encoding="utf-8") + "\nA zanzibr appears.\n", encoding="utf-8")
        reports = []
        late_thread = threading.Thread(target=lambda: reports.append(late.refresh()))
        late_thread.start()  # the edit is on disk before this command starts
        wait_until_waiting(next(iter(shared_walk._WALKS.values())), 1)  # it asked while walk 1 still runs
        release.set()
        early_thread.join(WAIT)
        late_thread.join(WAIT)
        assert len(walks) == 2
        assert early_reports and early_reports[0].updated == 0  # walked before the edit
        assert reports and reports[0].updated == 1
    finally:
        early.close()
        late.close()
