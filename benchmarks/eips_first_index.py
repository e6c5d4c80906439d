"""A first index of long real documents (the EIPs): time to the first fused answer, and the full flush.

    python -m benchmarks.eips_first_index [--src ../shared/benchdata/eips] [--skip-flush]
    python -m benchmarks.eips_first_index --skip-fused --flush-eips 150 --repeat 3   # the flush, iterating

The store is built once by benchmarks/quality/eips.py into benchmarks/.cache/eips-store/.

  1. first fused context   the index is deleted; `docir reindex` runs with the warm worker on
                           (it starts one, which drains in the background); then `docir context`
                           is asked every half second until it reports "pending": 0 (every
                           document has its document vector, so ranking is fused). Reported:
                           seconds from the reindex to that answer, and how many documents
                           still waited for their sections then. Target: under 2 minutes.
  2. full first flush      the index is deleted and rebuilt (`reindex`, no worker), then
                           `docir embed --flush` embeds everything in its own process
                           (DOCIR_WORKER=0). Against it, benchmarks/embed_throughput.py's bare
                           ONNX Runtime session on exactly the texts docir embeds (its
                           --dump-texts), truncation 256 and 512. With --repeat N, N rounds, the
                           order of the sides rotated every round and the index rebuilt (untimed)
                           before each docir run: on a shared machine one run of each side says
                           more about the neighbours than about docir. Reported: median wall time,
                           texts/s, peak RSS of each process (the largest of its runs), the ratio
                           docir / bare of the medians, and whether any text went through the model
                           twice (texts_embedded against distinct texts, in every docir run).
                           Target: at least 0.85 of the bare session.

Prints a table, writes benchmarks/results/eips_first_index.json.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._harness import (
    CACHE,
    REPO,
    Samples,
    arguments,
    docir_argv,
    machine_info,
    model_env,
    module_argv,
    report,
    run,
)

QUERY = "how does a contract signal which token interfaces it supports"


def measured(argv: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in MB (this child and what it waited for) and stdout of one process (no worker)."""
    # RUSAGE_CHILDREN's ru_maxrss is the max over all children so far, so each measured process runs
    # inside a small wrapper that reports its own.
    ran = run(argv, what=" ".join(argv[3:6]), env=model_env(False), cwd=REPO)
    rss = 0
    for line in ran.stderr.decode().splitlines():
        if line.startswith("maxrss_kb="):
            rss = int(line.split("=", 1)[1]) // 1024
    return ran.ms / 1000, rss, ran.stdout.decode()


WRAPPER = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:]); "
           "print(f'maxrss_kb={resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}', file=sys.stderr); "
           "sys.exit(p.returncode)")


def wrapped(*argv: str) -> list[str]:
    return [sys.executable, "-c", WRAPPER, *argv]


def docir(root: Path, *args: str, worker: bool = False) -> str:
    return run(docir_argv(*args, "--root", str(root)), what=f"docir {' '.join(args)}",
               env=model_env(worker)).stdout.decode()


def drop_index(root: Path) -> None:
    docir(root, "worker", "stop", worker=True)
    for path in (root / ".docir").glob("index.db*"):
        path.unlink()


def first_fused(root: Path) -> dict[str, object]:
    drop_index(root)
    began = time.perf_counter()
    docir(root, "reindex", "--json", worker=True)
    reindexed = time.perf_counter() - began
    answer: dict[str, object] = {}
    while time.perf_counter() - began < 1800:
        answer = json.loads(docir(root, "context", QUERY, "--json", worker=True))
        if answer.get("semantic") == "on" and answer.get("pending") == 0:
            break
        time.sleep(0.5)  # a poll interval, not a synchronisation: the answer itself is the signal
    seconds = time.perf_counter() - began
    status = json.loads(docir(root, "worker", "status", "--json", worker=True))
    docir(root, "worker", "stop", worker=True)
    results = answer.get("results") or [{}]
    assert isinstance(results, list)
    return {"reindex_s": round(reindexed, 1), "first_fused_context_s": round(seconds, 1),
            "sections_pending_then": answer.get("sections_pending"),
            "documents": status.get("due", 0) + status.get("documents_embedded", 0),
            "top_result": results[0].get("id"), "target_s": 120}


