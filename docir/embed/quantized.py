"""The packaged model built once, on request, for integer arithmetic per channel (adr-5b1e0c7d2a94).

The packaged all-MiniLM-L6-v2 file stores int8 weights but computes in float: before every
MatMul a Cast and a Mul turn the weights back into floats, so each query and each section is
multiplied out at float speed. Built here, with ONNX Runtime's own tools: constant folding turns
those weights into plain float initialisers (the graph the packaged file describes, evaluated),
then dynamic quantization gives each MatMul int8 weights with one scale per output channel and
int8 activations quantized per run (MatMulInteger). On 800 real paragraphs on 2 cores it ran
1.97x faster, its vectors at cosine 0.993 mean, 0.982 least, to the packaged file's.

Left in floats, each feed-forward block's second MatMul (whose input, the GELU's output, holds
the widest values) gave vectors at cosine 0.997 at 1.6x; smoothing activation outliers into the
weights (SmoothQuant, calibrated on random word pieces) gave 0.991-0.995. Neither ranked the
judged corpora better than the whole build, whose changes there are a few near ties either way
(benchmarks/model_build.py), so the recipe is the plain one.

The build needs the `onnx` package (in the `semantic` extra); where it is missing, or a build
fails, the packaged file is run as it is, under its own model id, so a vector always says which
file made it. The folder is built once per machine and per `BUILD`: staged, then renamed into
place, as the packaged model is assembled (adr-2906c6740caa).
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
from pathlib import Path

from docir.embed import staged
from docir.embed.model_ids import BUILD


def can_build() -> bool:
    """Whether this machine has the tools to build, found without importing them (a command's cold start)."""
    return all(importlib.util.find_spec(module) is not None for module in ("onnx", "onnxruntime"))


def built_folder(packaged: Path, model_file: str, source_sha256: str) -> Path | None:
    """The built `model_file` beside `packaged` (its other files copied), built now if it is not there
    yet; None where it cannot be built.

    The marker holds the source's pinned sha256 and the recipe, so a new packaged file or a new
    recipe builds again, once, and a build interrupted part-way is never loaded.
    """
    target = packaged.parent / f"{packaged.name}-{BUILD}"
    key = f"{BUILD} {source_sha256}\n"
    if staged.made(target, key):
        return target
    if not can_build():
        return None
    try:
        staged.make(target, key, lambda staging: _build(packaged, model_file, staging))
    except Exception:  # any failure of ONNX's tools, a full disk: the packaged file still answers
        return None
    for older in packaged.parent.glob(f"{packaged.name}-*"):  # another recipe's build: no longer used
        if older != target:
            shutil.rmtree(older, ignore_errors=True)  # (a process running it keeps its file open: no harm)
    return target


def _build(packaged: Path, model_file: str, staging: Path) -> None:
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = staging / "folded.onnx"
    options = ort.SessionOptions()
    # Basic optimisations are the graph-level ones that hold on any machine (constant folding,
    # redundant node removal); the hardware-specific ones are left to the session that runs it.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(packaged / model_file), sess_options=options, providers=["CPUExecutionProvider"])
    logging.disable(logging.WARNING)  # the quantizer's advice, on the root logger, is not the user's to read
    try:
        quantize_dynamic(str(folded), str(staging / model_file), per_channel=True, weight_type=QuantType.QInt8)
    finally:
        logging.disable(logging.NOTSET)
    folded.unlink()
    for path in packaged.iterdir():  # the tokenizer and its configuration, as they are
        if path.is_file() and path.name not in (model_file, staged.MARKER):
            shutil.copyfile(path, staging / path.name)
