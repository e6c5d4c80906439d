"""The model docir runs is built once from the packaged file, in integer arithmetic (adr-5b1e0c7d2a94)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from docir.embed import quantized
from docir.embed.load import load_embedder
from docir.embed.model_ids import BUILD, OFFLINE_MODEL, answers_with
from docir.embed.resolve import MODEL_FILE, ONNX_SHA256, ModelChoice, resolve
from tests.caller import settings

TEXTS = ["How does a contract signal which token interfaces it supports?", "deploy rollback",
         "The registry stores each entry under its checksum and rejects a duplicate upload."]


@pytest.fixture(scope="module")
def packaged(model_cache: Path) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        patch.setenv("DOCIR_MODEL_BUILD", "int8")
        choice = resolve(settings(), None)
    assert choice.path is not None and choice.build == BUILD, choice
    return choice.path.parent / choice.path.name.removesuffix(f"-{BUILD}")


def operators(folder: Path) -> set[str]:
    import onnx

    return {node.op_type for node in onnx.load(str(folder / MODEL_FILE)).graph.node}


def test_the_built_file_multiplies_in_integers_and_the_shipped_one_does_not(packaged: Path) -> None:
    built = packaged.parent / f"{packaged.name}-{BUILD}"
    assert "MatMulInteger" in operators(built)
    assert "MatMulInteger" not in operators(packaged)
    assert {p.name for p in built.iterdir()} == {p.name for p in packaged.iterdir()}  # the tokenizer came along


def test_a_build_is_made_once_and_again_once_when_its_source_changes(packaged: Path, tmp_path: Path) -> None:
    source = tmp_path / "all-MiniLM-L6-v2-int8"
    shutil.copytree(packaged, source)

    first = quantized.built_folder(source, MODEL_FILE, ONNX_SHA256)
    assert first is not None
    made = (first / MODEL_FILE).stat()
    assert quantized.built_folder(source, MODEL_FILE, ONNX_SHA256) == first
    assert (first / MODEL_FILE).stat().st_ino == made.st_ino  # found, not built again

    changed = "0" * 64  # a new packaged file: another pinned sha256
    again = quantized.built_folder(source, MODEL_FILE, changed)
    assert again == first and (again / MODEL_FILE).stat().st_ino != made.st_ino
    rebuilt = (again / MODEL_FILE).stat()
    assert quantized.built_folder(source, MODEL_FILE, changed) == again
    assert (again / MODEL_FILE).stat().st_ino == rebuilt.st_ino
    assert not list(tmp_path.glob(".staging-*"))  # no staging folder left behind


def test_without_the_build_tools_the_shipped_file_runs_under_its_own_id(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("DOCIR_MODEL_BUILD", "int8")
    monkeypatch.setattr(quantized, "can_build", lambda: False)
    choice = resolve(settings(), None)
    assert choice.build is None and choice.path is not None and choice.path.name == "all-MiniLM-L6-v2-int8"
    assert choice.model_id == f"{OFFLINE_MODEL}@int8-w256"
    assert "MatMulInteger" not in operators(choice.path)


def test_unasked_the_shipped_file_runs_and_nothing_is_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a cache of its own; no DOCIR_MODEL_BUILD
    choice = resolve(settings(), None)
    assert choice.build is None and choice.model_id == f"{OFFLINE_MODEL}@int8-w256"
    assert choice.path is not None and [p.name for p in choice.path.parent.iterdir()] == [choice.path.name]


def test_a_built_vector_is_its_texts_alone(packaged: Path) -> None:
    # The built file scales each MatMul's input per run: run in a batch, a batch-mate would move it.
    built = load_embedder(ModelChoice(OFFLINE_MODEL, packaged.parent / f"{packaged.name}-{BUILD}", "packaged", BUILD))
    alone = built.embed(["cache"])
    assert float(alone[0] @ built.embed(["cache", TEXTS[2] * 20])[0]) > 0.99999


def test_the_built_vectors_stay_close_to_the_shipped_ones(packaged: Path) -> None:
    built = load_embedder(ModelChoice(OFFLINE_MODEL, packaged.parent / f"{packaged.name}-{BUILD}",
                                      "packaged", BUILD))
    shipped = load_embedder(ModelChoice(OFFLINE_MODEL, packaged, "packaged"))
    assert built.model_id != shipped.model_id
    mine, theirs = built.embed(TEXTS), shipped.embed(TEXTS)
    cosines = (mine * theirs).sum(axis=1)
    assert cosines.min() > 0.97, cosines  # the same model: an earlier build's vectors can answer
    assert not np.allclose(mine, theirs, atol=1e-4)  # yet another file: its vectors carry another id


def test_a_query_of_the_built_model_is_scored_against_the_shipped_vectors_too() -> None:
    built = f"{OFFLINE_MODEL}@{BUILD}-w256"
    assert answers_with(built) == (built, f"{OFFLINE_MODEL}@int8-w256")
    assert answers_with(f"{OFFLINE_MODEL}@int8-w256") == (f"{OFFLINE_MODEL}@int8-w256",)
    assert answers_with("BAAI/bge-small-en-v1.5@local-w512") == ("BAAI/bge-small-en-v1.5@local-w512",)
    assert answers_with(f"{OFFLINE_MODEL}@local-w256") == (f"{OFFLINE_MODEL}@local-w256",)
