"""Evaluate candidate fusion settings through the real `ranking.context`, by monkeypatching.

    python -m benchmarks.quality.fusion_variants [--benchdata] [--out benchmarks/results/fusion_variants.json]

Nothing in docir/ is edited: each variant sets module constants of docir.services.retrieval.fusion
(SECTION_WEIGHT, NEAR_WEIGHT, VECTOR_WEIGHT, COVERAGE_POWER) for the duration of one evaluation,
then restores them. Uses the same stores, cache and queries as run.py (run that first so the
vectors are cached): the quality and docir corpora, and the EIPs when ../shared/benchdata has them.
The variants and what they scored are recorded in adr-78d1238b4ae2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks._harness import report
from benchmarks.quality import run as bench


@contextmanager
def patched(**constants: Any) -> Iterator[None]:
    from docir.services.retrieval import fusion

    saved = {name: getattr(fusion, name) for name in constants}
    try:
        for name, value in constants.items():
            setattr(fusion, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(fusion, name, value)


VARIANTS: dict[str, Callable[[], Any]] = {
    "docir": lambda: patched(),  # sections + near + vector, z-scores, coverage**1: what docir does today
    "no-near": lambda: patched(NEAR_WEIGHT=0.0),
    "no-coverage": lambda: patched(COVERAGE_POWER=0.0),
    "coverage2": lambda: patched(COVERAGE_POWER=2.0),
    "vector-1.3": lambda: patched(VECTOR_WEIGHT=1.3),
    "sections-1.5": lambda: patched(SECTION_WEIGHT=1.5),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchdata", action="store_true", help="also Cranfield")
    parser.add_argument("--cache", type=Path, default=bench.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, help="JSON output (default benchmarks/results/fusion_variants.json)")
    args = parser.parse_args()

    stores: list[tuple[str, Path, list[bench.Query]]] = []
    names = ["quality", "docir"] + (["eips"] if (bench.BENCHDATA / "eips").is_dir() else [])
    queries = bench.load_corpus_queries(names)
    for name in names:
        store = bench.corpus_store(name, args.cache, print)
        if store is not None:
            stores.append((name, store, [q for q in queries if q.corpus == name]))
    if args.benchdata and (bench.BENCHDATA / "cranfield" / "cran.all.1400").is_file():
        store, cran = bench.build_cranfield(bench.BENCHDATA / "cranfield", args.cache / "cranfield")
        stores.append(("cranfield", store, cran))

    sessions = {name: bench.open_indexed(store, print) for name, store, _ in stores}
    results: dict[str, Any] = {}
    try:
        for variant, make in VARIANTS.items():
            per_corpus: dict[str, list[bench.QueryRun]] = {}
            with make():
                for name, _store, qs in stores:
                    session, source = sessions[name]
                    per_corpus[name] = bench.run_queries(session, source, qs)
            ours = per_corpus["quality"] + per_corpus["docir"]
            results[variant] = {"quality+docir": bench.summarise(ours)}
            if "eips" in per_corpus:
                results[variant]["eips"] = bench.summarise(per_corpus["eips"])
            if "cranfield" in per_corpus:
                cranfield = bench.summarise(per_corpus["cranfield"])
                results[variant]["cranfield"] = {m: {"all": s["all"]} for m, s in cranfield.items()}
    finally:
        for session, _source in sessions.values():
            session.close()

    groups = ["all", "corpus:quality", "corpus:docir", "kind:lexical", "kind:paraphrase"]
    rows: list[list[object]] = []
    notes = []
    for variant, res in results.items():
        for mode in bench.MODES:
            row = res["quality+docir"][mode]
            cran = res.get("cranfield", {}).get(mode, {}).get("all", {}).get("ndcg@10")
            rows.append([variant, mode, *(row[g]["ndcg@10"] for g in groups), cran])
        fused = res["quality+docir"]["fused"]["all"]
        notes.append(f"{variant}: fused recall@10 {fused['recall@10']:.3f}, MRR@10 {fused['mrr@10']:.3f}")
        if "eips" in res:
            eips = {mode: res["eips"][mode]["all"] for mode in bench.MODES}
            notes.append(f"{variant}: eips nDCG@10 " + ", ".join(f"{m} {eips[m]['ndcg@10']:.3f}" for m in bench.MODES)
                         + f"; fused answer@1 {eips['fused']['answer@1']:.3f}")
    report("fusion_variants", {"variants": results}, out=args.out, title=["nDCG@10 by variant and mode"],
           columns=[("variant", ""), ("mode", ""), *((g, ".3f") for g in groups), ("cranfield", ".3f")],
           rows=rows, notes=["", *notes])
    return 0


if __name__ == "__main__":
    sys.exit(main())
