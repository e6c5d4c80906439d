"""Whole-process latency of `docir context` and `docir get`, warm (through the worker) and cold.

    python -m benchmarks.speed_context [--sizes 1000,10000] [--repeat 15] [--cycles 3]

For each size a deterministic store is generated (benchmarks/generate.py, seed 7) into
benchmarks/.cache/ctx-store-<N>-seed<S>/ (its own copy: speed.py edits its stores while it
measures), indexed with `docir reindex`, and given vectors *synthetically*: docir's own drain
(`docir.services.vectors.embedding.drain`) runs with a FakeEmbedder that carries the real model's
model_id, dim, window and tokenizer (so chunking is real and every row counts as made by the
active model) but returns seeded random unit vectors. Embedding 10,000 documents for real
takes hours on 2 cores; the latency measured here depends on how many vectors there are and
on the real embedding of the query, not on the stored values.

Then, in cycles, each cycle being
    warm phase: `docir worker start` per store (real model), rounds of
                floor, context-warm and get-warm for every size; then `docir worker stop`
    cold phase: no worker runs (checked); DOCIR_WORKER=0; rounds of
                floor, context-cold and get-cold for every size
the first round of each phase is a discarded warm-up. Medians and p90 are in ms, each
median also as a ratio to the floor median of the same phase. Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import _docir_api as docir_api
from benchmarks import _harness as harness
from benchmarks.speed import parse_sizes, picks, size_table

TASK = "add retries with exponential backoff and an idempotency key to the webhook dispatcher's queue consumer"
FAKE_VERSION = 1  # bump when FakeEmbedder's output changes: cached stores are refilled

COMMANDS: tuple[tuple[str, str], ...] = (
    ("context-warm", "context, warm worker"),
    ("get-warm", "get (3 ids), warm worker"),
    ("context-cold", "context, cold (model loaded in-process)"),
    ("get-cold", "get (3 ids), cold"),
)
LABELS = dict(COMMANDS)
WARM = [c for c, _ in COMMANDS if c.endswith("-warm")]
COLD = [c for c, _ in COMMANDS if c.endswith("-cold")]
GET_WARM_LIMIT = 1.5  # "close to the floor"
CONTEXT_WARM_LIMIT = 3.0


# --- synthetic vectors, through docir's own drain -------------------------------------------------


class FakeEmbedder:
    """The real model's identity and tokenizer, with seeded random unit vectors instead of inference.

    model_id/dim/max_tokens/count_tokens come from the real model (docir.services.vectors.query_source.load_local),
    so docir chunks exactly as it would and files every vector under the active model; embed() returns
    a unit vector seeded by the text's sha256 (the same text always gets the same vector).
    """

    def __init__(self, real: object) -> None:
        self._real = real
        self.model_id: str = real.model_id  # type: ignore[attr-defined]
        self.dim: int = int(real.dim)  # type: ignore[attr-defined]
        self.max_tokens: int = int(real.max_tokens)  # type: ignore[attr-defined]
        self.count_tokens = real.count_tokens  # type: ignore[attr-defined]
        self.texts = 0

    def embed(self, texts):  # type: ignore[no-untyped-def]
        import numpy as np

        rows = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.dim)
            rows[i] = vector / np.linalg.norm(vector)
        self.texts += len(texts)
        return rows


def fill_vectors(root: Path) -> dict[str, object]:
    """Give every due document of the store its vectors, made by FakeEmbedder (runs in a child process)."""
    from benchmarks._docir_api import drain, open_session
    from docir.services.vectors import query_source

    source = docir_api.load_local(None, root)
    if not isinstance(source, query_source.LocalModel):
        raise harness.BenchmarkError(f"the real model is needed for its id and tokenizer: semantic layer is "
                                     f"{source.status}")
    fake = FakeEmbedder(source.embedder)
    session = open_session(root)
    try:
        started = time.perf_counter()
        report = drain(session.catalog, fake)
        due, total = session.catalog.vectors.queue_counts(fake.model_id)
        vectors = int(session.catalog.conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
        chunks = int(session.catalog.conn.execute("SELECT count(*) FROM chunk_embeddings").fetchone()[0])
    finally:
        session.close()
    return {"model_id": fake.model_id, "dim": fake.dim, "max_tokens": fake.max_tokens,
            "documents": report.documents, "texts_embedded": report.texts_embedded,
            "texts_reused": report.texts_reused, "due_after": due, "total": total,
            "vector_rows": vectors, "chunk_rows": chunks, "fill_s": round(time.perf_counter() - started, 1)}


# --- stores ---------------------------------------------------------------------------------------


@dataclass
class Store:
    size: int
    root: Path
    ids: list[str]
    setup: dict[str, object] = field(default_factory=dict)

    def argv(self, command: str, task: str) -> list[str]:
        root = ["--root", str(self.root)]
        if command.startswith("context"):
            return harness.docir_argv("context", task, *root)
        if command.startswith("get"):
            return harness.docir_argv("get", *picks(self.ids), *root)
        raise KeyError(command)


def run(argv: list[str], *, what: str, warm: bool) -> harness.Ran:
    """One process with the model; DOCIR_WORKER=0 unless `warm`."""
    return harness.run(argv, what=what, env=harness.model_env(warm))


def docir_json(store: Store, *args: str, warm: bool = False) -> dict[str, Any]:
    return run(harness.docir_argv(*args, "--root", str(store.root)),
               what=f"docir {' '.join(args)} at {store.size} docs", warm=warm).json()


def worker(store: Store, action: str) -> dict[str, Any]:
    """`docir worker start|stop|status` (with the worker enabled and the real model)."""
    return docir_json(store, "worker", action, warm=True)


def prepare_store(cache: Path, size: int, seed: int) -> Store:
    root = cache / f"ctx-store-{size}-seed{seed}"
    key = harness.store_key(f"fake-vectors-{FAKE_VERSION}")
    setup: dict[str, object] = {}
    info = harness.cached_marker(root, key, size, seed) if (root / ".docir" / "index.db").is_file() else None
    store = Store(size, root, list(info["ids"]) if info else [], setup)
    if info is not None:
        setup["vectors"] = info.get("vectors")
        setup["generated"] = False
        worker(store, "stop")  # a worker left by an interrupted run
        reindex = docir_json(store, "reindex")
        if reindex.get("added") or reindex.get("updated") or reindex.get("removed"):
            raise harness.BenchmarkError(f"the cached {size}-document store changed on disk; delete {root} and rerun")
        status = docir_json(store, "embed", "--status")
        if status.get("semantic") == "on" and status.get("due"):
            # Vectors of another model id (docir changed its model id, or another model is active): they
            # all count as due and a worker would embed them for real. Start over from a fresh store.
            print(f"speed_context: the cached {size}-document store has {status.get('due')} documents due for "
                  f"{status.get('model')}; rebuilding it", file=sys.stderr)
            setup["rebuilt_for_model"] = status.get("model")
            info = None
    if info is None:
        if root.exists():
            worker(store, "stop")
        store.ids, setup["generate_s"] = harness.fresh_store(root, size, seed)
        setup["generated"] = True
        started = time.perf_counter()
        docir_json(store, "reindex")
        setup["initial_reindex_s"] = round(time.perf_counter() - started, 1)
        print(f"speed_context: filling {store.size} documents with synthetic vectors", file=sys.stderr)
        # The vault off: synthetic vectors filed under the real model's id must never reach the user's vault,
        # where a real embedding of the same text (another benchmark, another store) would reuse them.
        filled = harness.run(harness.module_argv("speed_context", "--fill-vectors", str(store.root.resolve())),
                             what=f"filling vectors of {store.size} docs",
                             env={**harness.model_env(False), "DOCIR_VECTORS": "off"}, cwd=harness.REPO)
        setup["vectors"] = json.loads(filled.stdout)
        harness.write_marker(root, key, size, seed, store.ids, vectors=setup["vectors"])
    status = docir_json(store, "embed", "--status")
    setup["embed_status"] = {k: status.get(k) for k in ("semantic", "model", "due", "total")}
    if status.get("due") != 0 or status.get("semantic") != "on":
        raise harness.BenchmarkError(f"the {size}-document store is not fully embedded for the active model: {status}")
    return store


# --- measuring ------------------------------------------------------------------------------------


def check(store: Store, command: str, stdout: bytes) -> str | None:
    """A sanity check of one command's JSON, so a broken command is not timed as a fast one."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return f"{command} at {store.size} docs printed no JSON"
    if command.startswith("get") and len(data.get("documents", [])) != 3:
        return f"{command} at {store.size} docs returned {len(data.get('documents', []))} documents, expected 3"
    if command.startswith("context"):
        if data.get("semantic") != "on":
            return f"{command} at {store.size} docs ran with semantic {data.get('semantic')!r}"
        results = data.get("results") or []
        if not results:
            return f"{command} at {store.size} docs returned no results"
        if not any(r.get("similarity") is not None for r in results):
            return f"{command} at {store.size} docs returned no result with a vector similarity"
    return None


