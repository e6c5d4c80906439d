"""Two edits to the folded graph of the packaged model: the same arithmetic in fewer steps (adr-37283e0641c6).

The packaged all-MiniLM-L6-v2 was exported step by step, and ONNX Runtime's own fusions at load
time do not recognise two of its patterns, so every run pays for them (on 600 real paragraphs, one
core a run: 8% and 5% of the model's time):

- **The guard after each attention softmax.** `Where(IsNaN(p), 0, p)` zeroes a row whose every key
  is masked, which gives NaN. docir never sends one: the attention mask masks keys, and every text
  keeps at least its [CLS] token, so each row has a key. The guard's output is its input, to the
  bit; it is dropped.
- **GELU written out.** `x * (0.5 * (1 + Erf(x / sqrt 2)))` is five element-wise passes over the
  feed-forward's widest tensor; ONNX Runtime's `Gelu` computes the same in one (and the runtime then
  joins it with the bias before it into `BiasGelu`). It rounds differently in the last bits: outputs
  move by about 1e-7.

Both are matched exactly as the packaged file writes them; anything else is left as it is. The
folded file is kept only if its outputs match the source's on a probe (folded.py).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

GELU_DOMAIN = "com.microsoft"  # ONNX Runtime's own operators, where Gelu lives


def apply(path: Path) -> int:
    """Edit the ONNX graph at `path` in place (its weights, in a file of their own, untouched); the
    number of patterns replaced."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    graph = model.graph
    edited = _drop_nan_guards(graph) + _join_gelus(graph, onnx)
    if not edited:
        return 0
    used = {name for node in graph.node for name in node.input} | {output.name for output in graph.output}
    kept = [init for init in graph.initializer if init.name in used]  # the constants only the edited steps read
    del graph.initializer[:]
    graph.initializer.extend(kept)
    if not any(opset.domain == GELU_DOMAIN for opset in model.opset_import):
        model.opset_import.append(onnx.helper.make_opsetid(GELU_DOMAIN, 1))
    onnx.save(model, str(path))
    return edited


def _links(graph: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Each value's producing step and the steps that read it, as the graph stands."""
    producer = {output: node for node in graph.node for output in node.output}
    readers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    return producer, readers


def _drop_nan_guards(graph: Any) -> int:
    producer, readers = _links(graph)
    renamed: dict[str, str] = {}
    dropped: set[int] = set()
    for where in graph.node:
        if where.op_type != "Where" or len(where.input) != 3:
            continue
        isnan = producer.get(where.input[0])
        softmax = producer.get(where.input[2])
        if (isnan is None or softmax is None or isnan.op_type != "IsNaN" or softmax.op_type != "Softmax"
                or isnan.input[0] != softmax.output[0] or _scalar(graph, where.input[1]) != 0.0):
            continue
        if len(readers[where.input[0]]) != 1:
            continue  # the NaN test read elsewhere too: not a guard alone
        renamed[where.output[0]] = softmax.output[0]
        dropped |= {id(where), id(isnan)}
    if not dropped or any(output.name in renamed for output in graph.output):
        return 0  # none, or a guard whose output is the graph's: left as it is
    nodes = [node for node in graph.node if id(node) not in dropped]
    for node in nodes:
        for index, name in enumerate(node.input):
            if name in renamed:
                node.input[index] = renamed[name]
    del graph.node[:]
    graph.node.extend(nodes)
    return len(renamed)


def _join_gelus(graph: Any, onnx: Any) -> int:
    producer, readers = _links(graph)
    replaced: dict[int, Any] = {}
    dropped: set[int] = set()
    for erf in graph.node:
        if erf.op_type != "Erf":
            continue
        div = producer.get(erf.input[0])
        if div is None or div.op_type != "Div" or not _near(_scalar(graph, div.input[1]), math.sqrt(2)):
            continue
        x = div.input[0]
        one = _only_reader(readers, erf.output[0], "Add")
        if one is None or _scalar(graph, _other(one, erf.output[0])) != 1.0:
            continue
        half = _only_reader(readers, one.output[0], "Mul")
        if half is None or _scalar(graph, _other(half, one.output[0])) != 0.5:
            continue
        times = _only_reader(readers, half.output[0], "Mul")
        if times is None or _other(times, half.output[0]) != x:
            continue
        if any(len(readers.get(node.output[0], [])) != 1 for node in (div, erf, one, half)):
            continue
        dropped |= {id(div), id(erf), id(one), id(half)}
        replaced[id(times)] = onnx.helper.make_node("Gelu", [x], [times.output[0]], domain=GELU_DOMAIN,
                                                    name=f"{erf.name or erf.output[0]}_gelu")
    if not replaced:
        return 0
    nodes = [replaced.get(id(node), node) for node in graph.node if id(node) not in dropped]
    del graph.node[:]
    graph.node.extend(nodes)
    return len(replaced)


def _only_reader(readers: dict[str, list[Any]], name: str, op_type: str) -> Any:
    found = readers.get(name, [])
    return found[0] if len(found) == 1 and found[0].op_type == op_type and len(found[0].input) == 2 else None


def _other(node: Any, name: str) -> str:
    first, second = node.input
    return str(second if first == name else first)


def _scalar(graph: Any, name: str) -> float | None:
    """The value of a one-element constant initialiser called `name`; None for anything else."""
    from onnx import numpy_helper

    for init in graph.initializer:
        if init.name == name:
            if init.data_location == 1:  # EXTERNAL: never a one-element constant here
                return None
            value = numpy_helper.to_array(init)
            return float(value.reshape(-1)[0]) if value.size == 1 else None
    return None


def _near(value: float | None, wanted: float) -> bool:
    return value is not None and abs(value - wanted) <= 1e-6 * wanted
