"""One owner of the drain: a flush wakes the worker's drain and waits for it; no text is embedded twice."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from docir.services.indexing.session import open_session
from docir.services.vectors.flush import flush_session
from docir.services.vectors.reports import FlushReport
from docir.store import open_store
from docir.worker.handler import WarmWorker
from tests.caller import caller, settings
from tests.fakes import CountingEmbedder
from tests.worker.helpers import docir, settled, status, wait_for

SETUP_TIMEOUT = 300.0


def grow(root: Path, documents: int) -> None:
    """Add `documents` issues with several sections each: enough texts for drains to overlap."""
    folder = root / "docs" / "issues"
    for n in range(documents):
        sections = "\n\n".join(f"## Part {k}\n\nIssue {n} part {k}: the cache of shard {n * 7 + k} is rebuilt "
                               f"on every deploy, and request {k} waits for it." for k in range(6))
        (folder / f"generated-{n:03d}.md").write_text(
            f"---\nid: issue-{n:012x}\ntype: issue\ntitle: Generated issue {n}\n"
            f"description: Issue {n} about a cache rebuilt on deploy.\nstatus: open\nowner: \"@team\"\n---\n\n"
            f"{sections}\n", encoding="utf-8")


def stored_vectors(root: Path) -> int:
    conn = sqlite3.connect(root / ".docir" / "index.db")
    try:
        return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
    finally:
        conn.close()


def test_flushes_racing_the_drain_thread_embed_each_text_once(sample_store: Path, isolated_process_model: None) -> None:
    root = sample_store
    grow(root, 40)
    open_session(root, caller()).close()
    fake = CountingEmbedder()
    worker = WarmWorker(open_store(root, str(root)), settings(), lambda argv, call: 0, fake, "", debounce=0.0)
    try:
        reports: list[FlushReport] = []
        threads = [threading.Thread(target=lambda: reports.append(worker.flush_and_wait())) for _ in range(4)]
        for thread in threads:
            thread.start()
        command = open_session(root, caller())
        reports.append(flush_session(command))  # a command's flush, inside the worker
        command.close()
        for thread in threads:
            thread.join(timeout=SETUP_TIMEOUT)
        assert len(reports) == 5, "a flush never returned"
        assert worker.cmd_status({})["due"] == 0
    finally:
        worker.close()
    assert len(fake.texts) == len(set(fake.texts)), "a text went through the model twice"
    assert worker.totals.texts_embedded == len(fake.texts)  # the count is of real model calls
    assert stored_vectors(root) == len(fake.texts)
    assert all(r["texts_embedded"] <= len(fake.texts) for r in reports)


def test_a_flush_wakes_the_drain_past_its_debounce(sample_store: Path, isolated_process_model: None) -> None:
    root = sample_store
    open_session(root, caller()).close()
    fake = CountingEmbedder()
    # never settles by itself
    worker = WarmWorker(open_store(root, str(root)), settings(), lambda argv, call: 0, fake, "", debounce=3600.0)
    try:
        report = worker.flush_and_wait()
    finally:
        worker.close()
    assert report["documents"] == worker.totals.documents > 0
    assert report["texts_embedded"] == len(fake.texts) == len(set(fake.texts))


def test_real_processes_flushing_beside_the_worker_embed_each_text_once(warm_store: Path) -> None:
    """The worker's drain, a flush forwarded into it and a flush in a process of its own, all at once."""
    grow(warm_store, 12)
    cold = {**os.environ, "DOCIR_WORKER": "0"}
    assert docir(warm_store, "reindex", env=cold, timeout=SETUP_TIMEOUT).returncode == 0
    assert docir(warm_store, "worker", "start", timeout=SETUP_TIMEOUT).returncode == 0
    flush = [sys.executable, "-m", "docir", "embed", "--flush", "--json", "--root", str(warm_store)]
    flushes = [subprocess.Popen(flush, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
               for env in (dict(os.environ), cold)]
    results = [proc.communicate(timeout=SETUP_TIMEOUT) for proc in flushes]
    for proc, (out, err) in zip(flushes, results, strict=True):
        assert proc.returncode == 0, err
        assert json.loads(out)["due"] == 0
    # Off a terminal, a line per stage on stderr (JSON on stdout untouched): the warm one waits on the worker's
    # drain, run from the client's own process so its progress is shown as it goes; the cold one loads the model.
    warm_err, cold_err = results[0][1], results[1][1]
    assert "docir: embedding: asking the warm worker" in warm_err.splitlines(), warm_err
    stages = [line for line in cold_err.splitlines() if line.startswith("docir: embedding: ")]
    assert stages[0] == "docir: embedding: loading the model", cold_err
    cold_embedded = json.loads(results[1][0])["texts_embedded"]
    assert wait_for(lambda: settled(warm_store), timeout=SETUP_TIMEOUT)
    worker_embedded = status(warm_store)["texts_embedded"]
    assert worker_embedded + cold_embedded == stored_vectors(warm_store), "a text went through the model twice"


def test_a_forwarded_write_with_wait_embeddings_returns_with_its_vectors_made(warm_store: Path) -> None:
    assert docir(warm_store, "worker", "start", timeout=SETUP_TIMEOUT).returncode == 0
    assert wait_for(lambda: settled(warm_store), timeout=SETUP_TIMEOUT)
    before = status(warm_store)
    done = docir(warm_store, "update", "adr-0000000000a1", "--append-section", "Waited", "--body",
                 "Written and embedded before the command returns.", "--wait-embeddings", timeout=SETUP_TIMEOUT)
    assert done.returncode == 0, done.stderr
    after = status(warm_store)
    assert after["pid"] == before["pid"]  # it ran in the worker, whose drain made the vectors
    assert after["due"] == 0 and after["documents_embedded"] == before["documents_embedded"] + 1