def full_flush(root: Path, lengths: list[int], repeat: int = 1) -> dict[str, object]:
    drop_index(root)
    docir(root, "reindex", "--json")
    sides = ["docir", *(f"ort-{n}" for n in lengths)]
    walls = Samples()  # seconds
    peaks: dict[str, list[int]] = {side: [] for side in sides}
    reports: list[dict[str, object]] = []
    twice: list[int] = []  # per docir run: texts through the model beyond the vectors it stored
    with tempfile.TemporaryDirectory() as scratch:
        texts_file = Path(scratch) / "texts.json"
        run(module_argv("embed_throughput", "--dump-texts", str(root.resolve()), str(texts_file)),
            what="listing the texts", env=model_env(False), cwd=REPO)
        data = json.loads(texts_file.read_text(encoding="utf-8"))
        texts = len(data["texts"])
        for round_no in range(repeat):
            for side in sides[round_no % len(sides):] + sides[: round_no % len(sides)]:
                if side == "docir":
                    if reports:  # every docir run starts from an index with no vectors
                        drop_index(root)
                        docir(root, "reindex", "--json")
                    wall, rss, out = measured(wrapped(sys.executable, "-m", "docir", "embed", "--flush", "--json",
                                                      "--root", str(root)))
                    reports.append(json.loads(out))
                    stored = stored_vectors(root)
                    twice.append(int(str(reports[-1].get("texts_embedded") or 0)) - stored)
                else:
                    wall, rss, _ = measured(wrapped(*module_argv("embed_throughput", "--ort", str(texts_file),
                                                                 str(Path(scratch) / f"{side}.npy"),
                                                                 side.removeprefix("ort-"))))
                walls.add(side, wall)
                peaks[side].append(rss)
    rows = {side: {"wall_s": round(walls.median(side), 1), "texts_per_s": round(texts / walls.median(side), 1),
                   "peak_rss_mb": max(peaks[side]), "runs_s": [round(w, 1) for w in walls.wall[side]]}
            for side in sides}
    return {"documents": data["meta"]["documents"], "distinct_texts": texts, "stored_vectors": stored,
            "texts_embedded": reports[-1].get("texts_embedded"), "texts_reused": reports[-1].get("texts_reused"),
            "embedded_twice": max(twice), "rounds": repeat,
            "sides": rows,
            **{f"ratio_vs_ort_{n}": round(walls.median(f"ort-{n}") / walls.median("docir"), 3) for n in lengths},
            "target": 0.85}


def stored_vectors(root: Path) -> int:
    conn = sqlite3.connect(root / ".docir" / "index.db")
    try:
        return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = arguments("eips_first_index", __doc__)
    parser.add_argument("--src", type=Path, default=REPO.parent / "shared" / "benchdata" / "eips")
    parser.add_argument("--store", type=Path, default=CACHE / "eips-store")
    parser.add_argument("--skip-flush", action="store_true", help="only the time to the first fused context")
    parser.add_argument("--skip-fused", action="store_true", help="only the full flush")
    parser.add_argument("--flush-eips", type=int, default=0,
                        help="the full flush on only the first N EIPs by number (0: all; a store of its own)")
    parser.add_argument("--lengths", default="256,512", help="bare-session truncations to compare (default 256,512)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of the full flush, sides rotated (default 1)")
    args = parser.parse_args(argv)
    from benchmarks.quality.eips import build_store

    if not (args.store / "docs-schema.yaml").is_file():
        build_store(args.src, args.store)
    flush_store = args.store
    if args.flush_eips:
        # The first N of the EIPs the full store holds (moved and withdrawn stubs are not in it).
        numbers = sorted(int(p.stem.split("-")[1]) for p in (args.store / "docs").rglob("eip-*.md"))[: args.flush_eips]
        flush_store = args.store.with_name(f"{args.store.name}-{args.flush_eips}")
        if not (flush_store / "docs-schema.yaml").is_file():
            build_store(args.src, flush_store, numbers)
    result: dict[str, Any] = {"store": str(args.store), "machine": machine_info()}
    if not args.skip_fused:
        result["first_fused"] = first_fused(args.store)
        print(json.dumps(result["first_fused"], indent=2))
    if not args.skip_flush:
        result["full_flush"] = full_flush(flush_store, [int(n) for n in args.lengths.split(",") if n],
                                          max(args.repeat, 1))
        print(json.dumps(result["full_flush"], indent=2))
    show(result, args.out)
    return 0


def show(result: dict[str, Any], out: Path | None) -> None:
    title, rows, notes = [], [], []
    fused = result.get("first_fused")
    if fused:
        title.append(f"first fused context after reindex: {fused['first_fused_context_s']} s "
                     f"(reindex {fused['reindex_s']} s; {fused['sections_pending_then']} documents still waiting "
                     f"for sections; target < {fused['target_s']} s)")
    flush = result.get("full_flush")
    if flush:
        title.append(f"full first flush: {flush['documents']} documents, {flush['distinct_texts']} distinct texts, "
                     f"{flush['texts_embedded']} embedded, {flush['embedded_twice']} twice; "
                     f"{flush['rounds']} rounds, medians")
        rows = [[side, row["wall_s"], row["texts_per_s"], row["peak_rss_mb"], str(row["runs_s"])]
                for side, row in flush["sides"].items()]
        ratios = ", ".join(f"{v} (truncation {k.rsplit('_', 1)[1]})" for k, v in flush.items()
                           if k.startswith("ratio_vs_ort_"))
        notes.append(f"docir / bare: {ratios}; target >= {flush['target']}")
    report("eips_first_index", result, title=title, rows=rows, notes=notes, out=out,
           columns=[("side", ""), ("wall s", ".1f"), ("texts/s", ".1f"), ("peak MB", "d"), ("runs s", "")]
           if rows else ())


if __name__ == "__main__":
    sys.exit(main())
