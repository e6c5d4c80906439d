"""A cold `context` loads its model on a thread of its own while it reads the index: its answer is the one
a model loaded first gives, and a model that fails to load ranks as a model that failed always did."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docir.embed.resolve import resolve
from docir.services.retrieval import ranking
from docir.services.vectors.query_source import LoadingModel, ModelFailed

TASK = "where are sessions kept"


def test_a_model_loading_beside_ranks_as_a_model_loaded_first(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, loaded = semantic_session
    loading = LoadingModel(resolve(session.schema.model_path, session.store.root))
    assert loading.model_id == loaded.model_id  # known before the load: the index is read meanwhile
    beside = ranking.context(session, [TASK], loading, limit=5)
    first = ranking.context(session, [TASK], loaded, limit=5)
    assert (beside.results, beside.semantic) == (first.results, first.semantic)


def test_a_model_that_fails_to_load_says_why_when_asked(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"not a model")
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DOCIR_MODEL_PATH", str(folder))
        loading = LoadingModel(resolve(None, tmp_path))
    with pytest.raises(ModelFailed, match=f"model at {folder} failed to load"):
        loading.embed(["anything"])


def test_a_cold_context_with_a_broken_model_answers_by_words_alone(sample_store: Path, tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"not a model")
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    env = {**os.environ, "DOCIR_WORKER": "0", "DOCIR_MODEL_PATH": str(folder)}
    run = [sys.executable, "-m", "docir", "context", TASK, "--json", "--root", str(sample_store)]
    broken = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert broken.returncode == 0, broken.stderr
    answer = json.loads(broken.stdout)
    assert answer["semantic"].startswith(f"off: model at {folder} failed to load")
    (folder / "model.onnx").unlink()  # no model at all: the same lexical ranking
    none = json.loads(subprocess.run(run, capture_output=True, text=True, env=env, timeout=120).stdout)
    assert answer["results"] == none["results"] and none["semantic"].startswith("off: model folder")
