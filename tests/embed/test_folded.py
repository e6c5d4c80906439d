"""docir's own model folders load a graph folded once beforehand, with the same vectors (adr-b2e4ea87c5b3)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docir.embed import folded
from docir.embed.load import load_embedder
from docir.embed.onnx_model import OnnxEmbedder
from docir.embed.resolve import MODEL_FILE, ModelChoice, resolve
from tests.caller import settings

TEXTS = ["How does a contract signal which token interfaces it supports?", "deploy rollback", "x",
         " ".join(f"The registry stores entry {n} under its checksum and rejects a duplicate." for n in range(40))]


@pytest.fixture(scope="module")
def packaged(model_cache: Path) -> ModelChoice:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        patch.delenv("DOCIR_MODEL_PATH", raising=False)
        patch.delenv("DOCIR_MODEL_BUILD", raising=False)
        choice = resolve(settings(), None)
    assert choice.source == "packaged" and choice.path is not None, choice.source
    return choice


@pytest.fixture
def own_copy(packaged: ModelChoice, tmp_path: Path) -> Path:
    """A copy of the packaged folder where no folded one is yet."""
    assert packaged.path is not None
    copy = tmp_path / "models" / packaged.path.name
    shutil.copytree(packaged.path, copy)
    return copy


def ort() -> Any:
    import onnxruntime

    return onnxruntime


def test_the_folded_file_gives_the_shipped_files_vectors_within_a_millionth(packaged: ModelChoice) -> None:
    assert packaged.path is not None
    mine = load_embedder(packaged)
    assert isinstance(mine, OnnxEmbedder)
    # The same folder named by the user is read as it is: never folded, never written into.
    as_is = load_embedder(ModelChoice(packaged.name, packaged.path, "explicit"))
    assert as_is._session._model_path == str(packaged.path / MODEL_FILE)
    assert mine._session._model_path == str(packaged.path.parent / f"{packaged.path.name}{folded.SUFFIX}" / MODEL_FILE)
    assert np.abs(mine.embed(TEXTS) - as_is.embed(TEXTS)).max() <= 1e-6
    assert np.abs(mine.embed(TEXTS[:1]) - as_is.embed(TEXTS[:1])).max() <= 1e-6  # alone, unpadded
    import onnx  # the semantic extra's: the edits were made (graph_edits.py)

    ops = [node.op_type for node in onnx.load(mine._session._model_path, load_external_data=False).graph.node]
    assert ops.count("Gelu") == 6 and "IsNaN" not in ops and "Erf" not in ops


def test_a_folded_file_is_made_once_and_again_once_when_its_source_changes(own_copy: Path) -> None:
    source = own_copy / MODEL_FILE
    first = folded.model_file(source, ort())
    assert first == own_copy.parent / f"{own_copy.name}{folded.SUFFIX}" / MODEL_FILE
    assert (first.parent / folded.WEIGHTS).is_file()  # the weights beside the graph
    made = first.stat().st_ino
    assert folded.model_file(source, ort()) == first and first.stat().st_ino == made  # found, not made again

    later = source.stat().st_mtime_ns + 1_000_000_000
    os.utime(source, ns=(later, later))  # a new source file (a reinstalled package)
    again = folded.model_file(source, ort())
    assert again == first and again.stat().st_ino != made
    remade = again.stat().st_ino
    assert folded.model_file(source, ort()) == again and again.stat().st_ino == remade
    assert not list(own_copy.parent.glob(".staging-*"))


def test_a_fold_that_moves_an_output_past_the_tolerance_is_not_used_and_not_tried_again(
        own_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    probed: list[str] = []
    real = folded._probe

    def moved(session: Any, np_: Any) -> list[Any]:
        probed.append(session._model_path)
        outputs = real(session, np_)
        past = outputs[0].copy()
        past.flat[0] += 2 * folded.TOLERANCE * np_.abs(past).max()  # one value of one output
        return [past, *outputs[1:]] if len(probed) % 2 == 0 else outputs

    monkeypatch.setattr(folded, "_probe", moved)
    source = own_copy / MODEL_FILE
    assert folded.model_file(source, ort()) == source
    assert len(probed) == 2 and folded.model_file(source, ort()) == source and len(probed) == 2
    assert not any((own_copy.parent / f"{own_copy.name}{folded.SUFFIX}").glob("*.onnx"))


def test_a_cache_that_cannot_be_written_loads_the_source(own_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(folded.staged, "make", full)
    assert folded.model_file(own_copy / MODEL_FILE, ort()) == own_copy / MODEL_FILE
