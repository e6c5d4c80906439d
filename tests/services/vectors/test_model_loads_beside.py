"""A one-shot command's model loads on a thread of its own while the command ranks the index by its words."""

from __future__ import annotations

import gc
import shutil
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest

from docir.embed import load
from docir.embed.resolve import resolve
from docir.services.retrieval import lexical, local_ranking
from docir.services.vectors import query_source
from docir.services.vectors.query_source import LoadingModel, NoModel
from tests.caller import caller, settings

TASK = "how are login sessions renewed"


def ids(result: Any) -> list[str]:
    return [row["id"] for row in result.results]


@pytest.fixture
def choice(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.setenv("DOCIR_WORKER", "0")
    found = resolve(settings(), None)
    assert found.available, found.source
    return found


def test_context_without_a_worker_gets_a_model_that_loads_beside_it(semantic_session: Any, choice: Any) -> None:
    session, _ = semantic_session
    source = query_source.query_source(caller(), None, session.store.root, beside=True)
    assert isinstance(source, LoadingModel) and source.model_id == choice.model_id
    assert source.status == "on"
    # A command that drains what is due (lint --deep) needs the model in hand: it is loaded at once.
    assert isinstance(query_source.query_source(caller(), None, session.store.root), query_source.LocalModel)


def test_the_index_is_ranked_by_its_words_while_the_model_loads(semantic_session: Any, choice: Any,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    session, loaded = semantic_session
    ranking = threading.Event()
    seen: list[bool] = []
    sections = lexical.LexicalLists.sections

    def ranked_by_words(*args: Any, **kwargs: Any) -> Any:
        ranking.set()
        return sections(*args, **kwargs)

    def slow_load(*_: Any) -> Any:
        seen.append(ranking.wait(60))  # a load that held up the ranking would wait here in vain
        return loaded.embedder

    monkeypatch.setattr(lexical.LexicalLists, "sections", ranked_by_words)
    monkeypatch.setattr(load, "load_embedder", slow_load)
    beside = local_ranking.context(session, [TASK], LoadingModel(choice), limit=5)
    assert seen == [True]
    expected = local_ranking.context(session, [TASK], loaded, limit=5)
    assert ids(beside) == ids(expected) and beside.semantic == "on"
    assert [row["score"] for row in beside.results] == [row["score"] for row in expected.results]


def test_a_model_that_does_not_load_leaves_the_ranking_by_words(semantic_session: Any, choice: Any,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    session, _ = semantic_session

    def broken(*_: Any) -> Any:
        raise RuntimeError("protobuf parsing failed")

    monkeypatch.setattr(load, "load_embedder", broken)
    failed = local_ranking.context(session, [TASK], LoadingModel(choice), limit=5)
    by_words = local_ranking.context(session, [TASK], NoModel("none"), limit=5)
    assert ids(failed) == ids(by_words) and ids(failed)
    assert failed.semantic == f"off: model at {choice.path} failed to load (protobuf parsing failed)"
    assert (failed.pending, failed.sections_pending) == (0, 0)


@pytest.mark.parametrize("with_peer", [False, True])
def test_a_model_folder_that_does_not_load_answers_by_words_through_the_command(
        cli: Any, sample_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_peer: bool) -> None:
    """End to end, alone and with a peer store (whose query vectors are computed before any ranking)."""
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not a model")
    (broken / "tokenizer.json").write_text("{}")
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(broken))
    monkeypatch.setenv("DOCIR_WORKER", "0")
    peer = tmp_path / "peer"
    shutil.copytree(sample_store, peer)
    more = ["--store", str(peer)] if with_peer else []
    result = cli("context", "session renewal", "--root", str(sample_store), "--json", *more)
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["semantic"].startswith(f"off: model at {broken} failed to load (")
    assert payload["results"] and "Traceback" not in result.err


def test_a_commands_model_goes_with_the_command(choice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that runs many one-shot commands (a script calling `main`) keeps none of their models:
    holding each one ran a test session of 1,000 cold contexts out of memory."""

    class Model:
        def embed(self, texts: Any) -> Any:
            return texts

    loaded: list[weakref.ref[Model]] = []

    def load_one(*_: Any) -> Model:
        model = Model()
        loaded.append(weakref.ref(model))
        return model

    monkeypatch.setattr(load, "load_embedder", load_one)
    for _ in range(3):
        source = LoadingModel(choice)
        assert source.embed(["x"]) == ["x"] and source.status == "on"
    del source
    gc.collect()
    assert len(loaded) == 3 and all(ref() is None for ref in loaded)
    query_source._UNFINISHED.wait()  # what the process waits for at exit: nothing, every load ended
