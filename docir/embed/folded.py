"""The model file docir loads, its graph folded once beforehand, so loading it costs less (adr-b2e4ea87c5b3).

ONNX Runtime optimises a model's graph every time a session loads it. For the packaged file most of
that is constant folding: before every MatMul its int8 weights are cast and scaled back to floats,
and each load folds them into plain float initialisers again. Folded once, with the runtime's own
basic, hardware-independent level, and saved beside the model with its weights in a file of their
own (which the runtime maps in, where parsing them out of one protobuf took most of a load), the
file loads in about a third of the time, with every later optimisation still applied at load time:
the graph the session runs is the one it ran before. Two steps the runtime does not fuse itself
are then joined (graph_edits.py, where the `onnx` package is installed): 10-14% of a run.

That is checked, not assumed: the folded file is kept only if its outputs are the source's on a probe
batch (padded, so the mask counts), to within `TOLERANCE` (the joined GELU rounds its last bits
otherwise: 1.3e-7 on 600 paragraphs' vectors), so a vector the source made and one the folded file
made are the same vector, under the same model id. Otherwise the folder is made without it, and the
source runs as before. The marker holds the runtime's version and the source's size and modification time,
so a new runtime or a new source folds again, once. Only docir's own model folders (in its cache) are
folded: a folder the user names is never written into.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docir.embed import staged

RECIPE = "folded3"  # change when what is saved changes: every folder is made again
# The most any output of the folded file may differ from the source's on the probe, as a share of the
# output's largest value (the hidden states reach about 10; the joined GELU moved them by 4e-6).
TOLERANCE = 1e-5
SUFFIX = ".folded"  # the folded folder sits beside its source folder, under its name plus this
WEIGHTS = "weights.data"  # the folded graph's initialisers, beside it


def model_file(source: Path, ort: Any) -> Path:
    """The file to load for the model file `source`: its folded copy, made now if it is not there yet,
    or `source` itself where folding fails or changes a single output bit."""
    try:
        stat = source.stat()
        target = source.parent.parent / f"{source.parent.name}{SUFFIX}"
        key = f"{RECIPE} onnxruntime {ort.__version__} {stat.st_size} {stat.st_mtime_ns}\n"
        if not staged.made(target, key):
            staged.make(target, key, lambda staging: _fold(source, staging / source.name, ort))
    except Exception:  # a full disk, a read-only cache, a runtime that refuses: the source still loads
        return source
    folded = target / source.name
    return folded if folded.is_file() else source


def _fold(source: Path, folded: Path, ort: Any) -> None:
    import numpy as np

    saving = _options(ort)
    saving.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    saving.optimized_model_filepath = str(folded)
    # The weights in a file of their own, beside the graph: the runtime maps them in rather than parsing
    # them out of the graph's protobuf (a session in 54 ms instead of 150 on 2 cores).
    saving.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS)
    saving.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    ort.InferenceSession(str(source), sess_options=saving, providers=["CPUExecutionProvider"])
    _edit(folded)
    # Compared with the source as every load runs it (all optimisations), not with the saving session:
    # a session left at the basic level differs from it in the last bits (2e-6).
    outputs = [_probe(ort.InferenceSession(str(path), sess_options=_options(ort), providers=["CPUExecutionProvider"]),
                      np) for path in (source, folded)]
    if not all(a.shape == b.shape and np.max(np.abs(a - b), initial=0.0) <= TOLERANCE * np.max(np.abs(a), initial=1.0)
               for a, b in zip(*outputs, strict=True)):
        folded.unlink()  # the folder is still made: the next load does not try again
        (folded.parent / WEIGHTS).unlink()


def _edit(folded: Path) -> None:
    """The folded graph with graph_edits.py's edits, where the `onnx` package is there to make them."""
    import importlib.util

    if importlib.util.find_spec("onnx") is None:
        return
    from docir.embed import graph_edits

    graph_edits.apply(folded)


def _options(ort: Any) -> Any:
    options = ort.SessionOptions()
    options.log_severity_level = 3  # the runtime's notes on saving a graph are not the user's to read
    return options


def _probe(session: Any, np: Any) -> list[Any]:
    """Every output of `session` on two token rows of different lengths, the shorter one padded."""
    rows = [[101, 7592, 102], [101, 2023, 2003, 1037, 3231, 1997, 1996, 2944, 102]]
    width = max(len(row) for row in rows)
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for index, row in enumerate(rows):
        ids[index, : len(row)] = row
        mask[index, : len(row)] = 1
    names = {node.name for node in session.get_inputs()}
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    return list(session.run(None, {name: value for name, value in feeds.items() if name in names}))
