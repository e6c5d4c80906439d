"""CI gate on ranking quality (SPEC §5, §11), with the real offline model.

Both benchmark corpora (benchmarks/quality/corpus and this repository's docs/) are copied
to tmp_path, indexed and embedded, and every query in benchmarks/quality/queries.yaml is
run lexically, by vector and fused. The fused ranking must beat both single rankings on
nDCG@10, and its recall@10 must not fall below the stored baseline (minus 0.005).

Refresh the baseline only on purpose, after a ranking change that is meant to move it:
    python benchmarks/quality/run.py --write-baseline
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
QUALITY = REPO / "benchmarks" / "quality"
TOLERANCE = 0.005


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docir_quality_benchmark", QUALITY / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_queries_are_judged_against_existing_documents_and_paraphrases_share_no_words() -> None:
    bench = _benchmark()
    queries = bench.load_queries()
    fields = {name: bench.read_fields(root) for name, root in bench.CORPORA.items()}
    assert bench.check_queries(queries, fields) == []
    assert len(queries) >= 70
    assert sum(q.kind == "paraphrase" for q in queries) >= 25


def test_fused_beats_lexical_and_vector_and_recall_holds_the_baseline(tmp_path: Path) -> None:
    from docir.embed.resolve import resolve

    if not resolve(None).available:  # the temp HOME of conftest: assembled from the installed packages
        pytest.skip("the offline embedding model is not installed (see docir.embed.resolve.OFFLINE_INSTALL)")
    bench = _benchmark()
    started = time.perf_counter()
    _runs, summary = bench.evaluate_corpora(["quality", "docir"], tmp_path, log=print)
    print(f"quality gate: {time.perf_counter() - started:.1f}s")
    print(bench.table(summary, "quality gate"))

    overall = {mode: summary[mode]["all"] for mode in bench.MODES}
    fused, lexical, vector = overall["fused"], overall["lexical"], overall["vector"]
    report = ", ".join(f"{mode} nDCG@10 {overall[mode]['ndcg@10']:.3f} recall@10 {overall[mode]['recall@10']:.3f}"
                       for mode in bench.MODES)
    assert fused["ndcg@10"] > lexical["ndcg@10"], f"fused does not beat lexical: {report}"
    assert fused["ndcg@10"] > vector["ndcg@10"], f"fused does not beat vector: {report}"

    baseline = json.loads((QUALITY / "baseline.json").read_text(encoding="utf-8"))
    floor = baseline["fused"]["recall@10"] - TOLERANCE
    assert fused["recall@10"] >= floor, (
        f"fused recall@10 fell to {fused['recall@10']:.3f}, below the baseline "
        f"{baseline['fused']['recall@10']:.3f} - {TOLERANCE}: {report}")
