"""Many clients and one warm worker, as real processes: nobody waits behind long work.

The long work here is a forwarded write waiting for the store's write lock, which the
test holds for as long as it likes: a command that runs until the test lets it finish,
on any machine, however loaded. So "nobody waits" is asserted as an order, never as a
time: a read that answers while the test still holds the lock did not wait behind the
write (how fast it answers is benchmarks/worker_concurrency.py's business; adr-fd6d145352aa).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docir.worker import paths
from tests.worker.helpers import ID, SETUP_TIMEOUT, docir, settled, start_worker, status, wait_for


@contextmanager
def holding_write_lock(root: Path) -> Iterator[None]:
    """Hold the store's write lock from this process, as a long writer would."""
    fd = os.open(root / ".docir" / "write.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def start_docir(root: Path, *args: str) -> subprocess.Popen[str]:
    """docir as a terminal's foreground job runs it: with SIGINT at its default, so Ctrl-C raises
    KeyboardInterrupt. A suite started in the background by a shell without job control inherits
    SIGINT ignored, and Python keeps an inherited ignore: the client would sleep through Ctrl-C."""
    return subprocess.Popen([sys.executable, "-m", "docir", *args, "--root", str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def forwarded_and_waiting(root: Path, proc: subprocess.Popen[str]) -> bool:
    """The worker is running the client's command (it has a connection besides our status call)."""
    return proc.poll() is None and int(status(root).get("requests", 0)) >= 2


def started_worker(root: Path) -> int:
    pid = start_worker(root)
    assert wait_for(lambda: settled(root), timeout=SETUP_TIMEOUT)
    return pid


def test_reads_answer_while_a_long_command_runs(warm_store: Path) -> None:
    pid = started_worker(warm_store)
    for args in (("search", "sessions"), ("get", ID), ("context", "sessions lost on deploy")):
        docir(warm_store, *args, timeout=SETUP_TIMEOUT)  # warm each command once: the claim is about waiting
    with holding_write_lock(warm_store):
        writer = start_docir(warm_store, "update", ID, "--append-section", "Held", "--body", "Waits for the lock.")
        try:
            assert wait_for(lambda: forwarded_and_waiting(warm_store, writer), timeout=SETUP_TIMEOUT), \
                writer.communicate(timeout=SETUP_TIMEOUT)
            for args in (("search", "sessions"), ("get", ID), ("context", "sessions lost on deploy"),
                         ("worker", "status")):
                done = docir(warm_store, *args, timeout=SETUP_TIMEOUT)  # while we hold the lock: no waiting
                assert done.returncode == 0, done.stderr
            assert status(warm_store)["pid"] == pid  # answered by the worker, not by a fallback
            assert writer.poll() is None  # and the long command is still waiting all along
        except BaseException:
            writer.kill()
            raise
    out, err = writer.communicate(timeout=SETUP_TIMEOUT)
    assert writer.returncode == 0, err
    assert "## Held" in json.loads(docir(warm_store, "get", ID, "--json").stdout)["documents"][0]["body"]


def test_worker_status_and_stop_answer_while_a_command_runs(warm_store: Path) -> None:
    pid = started_worker(warm_store)
    with holding_write_lock(warm_store):
        writer = start_docir(warm_store, "update", ID, "--append-section", "Held", "--body", "Waits for the lock.")
        assert wait_for(lambda: forwarded_and_waiting(warm_store, writer), timeout=SETUP_TIMEOUT)
        done = docir(warm_store, "worker", "status", timeout=SETUP_TIMEOUT)
        assert done.returncode == 0, done.stderr
        stopping = start_docir(warm_store, "worker", "stop")
        # "stop" is answered while the command still waits for our lock; the worker then waits for it.
        assert wait_for(lambda: not paths.status_path(warm_store).exists(), timeout=SETUP_TIMEOUT, step=0.02)
        assert writer.poll() is None
    stopping.communicate(timeout=SETUP_TIMEOUT)
    writer.communicate(timeout=SETUP_TIMEOUT)
    assert writer.returncode == 0
    assert wait_for(lambda: not paths.pid_alive(pid), timeout=SETUP_TIMEOUT)


def test_ctrl_c_on_a_waiting_client_exits_130_and_its_write_never_lands(warm_store: Path) -> None:
    started_worker(warm_store)
    before = json.loads(docir(warm_store, "get", ID, "--json").stdout)["documents"][0]["body"]
    with holding_write_lock(warm_store):
        writer = start_docir(warm_store, "update", ID, "--append-section", "Abandoned", "--body", "Never lands.")
        assert wait_for(lambda: forwarded_and_waiting(warm_store, writer), timeout=SETUP_TIMEOUT)
        writer.send_signal(signal.SIGINT)
        out, err = writer.communicate(timeout=SETUP_TIMEOUT)
        assert writer.returncode == 130, (out, err)
        assert "Traceback" not in err
        # The worker notices the hang-up and drops the command before the lock is ours to give back.
        assert wait_for(lambda: int(status(warm_store).get("requests", 0)) <= 1, timeout=SETUP_TIMEOUT)
    after = json.loads(docir(warm_store, "get", ID, "--json").stdout)["documents"][0]["body"]
    assert after == before
    assert "Abandoned" not in after


def test_a_worker_that_cannot_take_a_request_means_run_it_here(warm_store: Path) -> None:
    """A frozen worker (SIGSTOP) never says ready: the read runs in the calling process instead."""
    pid = started_worker(warm_store)
    cold = {**os.environ, "DOCIR_WORKER": "0"}
    expected = docir(warm_store, "get", ID, env=cold, timeout=SETUP_TIMEOUT)
    os.kill(pid, signal.SIGSTOP)
    try:
        # Answered while the worker is still frozen: a client waiting on it would never return (timeout).
        done = docir(warm_store, "get", ID, timeout=SETUP_TIMEOUT)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert (done.returncode, done.stdout, done.stderr) == (expected.returncode, expected.stdout, expected.stderr)


def test_every_edit_is_seen_by_the_next_command_while_many_clients_read(warm_store: Path) -> None:
    """Commands running at once share their stat walks (docir/services/indexing/shared_walk.py), yet a
    command never takes a walk older than itself: an edit made before it starts is in its answer."""
    pid = started_worker(warm_store)
    stop = threading.Event()
    failures: list[str] = []

    def reader(n: int) -> None:
        while not stop.is_set():
            done = docir(warm_store, *(("context", "sessions lost on deploy") if n % 2 else ("search", "sessions")),
                         timeout=SETUP_TIMEOUT)
            if done.returncode != 0:
                failures.append(done.stderr)

    readers = [threading.Thread(target=reader, args=(n,)) for n in range(6)]
    for thread in readers:
        thread.start()
    try:
        path = next((warm_store / "docs").rglob("slow-invoice-export.md"))
        for word in ("quorvantic", "zelbrinox", "mavterplon", "gruntlefax", "pimbrostal"):
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(f"\nThe {word} case.\n")
            found = docir(warm_store, "search", word, "--json", timeout=SETUP_TIMEOUT)
            assert found.returncode == 0, found.stderr
            assert [r["id"] for r in json.loads(found.stdout)["results"]] == ["issue-0000000000c2"], word
            assert word in docir(warm_store, "get", "issue-0000000000c2").stdout
    finally:
        stop.set()
        for thread in readers:
            thread.join(SETUP_TIMEOUT)
    assert failures == []
    assert status(warm_store)["pid"] == pid  # the worker answered throughout
