"""The folded graph's two edits (docir/embed/graph_edits.py): the NaN guard goes to the bit, GELU is joined."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime
import pytest

from docir.embed import folded, graph_edits
from docir.embed.resolve import MODEL_FILE, resolve
from tests.caller import settings


@pytest.fixture(scope="module")
def saved(model_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged graph as the fold saves it, before any edit."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        patch.delenv("DOCIR_MODEL_PATH", raising=False)
        patch.delenv("DOCIR_MODEL_BUILD", raising=False)
        choice = resolve(settings(), None)
    assert choice.path is not None
    folder = tmp_path_factory.mktemp("saved")
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folder / MODEL_FILE)
    options.add_session_config_entry("session.optimized_model_external_initializers_file_name", folded.WEIGHTS)
    options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    onnxruntime.InferenceSession(str(choice.path / MODEL_FILE), sess_options=options,
                                 providers=["CPUExecutionProvider"])
    return folder


def copy(saved: Path, tmp_path: Path) -> Path:
    shutil.copytree(saved, tmp_path / "edited")
    return tmp_path / "edited" / MODEL_FILE


def outputs(path: Path) -> list[Any]:
    return folded._probe(onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]), np)


def ops(path: Path) -> Counter[str]:
    return Counter(node.op_type for node in onnx.load(str(path), load_external_data=False).graph.node)


def test_dropping_the_nan_guards_changes_no_output_bit(saved: Path, tmp_path: Path) -> None:
    path = copy(saved, tmp_path)
    model = onnx.load(str(path), load_external_data=False)
    assert graph_edits._drop_nan_guards(model.graph) == 6  # one after each layer's softmax
    onnx.save(model, str(path))
    assert ops(path)["IsNaN"] == 0 and ops(saved / MODEL_FILE)["IsNaN"] == 6
    before, after = outputs(saved / MODEL_FILE), outputs(path)
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


def test_every_gelu_is_joined_once_and_the_outputs_hardly_move(saved: Path, tmp_path: Path) -> None:
    path = copy(saved, tmp_path)
    assert graph_edits.apply(path) == 12
    found = ops(path)
    assert (found["Gelu"], found["Erf"], found["IsNaN"]) == (6, 0, 0)
    used = {name for node in onnx.load(str(path), load_external_data=False).graph.node for name in node.input}
    assert all(init.name in used for init in onnx.load(str(path), load_external_data=False).graph.initializer)
    before, after = outputs(saved / MODEL_FILE), outputs(path)
    # The joined GELU rounds its last bits otherwise: well within what the fold accepts.
    assert all(float(np.abs(a - b).max()) <= folded.TOLERANCE * float(np.abs(a).max())
               for a, b in zip(before, after, strict=True))
    made = path.read_bytes()
    assert graph_edits.apply(path) == 0 and path.read_bytes() == made  # nothing left to match: untouched
