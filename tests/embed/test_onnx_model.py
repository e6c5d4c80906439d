"""docir's own ONNX Runtime session gives the packaged model's vectors exactly as fastembed does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from docir.embed.fastembed_model import FastembedEmbedder
from docir.embed.load import load_embedder
from docir.embed.model_ids import BUILD
from docir.embed.onnx_model import BATCH, OnnxEmbedder
from docir.embed.resolve import DEFAULT_MODEL, ModelChoice, resolve
from tests.caller import settings

LONG = " ".join(f"The registry stores entry {n} under its checksum and rejects a duplicate." for n in range(40))


@pytest.fixture(scope="module")
def packaged(model_cache: Path) -> ModelChoice:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        patch.delenv("DOCIR_MODEL_PATH", raising=False)
        choice = resolve(settings(), None)
    assert choice.source == "packaged", choice.source
    return choice


@pytest.fixture(scope="module")
def own(packaged: ModelChoice) -> OnnxEmbedder:
    embedder = load_embedder(packaged)
    assert isinstance(embedder, OnnxEmbedder)  # the packaged model is mean-pooled: docir runs it itself
    return embedder


def test_same_vectors_as_fastembed_in_the_callers_order(packaged: ModelChoice) -> None:
    # Mixed lengths out of order, one past the window: the batches are sorted inside, the answer is not.
    # The file as shipped computes in floats, so fastembed's batches of 32 give its vectors exactly.
    assert packaged.path is not None
    shipped = ModelChoice(packaged.name, packaged.path.parent / packaged.path.name.removesuffix(f"-{BUILD}"),
                          "packaged")
    texts = [LONG, "cache", "How does a contract signal which token interfaces it supports?",
             "A\n\n" + LONG[:600], "deploy rollback", LONG[:200]]
    own = load_embedder(shipped)
    assert isinstance(own, OnnxEmbedder)
    reference = FastembedEmbedder(shipped)
    mine, theirs = own.embed(texts), reference.embed(texts)
    assert mine.shape == theirs.shape == (len(texts), own.dim) and mine.dtype == np.float32
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)
    cosines = (mine * theirs).sum(axis=1)
    assert cosines.min() > 0.9999, cosines
    assert (own.model_id, own.dim, own.max_tokens) == (reference.model_id, reference.dim, reference.max_tokens)
    assert own.count_tokens(LONG) == reference.count_tokens(LONG) > own.max_tokens


def test_the_model_reads_its_window_and_no_further(own: OnnxEmbedder) -> None:
    head = LONG[: len(LONG) // 2]
    assert 256 < own.count_tokens(head) < 300  # past the window, well within fastembed's default 512
    past = own.embed([head + " Unrelated: volcanoes erupt.", head + " Unrelated: tides and moons."])
    assert float(past[0] @ past[1]) > 0.99999  # the tails lie beyond 256 tokens: never read
    within = own.embed([LONG[:300] + " volcanoes erupt", LONG[:300] + " tides and moons"])
    assert float(within[0] @ within[1]) < 0.999


def test_one_text_or_none(own: OnnxEmbedder) -> None:
    assert own.embed([]).shape == (0, own.dim)
    one = own.embed(["cache"])
    assert float(one[0] @ own.embed(["cache", LONG])[0]) > 0.9999  # a batch's padding never leaks in


def test_the_session_keeps_no_memory_pattern_per_shape(own: OnnxEmbedder) -> None:
    """Sorted batches come in dozens of widths; a plan kept per width took 0.8 GB on a flush of 150 EIPs."""
    assert own._session.get_session_options().enable_mem_pattern is False


def test_idle_pool_threads_do_not_spin(own: OnnxEmbedder) -> None:
    # Spinning threads burn the CPU other commands of the worker need (see OnnxEmbedder.__init__).
    options = own._session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_a_model_of_another_pooling_goes_through_fastembed(packaged: ModelChoice,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str | None] = []

    def record(self: FastembedEmbedder, choice: ModelChoice, threads: int | None = None) -> None:
        loaded.append(choice.name)

    monkeypatch.setattr(FastembedEmbedder, "__init__", record)
    other = ModelChoice(DEFAULT_MODEL, packaged.path, "explicit")  # bge-small takes [CLS], not the mean
    assert isinstance(load_embedder(other), FastembedEmbedder) and loaded == [DEFAULT_MODEL]


def test_one_tokenizer_cuts_each_text_where_the_tokenizers_own_truncation_does(packaged: ModelChoice,
                                                                             own: OnnxEmbedder) -> None:
    """The embedder counts and embeds with one tokenizer (loaded once) and cuts the window itself."""
    assert packaged.path is not None
    mine = own
    truncating = Tokenizer.from_file(str(packaged.path / "tokenizer.json"))
    truncating.enable_truncation(max_length=mine.max_tokens)
    truncating.no_padding()
    words = LONG.split()
    texts = [" ".join(words[:n]) for n in range(0, len(words), 7)] + [LONG + " tokenizer_json CamelCase"]
    assert max(mine.count_tokens(t) for t in texts) > mine.max_tokens > min(mine.count_tokens(t) for t in texts)
    assert [mine._window(mine.tokenizer.encode(t).ids) for t in texts] == [truncating.encode(t).ids for t in texts]


class _Watched:
    """A session whose runs are recorded: which thread ran them, and how many ran at once."""

    def __init__(self, session: object, meet: int = 0, fail_on: int = -1) -> None:
        import threading

        self._session = session
        self._lock = threading.Lock()
        self._meet = threading.Barrier(meet) if meet else None
        self._met: set[int] = set()
        self._fail_on = fail_on
        self.threads: list[int] = []
        self.running = 0
        self.most = 0

    def get_inputs(self) -> object:
        return self._session.get_inputs()  # type: ignore[attr-defined]

    def run(self, names: object, feeds: object) -> object:
        import threading

        me = threading.get_ident()
        with self._lock:
            self.threads.append(me)
            self.running += 1
            self.most = max(self.most, self.running)
            first, count = me not in self._met, len(self.threads)
            self._met.add(me)
        try:
            if self._meet is not None and first:
                self._meet.wait(timeout=60)  # each thread's first run waits for the other's: both run at once
            if count == self._fail_on:
                raise MemoryError("the runtime's arena could not grow")
            return self._session.run(names, feeds)  # type: ignore[attr-defined]
        finally:
            with self._lock:
                self.running -= 1


MIXED = [LONG, "cache", "How does a contract signal which token interfaces it supports?", "A\n\n" + LONG[:600],
         "deploy rollback", LONG[:200], *(f"Entry {n} is stored under its checksum." for n in range(12))]


def test_a_calls_texts_run_side_by_side_one_core_a_run(packaged: ModelChoice, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs share one session, each on one core; the vectors are those of one run after another."""
    alone = OnnxEmbedder(packaged, runs=1)
    beside = OnnxEmbedder(packaged, runs=2)
    assert beside._session.get_session_options().intra_op_num_threads == 1
    watched = _Watched(beside._session, meet=2)
    monkeypatch.setattr(beside, "_session", watched)
    mine, theirs = beside.embed(MIXED), alone.embed(MIXED)
    assert len(set(watched.threads)) == 2 and watched.most == 2  # the barrier let neither go on alone
    assert np.allclose(mine, theirs, atol=1e-6)
    assert float((mine * theirs).sum(axis=1).min()) > 0.99999


def test_a_query_runs_on_its_callers_thread(packaged: ModelChoice, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    beside = OnnxEmbedder(packaged, runs=2)
    watched = _Watched(beside._session)
    monkeypatch.setattr(beside, "_session", watched)
    beside.embed(["which decision replaced the cache design?"])
    assert watched.threads == [threading.get_ident()]


def test_a_run_that_fails_beside_fails_the_call_and_no_run_outlives_it(packaged: ModelChoice,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    beside = OnnxEmbedder(packaged, runs=2)
    watched = _Watched(beside._session, meet=2, fail_on=2)  # the second run, on whichever thread
    monkeypatch.setattr(beside, "_session", watched)
    with pytest.raises(MemoryError):
        beside.embed(MIXED)
    assert watched.running == 0  # every thread beside was waited for: no run outlives the call
    assert len(watched.threads) < -(-len(MIXED) // BATCH)  # the batches still waiting were not started
