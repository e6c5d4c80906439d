"""What a sketch and terms cost `docir context`, through the warm worker and in a process of its own.

    python -m benchmarks.sketch_cost [--corpus eips] [--tasks 40] [--out benchmarks/results/sketch_cost.json]

The corpus's store is built and embedded as quality/run.py builds it (run that first: the vectors are
cached). For each of the first N queries, in one round: the floor (`python -c "import sqlite3, json"`),
then `docir context TASK`, `... --sketch S` and `... --sketch S --terms T` (sketches.yaml), their order
alternating from round to round; first with the store's warm worker, then with DOCIR_WORKER=0. Medians
in ms and as ratios to the floor. Prints a table, writes JSON.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks._harness import Rounds, Samples, arguments, child_env, docir_argv, machine_info, report, run
from benchmarks.quality import run as bench
from benchmarks.quality import sketch as sketches

WAYS = ("task", "sketch", "sketch+terms")


def measure(store: Path, queries: list[bench.Query], env: dict[str, str], phase: str) -> Samples:
    """A round per query: the floor, then the three ways, in an order that alternates from round to round."""
    texts, terms = sketches.load_sketches(), sketches.load_sketches(part="terms")
    base = docir_argv("context", "--root", str(store), "--json")
    rounds = Rounds("sketch_cost", len(queries), 0, floor_env=env, label=phase)
    for i in rounds:
        q = queries[i]
        argv = {"task": [*base, q.text], "sketch": [*base, q.text, "--sketch", texts[q.id]],
                "sketch+terms": [*base, q.text, "--sketch", texts[q.id], "--terms", terms.get(q.id) or q.text]}
        for way in (WAYS if i % 2 == 0 else WAYS[::-1]):
            rounds.record(way, run(argv[way], what=f"context, {way}", env=env).ms)
    return rounds.samples


def main(argv: list[str] | None = None) -> int:
    parser = arguments("sketch_cost", __doc__)
    parser.add_argument("--corpus", default="eips", help="a corpus of quality/run.py (default eips)")
    parser.add_argument("--tasks", type=int, default=40, help="queries timed (default 40)")
    args = parser.parse_args(argv)
    store = bench.corpus_store(args.corpus, bench.DEFAULT_CACHE, print)
    if store is None:
        return 1
    session, _source = bench.open_indexed(store, print)  # every vector computed before timing
    session.close()
    queries = bench.load_corpus_queries([args.corpus])[: args.tasks]
    machine = machine_info()
    cold = child_env()
    warm = {**child_env(worker=True, with_model=True), "DOCIR_WORKER_IDLE": "300"}
    run(docir_argv("worker", "start", "--root", str(store)), what="worker start", env=warm)
    try:
        measured = {"warm": measure(store, queries, warm, "warm")}
    finally:
        run(docir_argv("worker", "stop", "--root", str(store)), what="worker stop", env=warm, ok_codes=range(256))
    measured["cold"] = measure(store, queries, cold, "cold")
    rows = []
    for phase, samples in measured.items():
        for way in WAYS:
            row = samples.row(way)
            rows.append({"phase": phase, "way": way, "median_ms": row["median_ms"], "x_floor": row["ratio"],
                         "floor_ms": samples.row("floor")["median_ms"]})
    report("sketch_cost", {"machine": machine, "corpus": args.corpus, "tasks": len(queries), "results": rows},
           out=args.out, title=[f"docir context on {args.corpus}, {len(queries)} tasks, medians (ratio to the floor "
                                "of the same phase)"],
           columns=[("phase", ""), ("way", ""), ("ms", ".1f"), ("x floor", ".2f")],
           rows=[[r["phase"], r["way"], r["median_ms"], r["x_floor"]] for r in rows])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
