"""docir's own ONNX Runtime session gives the packaged model's vectors exactly as fastembed does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from docir.embed.fastembed_model import FastembedEmbedder
from docir.embed.load import load_embedder
from docir.embed.model_ids import BUILD
from docir.embed.onnx_model import OnnxEmbedder
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
