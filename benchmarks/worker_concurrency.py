"""The warm worker under many clients, and reads while it flushes.

    python -m benchmarks.worker_concurrency [--docs 1000] [--clients 8] [--calls 20] [--flush-docs 500]

A deterministic store (benchmarks/generate.py, seed 7) is kept, indexed and fully embedded, in
benchmarks/.cache/concurrency-store-<N>/ (the first run embeds it: minutes on 2 cores). Then,
with the store's warm worker running (`docir worker start`), every call a whole
`python -m docir ...` process with stdout to a pipe, as an agent runs it:

  1. clients   one client makes --calls `context` calls in a row; then --clients clients do the
               same at once. p50 and p95 of each call's wall time; target: p95 with many clients
               at most 4x the single client's p50.
  2. flush     `search`, `get` and `context` in turn, idle; then the same while the worker
               embeds --flush-docs documents that were just edited (a line appended to each,
               `reindex`, `embed --flush` forwarded to the worker). p50/p95 of each;
               target: p95 during the flush at most 3x idle.

Prints a table, writes benchmarks/results/worker_concurrency.json.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks import _harness as harness

QUERIES = ("how are cache invalidation events propagated", "retry policy for failed webhook deliveries",
           "who owns the session store migration", "rate limits on the public API gateway")


def docir(root: Path, *args: str, worker: bool = True, check: bool = True) -> tuple[float, str]:
    """One `python -m docir ARGS --root ROOT` with the model: its wall ms and stdout."""
    ran = harness.run(harness.docir_argv(*args, "--root", str(root)), what=f"docir {' '.join(args)}",
                      env=harness.model_env(worker), ok_codes=(0,) if check else range(256))
    return ran.ms, ran.stdout.decode()


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_ms": round(statistics.median(values), 1),
            "p95_ms": round(harness.percentile(values, 0.95), 1), "max_ms": round(max(values), 1)}


def prepare(cache: Path, docs: int) -> tuple[Path, list[str]]:
    root = cache / f"concurrency-store-{docs}"
    key = harness.store_key()
    info = harness.cached_marker(root, key, docs, harness.SEED)
    if info is not None:
        ids = list(info["ids"])
    else:
        print(f"generating {docs} documents in {root}", file=sys.stderr)
        ids, _ = harness.fresh_store(root, docs, harness.SEED)
        harness.write_marker(root, key, docs, harness.SEED, ids)
    docir(root, "worker", "stop")
    docir(root, "reindex", worker=False)
    _, out = docir(root, "embed", "--status", "--json", worker=False)
    if json.loads(out)["due"]:
        print(f"embedding {json.loads(out)['due']} documents once (kept for later runs)", file=sys.stderr)
        docir(root, "embed", "--flush", "--json", worker=False)
    return root, ids


def calls(root: Path, count: int, query: str) -> list[float]:
    return [docir(root, "context", query, "--json")[0] for _ in range(count)]


def bench_clients(root: Path, clients: int, count: int) -> dict[str, Any]:
    calls(root, 3, QUERIES[0])  # warm the worker's caches
    alone = calls(root, count, QUERIES[0])
    together: list[float] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        mine = calls(root, count, QUERIES[n % len(QUERIES)])
        with lock:
            together.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    one, many = summary(alone), summary(together)
    return {"one_client": one, f"{clients}_clients": many, "wall_s": round(wall, 2),
            "p95_over_single_p50": round(many["p95_ms"] / one["p50_ms"], 2), "target": 4.0}


READS = ("search", "get", "context")  # what read_round times, in its order


def read_round(root: Path, ids: list[str], n: int) -> dict[str, float]:
    return {"search": docir(root, "search", QUERIES[n % len(QUERIES)], "--json")[0],
            "get": docir(root, "get", ids[n % len(ids)], ids[(n * 7) % len(ids)], "--json")[0],
            "context": docir(root, "context", QUERIES[n % len(QUERIES)], "--json")[0]}


def bench_flush(root: Path, ids: list[str], flush_docs: int, rounds: int) -> dict[str, Any]:
    idle: dict[str, list[float]] = {read: [] for read in READS}
    for n in range(rounds):
        for key, value in read_round(root, ids, n).items():
            idle[key].append(value)
    stamp = time.time_ns()
    files = sorted((root / "docs").rglob("*.md"))[:flush_docs]
    for n, path in enumerate(files):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"\nEdited for the flush benchmark, run {stamp}, file {n}.\n")
    docir(root, "reindex", worker=False)
    began = time.perf_counter()
    flush = subprocess.Popen(harness.docir_argv("embed", "--flush", "--json", "--root", str(root)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=harness.model_env(True))
    busy: dict[str, list[float]] = {read: [] for read in READS}
    n = 0
    while flush.poll() is None:
        for key, value in read_round(root, ids, n).items():
            if flush.poll() is None:
                busy[key].append(value)
        n += 1
    out, err = flush.communicate()
    flush_s = time.perf_counter() - began
    if flush.returncode != 0:
        raise SystemExit(f"embed --flush failed: {err}")
    report = json.loads(out)
    rows: dict[str, object] = {}
    for key in idle:
        if busy[key]:
            rows[key] = {"idle": summary(idle[key]), "during_flush": summary(busy[key]),
                         "p95_ratio": round(harness.percentile(busy[key], 0.95)
                                            / harness.percentile(idle[key], 0.95), 2)}
    return {"flush_s": round(flush_s, 1), "flush": {k: report.get(k) for k in ("documents", "texts_embedded",
                                                                              "texts_reused", "due")},
            "reads": rows, "target": 3.0}


def main(argv: list[str] | None = None) -> int:
    parser = harness.arguments("worker_concurrency", __doc__)
    parser.add_argument("--docs", type=int, default=1000, help="documents in the generated store (default 1000)")
    parser.add_argument("--clients", type=int, default=8, help="clients at once (default 8)")
    parser.add_argument("--calls", type=int, default=20, help="context calls per client (default 20)")
    parser.add_argument("--flush-docs", type=int, default=500, help="documents edited, then flushed (default 500)")
    parser.add_argument("--rounds", type=int, default=15, help="idle rounds of search/get/context (default 15)")
    parser.add_argument("--cache", type=Path, default=harness.CACHE, help="where the generated store is kept")
    args = parser.parse_args(argv)
    machine = harness.machine_info()
    root, ids = prepare(args.cache, args.docs)
    docir(root, "worker", "start")
    try:
        clients = bench_clients(root, args.clients, args.calls)
        flush = bench_flush(root, ids, args.flush_docs, args.rounds)
    finally:
        docir(root, "worker", "stop", check=False)
    result: dict[str, Any] = {"docs": args.docs, "machine": machine, "clients": clients, "flush": flush}
    part_one = [[key, row["n"], row["p50_ms"], row["p95_ms"], row["max_ms"]] for key, row in clients.items()
                if key.endswith("client") or key.endswith("clients")]
    title = ["1. warm context calls: one client vs many at once",
             *harness.table([("", ""), ("n", "d"), ("p50 ms", ".1f"), ("p95 ms", ".1f"), ("max ms", ".1f")], part_one),
             f"p95 (many) / p50 (one) = {clients['p95_over_single_p50']} (target <= {clients['target']})",
             "", f"2. reads while a flush runs ({flush['flush_s']} s, {flush['flush']})"]
    rows = [[key, row["idle"]["p50_ms"], row["idle"]["p95_ms"], row["during_flush"]["p50_ms"],
             row["during_flush"]["p95_ms"], row["during_flush"]["n"], row["p95_ratio"]]
            for key, row in flush["reads"].items()]
    harness.report("worker_concurrency", result, title=title, out=args.out, rows=rows,
           columns=[("", ""), ("idle p50", ".1f"), ("idle p95", ".1f"), ("flush p50", ".1f"), ("flush p95", ".1f"),
                    ("n", "d"), ("p95 x", ".2f")],
           notes=[f"target: p95 during the flush <= {flush['target']}x idle"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
