"""What a sketch and terms cost `docir context`, through the warm worker and in a process of its own.

    python benchmarks/sketch_cost.py [--corpus eips] [--tasks 40] [--out benchmarks/results/sketch_cost.json]

The corpus's store is built and embedded as quality/run.py builds it (run that first: the vectors are
cached). For each of the first N queries, in one round: the floor (`python -c "import sqlite3, json"`),
then `docir context TASK`, `... --sketch S` and `... --sketch S --terms T` (sketches.yaml), their order
alternating from round to round; first with the store's warm worker, then with DOCIR_WORKER=0. Medians
in ms and as ratios to the floor. Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "quality"))

import run as bench  # benchmarks/ is not a package
import sketch as sketches
from speed import FLOOR_ARGV, child_env, machine_info, write_results

WAYS = ("task", "sketch", "sketch+terms")


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"sketch_cost: {' '.join(argv[:4])} ... failed: {done.stderr.decode()[-500:]}")
    return elapsed * 1000


def measure(store: Path, queries: list[bench.Query], env: dict[str, str]) -> dict[str, list[float]]:
    texts, terms = sketches.load_sketches(), sketches.load_sketches(part="terms")
    samples: dict[str, list[float]] = {"floor": [], **{way: [] for way in WAYS}}
    base = [sys.executable, "-m", "docir", "context", "--root", str(store), "--json"]
    for i, q in enumerate(queries):
        samples["floor"].append(timed(FLOOR_ARGV, env))
        argv = {"task": [*base, q.text], "sketch": [*base, q.text, "--sketch", texts[q.id]],
                "sketch+terms": [*base, q.text, "--sketch", texts[q.id], "--terms", terms.get(q.id) or q.text]}
        for way in (WAYS if i % 2 == 0 else WAYS[::-1]):
            samples[way].append(timed(argv[way], env))
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="eips", help="a corpus of quality/run.py (default eips)")
    parser.add_argument("--tasks", type=int, default=40, help="queries timed (default 40)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "sketch_cost.json")
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
    worker = [sys.executable, "-m", "docir", "worker"]
    subprocess.run([*worker, "start", "--root", str(store)], env=warm, capture_output=True, check=True)
    try:
        measured = {"warm": measure(store, queries, warm)}
    finally:
        subprocess.run([*worker, "stop", "--root", str(store)], env=warm, capture_output=True, check=False)
    measured["cold"] = measure(store, queries, cold)
    rows = []
    for phase, samples in measured.items():
        floor = statistics.median(samples["floor"])
        for way in WAYS:
            median = statistics.median(samples[way])
            rows.append({"phase": phase, "way": way, "median_ms": round(median, 1),
                         "x_floor": round(median / floor, 2), "floor_ms": round(floor, 1)})
    print(f"docir context on {args.corpus}, {len(queries)} tasks, medians (ratio to the floor of the same phase)")
    print(f"{'phase':6} {'way':14} {'ms':>8} {'x floor':>8}")
    for row in rows:
        print(f"{row['phase']:6} {row['way']:14} {row['median_ms']:>8.1f} {row['x_floor']:>8.2f}")
    write_results(args.out, {"benchmark": "sketch_cost", "machine": machine, "corpus": args.corpus,
                             "tasks": len(queries), "results": rows}, machine)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
