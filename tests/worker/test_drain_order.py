"""Document vectors before section vectors, progress in texts, and context fusing what exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docir.documents.model import embedded_text
from docir.services.indexing.session import open_session
from docir.services.vectors import drainer, embedding, model_registry
from tests.caller import caller, settings
from tests.fakes import CountingEmbedder
from tests.worker.test_one_drain import grow


@pytest.fixture
def grown(sample_store: Path) -> Path:
    root = sample_store
    grow(root, 30)
    return root


def test_every_document_vector_comes_before_any_section_vector(grown: Path) -> None:
    session = open_session(grown, caller())
    fake = CountingEmbedder()
    seen: list[dict] = []  # type: ignore[type-arg]
    report = embedding.drain(session.catalog, fake, settings(), progress=lambda state: seen.append(state.as_dict()))
    documents = {embedded_text(j.title, j.description, j.body)
                 for j in _all_jobs(session)}
    kinds = ["document" if text in documents else "section" for text in fake.texts]
    assert kinds.count("document") == len(documents)
    assert "section" not in kinds[: len(documents)], "a section vector came before a document vector"
    assert session.catalog.vectors.queue_counts(fake.model_id)[0] == 0
    # Progress counts texts: it only grows, and ends with every text the model saw, out of as many due.
    done = [s["texts_done"] for s in seen]
    assert done == sorted(done) and done[-1] == len(fake.texts) == report.texts_embedded
    assert seen[-1]["texts_due"] == len(fake.texts)
    assert {s["phase"] for s in seen} == {"documents", "sections"}
    session.close()


def test_each_model_call_gets_its_texts_fewest_tokens_first(sample_store: Path) -> None:
    """A batch costs as much as its longest member in tokens, and characters mislead: a section of
    many one-letter words is short in characters and long in tokens (hex-heavy code, in real stores)."""
    root = sample_store
    for n in range(3):
        many = " ".join(["a"] * (90 + n))  # ~180 characters, ~90 tokens
        few = " ".join(["interoperability"] * (20 + n))  # ~340 characters, ~20 tokens
        (root / "docs" / "issues" / f"words-{n}.md").write_text(
            f"---\nid: issue-{n + 1:012x}\ntype: issue\ntitle: Words {n}\n"
            f"description: Issue {n} with sections of short and long words.\nstatus: open\nowner: \"@team\"\n---\n\n"
            f"## Many\n\n{many}\n\n## Few\n\n{few}\n", encoding="utf-8")
    calls: list[list[str]] = []

    class Recording(CountingEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            calls.append(list(texts))
            return super().embed(texts)

    fake = Recording()
    session = open_session(root, caller())
    embedding.drain(session.catalog, fake, settings())
    session.close()

    def tokens(text: str) -> int:
        return min(fake.count_tokens(text), fake.max_tokens)

    assert len(calls) >= 2
    for call in calls:
        assert [tokens(t) for t in call] == sorted(tokens(t) for t in call)
    # The store is one where characters give another order, so the check above can fail.
    assert any([len(t) for t in call] != sorted(len(t) for t in call) for call in calls)


def _all_jobs(session):  # type: ignore[no-untyped-def]
    jobs = session.catalog.vectors.dirty_jobs("none@test", limit=10_000)  # every document, any state
    assert jobs
    return jobs


def test_context_fuses_document_vectors_and_says_how_many_wait_for_sections(
        grown: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    session = open_session(grown, caller())
    fake = CountingEmbedder()
    checks = iter([False])  # one pass of document vectors, then stop before any section
    embedding.drain(session.catalog, fake, settings(), should_stop=lambda: next(checks, True))
    waiting = session.catalog.vectors.waiting(fake.model_id)[1]
    assert waiting == session.catalog.vectors.queue_counts(fake.model_id)[1] > 30
    session.close()
    monkeypatch.setattr(model_registry, "_HELD", model_registry.HeldModel(fake))
    result = cli("context", "cache rebuilt on deploy", "--root", str(grown), "--json")
    assert result.code == 0, result.err
    payload = json.loads(result.out)
    assert payload["semantic"] == "on"
    assert payload["pending"] == 0 and payload["sections_pending"] == waiting
    assert any(r.get("similarity") is not None for r in payload["results"])
    # Once the sections are made, nothing waits.
    session = open_session(grown, caller())
    embedding.drain(session.catalog, fake, settings())
    session.close()
    payload = json.loads(cli("context", "cache rebuilt on deploy", "--root", str(grown), "--json").out)
    assert payload["pending"] == 0 and payload["sections_pending"] == 0


def test_worker_status_shows_the_running_drain_in_texts(grown: Path, isolated_process_model: None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    from docir.store import open_store
    from docir.worker.handler import WarmWorker

    release = threading.Event()

    class Slow(CountingEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            if len(self.texts) >= 8:  # the first slice goes through; the next waits until the test has looked
                release.wait(timeout=120)
            return super().embed(texts)

    monkeypatch.setattr(embedding, "EMBED_SLICE", 8)
    open_session(grown, caller()).close()
    worker = WarmWorker(open_store(grown, str(grown)), settings(), lambda argv, call: 0, Slow(), "", debounce=0.0)
    try:
        deadline = time.monotonic() + 60
        while worker.cmd_status({})["drain"] is None and time.monotonic() < deadline:
            release.wait(0.05)
        drain = worker.cmd_status({})["drain"]
        assert drain is not None and drain["phase"] == "documents"
        assert 0 < drain["texts_done"] < drain["texts_due"] and drain["rate"] > 0
        shown = drainer.drain_status(caller(), grown)  # what `embed --status` shows inside the worker
        assert shown is not None and shown["texts_done"] == drain["texts_done"] and shown["phase"] == "documents"
    finally:
        release.set()
        worker.close()


def test_a_query_goes_before_the_drains_next_slice() -> None:
    """The drain takes the model slice after slice; a query waits for the slice running, not for the drain."""
    import threading
    import time

    from docir.worker.handler import _ModelGate

    gate = _ModelGate()
    stop = threading.Event()
    slices = [0]  # slices the drain has finished

    def drain() -> None:
        while not stop.is_set():
            with gate.background():
                time.sleep(0.05)  # stands for a slice of model time
                slices[0] += 1

    thread = threading.Thread(target=drain)
    thread.start()
    try:
        passed = []  # slices the drain finished while a query waited: counted, not timed, so load cannot matter
        for _ in range(20):
            before = slices[0]
            with gate.query():
                passed.append(slices[0] - before)
    finally:
        stop.set()
        thread.join(timeout=30)
    # The slice running when the query asked, and at most the one it had just begun; a plain lock lets the
    # drain take it back slice after slice.
    assert max(passed) <= 2, passed


def test_a_drain_slice_gives_every_core_texts_and_counts_a_long_text_as_its_window() -> None:
    """A slice is about as long on any number of cores (the embedder runs its texts a core each), and a
    text past the model's window costs what one at the window costs: it does not take a slice alone."""
    from docir.worker.handler import _Locked, _slices

    long, short = "x" * 20_000, "y" * 40
    for cores in (1, 2, 8):
        most = _Locked.SUB_BATCH * cores
        parts = list(_slices([long] * 20, cores))
        assert [len(part) for part in parts] == [cores] * (20 // cores) + ([20 % cores] if 20 % cores else [])
        shorts = list(_slices([short] * 100, cores))
        assert max(len(part) for part in shorts) == most and sum(len(part) for part in shorts) == 100
    assert [len(part) for part in _slices([short, long, short, long, long], 2)] == [3, 2]
