"""The warm worker watches the folders it walks; a one-shot command does not set up a watch."""

from __future__ import annotations

import json
import os
from pathlib import Path

from docir.services.indexing import shared_walk
from tests.worker.helpers import ID, docir, start_worker


def _inotify_descriptors(pid: int) -> int:
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(fd) == "anon_inode:inotify"
        except FileNotFoundError:  # the listing's own descriptor, closed by now
            continue
    return count


def test_the_worker_holds_a_watch_once_it_has_walked_and_still_sees_every_edit(warm_store: Path) -> None:
    pid = start_worker(warm_store)
    assert docir(warm_store, "get", ID).returncode == 0  # a forwarded read: the worker walks docs/
    assert _inotify_descriptors(pid) == 1
    path = next((warm_store / "docs").rglob("slow-invoice-export.md"))
    with open(path, "a", encoding="utf-8") as handle:  # in place: the folder's mtime stays
        handle.write("\nThe quillborrax case.\n")
    found = docir(warm_store, "search", "quillborrax", "--json")
    assert found.returncode == 0, found.stderr
    assert [row["id"] for row in json.loads(found.stdout)["results"]] == ["issue-0000000000c2"]


def test_a_one_shot_process_walks_without_a_watch(sample_store: Path) -> None:
    assert shared_walk._WATCHING == [False]  # nothing in a command's own process asked for one
    shared_walk.scan_docs_shared(sample_store, sample_store / "docs")
    assert _inotify_descriptors(os.getpid()) == 0
