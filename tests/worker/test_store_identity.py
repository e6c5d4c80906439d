"""A worker belongs to one store: a copied or moved store never talks to, stops or cleans up after another's."""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docir.worker import paths
from tests.conftest import FIXTURES
from tests.worker.helpers import ID, docir, settled, start_worker, status, wait_for


@contextmanager
def workers_stopped(*roots: Path) -> Iterator[None]:
    """Stop the own worker of each of `roots` afterwards (a record naming another store is left alone)."""
    try:
        yield
    finally:
        for root in roots:
            found = paths.read_status(root)
            docir(root, "worker", "stop", timeout=60)
            if found and paths.pid_alive(int(found["pid"])):
                os.kill(int(found["pid"]), signal.SIGKILL)


def copy_of(root: Path, target: Path) -> Path:
    """`cp -a`: the run folder with the worker's record comes along."""
    shutil.copytree(root, target, symlinks=True)
    return target


def test_a_copy_of_a_store_with_a_running_worker_uses_a_worker_of_its_own(warm_store: Path, tmp_path: Path) -> None:
    original = start_worker(warm_store)
    assert wait_for(lambda: settled(warm_store))  # the original has nothing left to embed
    copy = copy_of(warm_store, tmp_path / "copy")
    assert json.loads(paths.status_path(copy).read_text())["pid"] == original  # the copy names the original's worker
    with workers_stopped(copy):
        written = docir(copy, "update", ID, "--append-section", "Copied", "--body", "Written in the copy alone.",
                        env={**os.environ, "DOCIR_WORKER": "0"})
        assert written.returncode == 0, written.stderr
        flushed = docir(copy, "embed", "--flush", "--json")
        assert flushed.returncode == 0, flushed.stderr
        report = json.loads(flushed.stdout)
        assert report["texts_embedded"] > 0 and report["due"] == 0  # embedded into the copy's own index
        stopped = json.loads(docir(copy, "worker", "stop", "--json").stdout)
        assert stopped["pid"] != original
        assert paths.pid_alive(original)
        # The original goes on with its worker: same pid, its socket in place, and none of the copy's text.
        assert status(warm_store)["pid"] == original
        assert Path(paths.read_status(warm_store)["socket"]).exists()  # type: ignore[index]
        got = docir(warm_store, "get", ID)
        assert got.returncode == 0 and ID in got.stdout and "Written in the copy alone" not in got.stdout
        # And the copy starts one of its own when asked.
        own = start_worker(copy)
        assert own != original and status(copy)["pid"] == own and status(warm_store)["pid"] == original


def test_a_copys_stale_record_never_removes_the_originals_socket(warm_store: Path, tmp_path: Path) -> None:
    first = start_worker(warm_store)
    copy = copy_of(warm_store, tmp_path / "copy")
    docir(warm_store, "worker", "stop")
    assert wait_for(lambda: not paths.pid_alive(first))
    second = start_worker(warm_store)  # the original's next worker: the copy's record still names the first
    socket_file = Path(paths.read_status(warm_store)["socket"])  # type: ignore[index]
    with workers_stopped(copy):
        got = docir(copy, "get", ID)
        assert got.returncode == 0, got.stderr
        assert socket_file.exists()
        assert status(warm_store)["pid"] == second


def test_a_moved_store_leaves_the_store_now_at_its_old_path_alone(warm_store: Path, tmp_path: Path) -> None:
    """Renamed while no worker runs (the last one killed: its record stayed), with a new store put at the old path."""
    killed = start_worker(warm_store)
    os.kill(killed, signal.SIGKILL)
    assert wait_for(lambda: not paths.pid_alive(killed))
    moved = tmp_path / "moved"
    os.rename(warm_store, moved)
    shutil.copytree(FIXTURES / "stores" / "sample", warm_store)  # another store where the first one was
    there = start_worker(warm_store)
    socket_file = Path(paths.read_status(warm_store)["socket"])  # type: ignore[index]
    with workers_stopped(moved):
        got = docir(moved, "get", ID)
        assert got.returncode == 0 and ID in got.stdout, got.stderr
        assert socket_file.exists() and status(warm_store)["pid"] == there
        own = start_worker(moved)
        assert own not in (killed, there)
        stopped = json.loads(docir(moved, "worker", "stop", "--json").stdout)
        assert stopped == {"stopped": True, "pid": own}
        assert status(warm_store)["pid"] == there  # stopping the moved store's worker stopped only that one