def no_worker_runs(stores: list[Store]) -> None:
    for store in stores:
        status = worker(store, "status")
        if status.get("running"):
            raise harness.BenchmarkError(f"a worker (pid {status.get('pid')}) still runs for the "
                                         f"{store.size}-document store")


def phase(stores: list[Store], commands: list[str], rounds_: int, warmup: int, task: str, samples: harness.Samples,
          warnings: list[str], mode: str, label: str) -> None:
    """Rounds of the floor (kept under "floor-<mode>") and `commands` on every store."""
    rounds = harness.Rounds("speed_context", rounds_, warmup, samples=samples, floor=f"floor-{mode}", label=label)
    for round_no in rounds:
        for store in stores:
            for command in commands:
                ran = run(store.argv(command, task), what=f"{command} at {store.size} docs",
                          warm=command.endswith("-warm"))
                if round_no == 0:
                    harness.warn_once("speed_context", warnings, check(store, command, ran.stdout))
                rounds.record((store.size, command), ran.ms)


def measure(stores: list[Store], repeat: int, cycles: int, warmup: int, task: str) -> dict[str, Any]:
    samples = harness.Samples()
    warnings: list[str] = []
    worker_starts: list[dict[str, object]] = []
    per_cycle = [repeat // cycles + (1 if i < repeat % cycles else 0) for i in range(cycles)]
    for cycle, rounds in enumerate(per_cycle, start=1):
        if rounds == 0:
            continue
        pids: dict[int, object] = {}
        try:
            for store in stores:
                started = time.perf_counter()
                reply = worker(store, "start")
                pids[store.size] = reply.get("pid")
                worker_starts.append({"size": store.size, "cycle": cycle, "pid": reply.get("pid"),
                                      "semantic": reply.get("semantic"), "model": reply.get("model"),
                                      "due": reply.get("due"),
                                      "start_ms": round((time.perf_counter() - started) * 1000)})
                if reply.get("semantic") != "on" or reply.get("due"):
                    raise harness.BenchmarkError(f"the worker of the {store.size}-document store has no model or work "
                                         f"to do (it would embed while we measure): {reply}")
            phase(stores, WARM, rounds, warmup, task, samples, warnings, "warm", f"cycle {cycle} warm")
            for store in stores:
                if worker(store, "status").get("pid") != pids[store.size]:
                    warnings.append(f"the warm worker of the {store.size}-document store did not last cycle {cycle}")
        finally:
            for store in stores:
                worker(store, "stop")
        no_worker_runs(stores)
        phase(stores, COLD, rounds, warmup, task, samples, warnings, "cold", f"cycle {cycle} cold")
    return {"samples": samples, "warnings": warnings, "worker_starts": worker_starts}


# --- reporting ------------------------------------------------------------------------------------


def evaluate_targets(rows: list[dict[str, Any]]) -> list[dict[str, object]]:
    by_key = {(r["size"], r["command"]): r for r in rows}
    ctx = by_key.get((1000, "context-warm"))
    targets = [harness.target(f"context warm at most {CONTEXT_WARM_LIMIT:g}x the floor on 1,000 docs",
                      ctx["ratio"] if ctx else None, CONTEXT_WARM_LIMIT,
                      f"median {ctx['median_ms']} ms = {ctx['ratio']:.2f}x floor (limit {CONTEXT_WARM_LIMIT:g}x)"
                      if ctx else "", skip="size 1000 not measured")]
    for (size, command), row in sorted(by_key.items()):
        if command == "get-warm":
            targets.append(harness.target(f"get warm close to the floor (at most {GET_WARM_LIMIT:g}x) on {size:,} docs",
                                  row["ratio"], GET_WARM_LIMIT,
                                  f"median {row['median_ms']} ms = {row['ratio']:.2f}x floor "
                                  f"(limit {GET_WARM_LIMIT:g}x)"))
    return targets


def main(argv: list[str] | None = None) -> int:
    parser = harness.arguments("speed_context", __doc__, seed=True)
    parser.add_argument("--sizes", default="1000,10000", help="store sizes, comma-separated (default 1000,10000)")
    parser.add_argument("--repeat", type=int, default=15,
                        help="measured rounds per phase, over all cycles (default 15)")
    parser.add_argument("--cycles", type=int, default=3, help="warm/cold alternations (default 3)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="discarded rounds at the start of every phase (default 1)")
    parser.add_argument("--task", default=TASK, help="the task given to docir context")
    parser.add_argument("--cache", type=Path, default=harness.CACHE, help="where generated stores are kept")
    parser.add_argument("--fill-vectors", type=Path, help=argparse.SUPPRESS)  # internal: the child that fills vectors
    args = parser.parse_args(argv)
    if args.fill_vectors is not None:
        print(json.dumps(fill_vectors(args.fill_vectors.resolve())))
        return 0
    sizes = parse_sizes(parser, args.sizes)
    if args.repeat < 1 or args.cycles < 1 or args.warmup < 0:
        parser.error("--repeat and --cycles must be positive")
    cycles = min(args.cycles, args.repeat)

    started = time.perf_counter()
    machine = harness.machine_info()
    stores: list[Store] = []
    try:
        for size in sizes:
            print(f"speed_context: preparing the {size}-document store", file=sys.stderr)
            store = prepare_store(args.cache.resolve(), size, args.seed)
            stores.append(store)
            print(f"speed_context: {size} docs ready {store.setup}", file=sys.stderr)
        measured = measure(stores, args.repeat, cycles, args.warmup, args.task)
    except harness.BenchmarkError as exc:
        print(f"speed_context: {exc}", file=sys.stderr)
        return 1
    finally:
        for store in stores:  # never leave a worker behind
            try:
                worker(store, "stop")
            except harness.BenchmarkError as exc:
                print(f"speed_context: stopping the worker failed: {exc}", file=sys.stderr)

    samples: harness.Samples = measured["samples"]
    results = []
    for store in stores:
        for command, _ in COMMANDS:
            mode = "warm" if command.endswith("-warm") else "cold"
            results.append({"size": store.size, "command": command, "mode": mode,
                            "argv": " ".join(["docir", *store.argv(command, args.task)[3:-2]]),
                            **samples.row((store.size, command), floor=f"floor-{mode}")})
    floors = {mode: samples.row(f"floor-{mode}") for mode in ("warm", "cold")}
    payload: dict[str, Any] = {
        "machine": machine,
        "config": {"sizes": sizes, "repeat": args.repeat, "cycles": cycles, "warmup": args.warmup, "seed": args.seed,
                   "task": args.task, "vectors": "synthetic (FakeEmbedder: real model_id/dim/tokenizer, seeded random "
                   "unit vectors); queries embedded by the real model", "pycache_prefix": str(harness.PYCACHE),
                   "caller_had_dontwritebytecode": "PYTHONDONTWRITEBYTECODE" in os.environ,
                   "get_warm_limit_ratio": GET_WARM_LIMIT, "context_warm_limit_ratio": CONTEXT_WARM_LIMIT},
        "setup": [{"size": s.size, **s.setup} for s in stores],
        "worker_starts": measured["worker_starts"],
        "floor": floors,
        "results": results,
        "targets": evaluate_targets(results),
        "warnings": measured["warnings"],
        "duration_s": round(time.perf_counter() - started, 1),
    }
    title = [f"docir context/get latency: python {machine['python']}, {machine['cpu_count']} CPUs, "
             f"seed {args.seed}, {args.repeat} rounds per phase in {cycles} cycles "
             f"(+{args.warmup} warm-up per phase), synthetic stored vectors, real query embedding",
             f'task: "{args.task}"',
             *(harness.floor_line(floors[mode], f" during the {mode} phase") for mode in floors)]
    columns, rows = size_table(results, LABELS)
    harness.report("speed_context", payload, title=title, columns=columns, rows=rows, out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
