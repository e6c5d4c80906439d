"""Whole-process latency of docir's everyday commands on generated stores.

    python -m benchmarks.speed [--sizes 100,1000,10000] [--repeat 15] [--out benchmarks/results/speed.json]

For each size a deterministic store is generated (benchmarks/generate.py, seed 7) or
reused from benchmarks/.cache/store-<N>-seed<S>/, and indexed once with `docir reindex`.
Then, in rounds, every command is run once as a fresh process (`python -m docir ...`,
stdout to a pipe so docir prints JSON, `--root` at the store):

    floor               python -c "import sqlite3, json"   (once per round)
    get                 docir get ID1 ID2 ID3
    search              docir search "cache invalidation"
    query               docir query --type decision --limit 20
    reindex-unchanged   docir reindex                       (nothing changed)
    reindex-1pct        docir reindex                       (1 % of the files just had a line appended)
    help                docir --help
    lint-one            docir lint docs/ONE.md              (what a pre-commit hook runs for one staged file)

Rounds interleave everything (floor, then each size's commands), so machine noise hits
all commands alike; the first round is a discarded warm-up. Medians and p90 are reported
in ms, and each median as a ratio to the floor's median. Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from benchmarks import _harness as harness

SEARCH_TEXT = "cache invalidation"
TOUCH_SHARE = 0.01

# (key, what the table calls it). Cold: every command in its own process, no worker.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("get", "get (3 ids)"),
    ("search", f'search "{SEARCH_TEXT}"'),
    ("query", "query --type decision --limit 20"),
    ("reindex-unchanged", "reindex, nothing changed"),
    ("reindex-1pct", "reindex, 1% of files changed"),
    ("help", "--help"),
    ("lint-one", "lint of one file (pre-commit)"),
)
# With --warm: the same reads answered by the store's warm worker (`python -m docir` forwards them).
WARM_COMMANDS: tuple[tuple[str, str], ...] = (
    ("get-warm", "get (3 ids), warm worker"),
    ("search-warm", "search, warm worker"),
    ("query-warm", "query, warm worker"),
)
LABELS = dict(COMMANDS + WARM_COMMANDS)


# --- stores ---------------------------------------------------------------------------------------


@dataclass
class Store:
    size: int
    root: Path
    ids: list[str]
    touch_paths: list[Path] = field(default_factory=list)
    originals: dict[Path, bytes] = field(default_factory=dict)
    setup: dict[str, object] = field(default_factory=dict)

    @cached_property
    def lint_path(self) -> Path:
        """The one file the lint row checks: the middle document, as a commit touching one file stages it."""
        files = sorted((self.root / "docs").rglob("*.md"))
        return files[len(files) // 2]

    def argv(self, command: str) -> list[str]:
        command = command.removesuffix("-warm")
        root = ["--root", str(self.root)]
        if command == "get":
            return harness.docir_argv("get", *picks(self.ids), *root)
        if command == "search":
            return harness.docir_argv("search", SEARCH_TEXT, *root)
        if command == "query":
            return harness.docir_argv("query", "--type", "decision", "--limit", "20", *root)
        if command in ("reindex-unchanged", "reindex-1pct"):
            return harness.docir_argv("reindex", *root)
        if command == "help":
            return harness.docir_argv("--help")
        if command == "lint-one":
            return harness.docir_argv("lint", str(self.lint_path), "--format", "json", *root)
        raise KeyError(command)

    def touch(self, round_no: int) -> None:
        """Append one line to the body of 1 % of the files (a different line every round)."""
        for path in self.touch_paths:
            line = f"\nTouched by the speed benchmark, round {round_no}.\n"
            path.write_bytes(self.originals[path] + line.encode())

    def restore(self) -> None:
        for path, data in self.originals.items():
            path.write_bytes(data)


def picks(ids: list[str]) -> list[str]:
    """The three ids `get` fetches: the first, middle and last generated."""
    return [ids[0], ids[len(ids) // 2], ids[-1]]


def prepare_store(cache: Path, size: int, seed: int) -> Store:
    """Generate the store (or reuse the cached one), pick the files to touch, build the index."""
    root = cache / f"store-{size}-seed{seed}"
    key = harness.store_key()
    setup: dict[str, object] = {}
    info = harness.cached_marker(root, key, size, seed)
    if info is None:
        ids, setup["generate_s"] = harness.fresh_store(root, size, seed)
        setup["generated"] = True
        harness.write_marker(root, key, size, seed, ids)
    else:
        ids = list(info["ids"])
        setup["generated"] = False
    store = Store(size, root, ids, setup=setup)
    had_index = (root / ".docir" / "index.db").is_file()
    setup["initial_reindex_ms"] = round(harness.run(store.argv("reindex-unchanged"),
                                            what=f"initial reindex of {size} docs").ms, 1)
    setup["index_existed"] = had_index
    files = sorted((root / "docs").rglob("*.md"))
    step = len(files) / max(1, round(len(files) * TOUCH_SHARE))
    store.touch_paths = [files[int(i * step)] for i in range(max(1, round(len(files) * TOUCH_SHARE)))]
    store.originals = {p: p.read_bytes() for p in store.touch_paths}
    setup["touched_per_round"] = len(store.touch_paths)
    return store


# --- running ------------------------------------------------------------------------------------


def worker(store: Store, action: str) -> dict[str, Any]:
    """`docir worker start|stop|status` for the store, with the warm environment; its JSON reply."""
    argv = harness.docir_argv("worker", action, "--root", str(store.root))
    return harness.run(argv, what=f"docir worker {action} at {store.size} docs",
                       env=harness.child_env(worker=True)).json()


def _check(store: Store, command: str, stdout: bytes) -> str | None:
    """A sanity check of one command's JSON, so a broken command is not timed as a fast one."""
    command = command.removesuffix("-warm")
    if command == "help":
        return None if b"Usage" in stdout else f"--help printed no usage ({len(stdout)} bytes)"
    try:
        data = json.loads(stdout)
    except ValueError:
        return f"{command} at {store.size} docs printed no JSON"
    if command == "get" and len(data.get("documents", [])) != 3:
        return f"get at {store.size} docs returned {len(data.get('documents', []))} documents, expected 3"
    if command == "search" and not data.get("results"):
        return f"search at {store.size} docs found nothing for {SEARCH_TEXT!r}"
    if command == "query" and not 1 <= (data.get("count") or 0) <= 20:
        return f"query at {store.size} docs returned {data.get('count')} results"
    if command == "reindex-unchanged" and (data.get("added") or data.get("updated") or data.get("removed")):
        return f"reindex with nothing changed at {store.size} docs reported changes: {data}"
    if command == "lint-one" and (data.get("summary") or {}).get("files") != 1:
        return f"lint of one file at {store.size} docs checked {(data.get('summary') or {}).get('files')} files"
    if command == "reindex-1pct" and data.get("updated") != len(store.touch_paths):
        return (f"reindex after touching {len(store.touch_paths)} files at {store.size} docs "
                f"reported updated={data.get('updated')}")
    return None


def measure(stores: list[Store], commands: list[str], repeat: int, warmup: int) -> tuple[harness.Samples, list[str]]:
    """Wall and CPU times by (size, command), the floor's under "floor"; and the sanity-check warnings."""
    rounds = harness.Rounds("speed", repeat, warmup)
    warnings: list[str] = []
    total = warmup + repeat
    for round_no in rounds:
        for store in stores:
            for command in commands:
                if command == "reindex-1pct":
                    store.touch(round_no)
                ran: harness.Ran = harness.run(store.argv(command), what=f"{command} at {store.size} docs",
                               env=harness.child_env(worker=command.endswith("-warm")))
                if round_no == 0 or (command == "reindex-1pct" and round_no == total - 1):
                    harness.warn_once("speed", warnings, _check(store, command, ran.stdout))
                rounds.record((store.size, command), ran)
    return rounds.samples, warnings


# --- reporting ----------------------------------------------------------------------------------


def evaluate_targets(results: dict[tuple[int, str], dict[str, Any]]) -> list[dict[str, object]]:
    noop = results.get((1000, "reindex-unchanged"), {}).get("median_ms")
    targets = [harness.target("reindex with nothing changed on 1,000 docs under 500 ms", noop, 500.0,
                      f"median {noop:.0f} ms (limit 500 ms)" if noop else "", unit="ms", skip="size 1000 not measured")]
    for command in ("search", "query"):
        targets.append(growth(results, command, 100, 10000, 2.0))
    for command, limit in COLD_LIMITS.items():
        row = results.get((1000, command))
        detail = f"{row['ratio']:.2f}x wall, {row['cpu_ratio']:.2f}x CPU (limit {limit:g}x)" if row else ""
        targets.append(harness.target(f"cold {command} at 1,000 docs at most {limit:g}x the floor",
                              row["ratio"] if row else None, limit, detail, skip="size 1000 not measured"))
    targets.append(growth(results, "lint-one", 1000, 10000, 1.5))
    return targets


def growth(results: dict[tuple[int, str], dict[str, Any]], command: str, small_size: int, large_size: int,
           limit: float) -> dict[str, object]:
    """How much slower `command` is on the large store than on the small one, against `limit`."""
    small, large = results.get((small_size, command)), results.get((large_size, command))
    ratio = large["median_ms"] / small["median_ms"] if small and large else None
    detail = f"{large['median_ms']:.0f} ms vs {small['median_ms']:.0f} ms = {ratio:.2f}x (limit {limit:g}x)" \
        if small and large and ratio else ""
    return harness.target(f"{command} median at {large_size:,} docs at most {limit:g}x its median at "
                          f"{small_size:,} docs", ratio, limit, detail,
                          skip=f"needs sizes {small_size} and {large_size}")


# A command run without a worker (a hook, CI, a sandbox) against the bare interpreter, at 1,000 docs.
COLD_LIMITS = {"get": 3.0, "search": 3.0, "help": 3.0, "lint-one": 4.0}


def size_table(results: list[dict[str, Any]],
               labels: dict[str, str]) -> tuple[list[harness.Column], list[list[object] | None]]:
    """The docs/command/median/p90/ratio table (CPU columns when measured), a blank line between sizes:
    shared by the speed benchmarks."""
    cpu = any("cpu_ratio" in row for row in results)
    columns: list[harness.Column] = [("docs", "d"), ("command", ""), ("median ms", ".1f"), ("p90 ms", ".1f"),
                             ("x floor", ".2f")]
    columns += [("cpu ms", ".1f"), ("cpu x", ".2f")] if cpu else []
    rows: list[list[object] | None] = []
    for i, row in enumerate(results):
        if i and row["size"] != results[i - 1]["size"]:
            rows.append(None)
        cells = [row["size"], labels[row["command"]], row["median_ms"], row["p90_ms"], row["ratio"]]
        rows.append(cells + ([row["cpu_median_ms"], row["cpu_ratio"]] if cpu else []))
    return columns, rows


def main(argv: list[str] | None = None) -> int:
    parser = harness.arguments("speed", __doc__, repeat=15, warmup=1, seed=True)
    parser.add_argument("--sizes", default="100,1000,10000",
                        help="store sizes, comma-separated (default 100,1000,10000)")
    parser.add_argument("--cache", type=Path, default=harness.CACHE, help="where generated stores are kept")
    parser.add_argument("--warm", action="store_true",
                        help="also time get/search/query answered by a warm worker (started without a model)")
    args = parser.parse_args(argv)
    sizes = parse_sizes(parser, args.sizes)
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be positive")

    started = time.perf_counter()
    machine = harness.machine_info()
    commands = [c for c, _ in COMMANDS] + ([c for c, _ in WARM_COMMANDS] if args.warm else [])
    stores: list[Store] = []
    try:
        for size in sizes:
            print(f"speed: preparing the {size}-document store", file=sys.stderr)
            store = prepare_store(args.cache, size, args.seed)
            stores.append(store)
            # A worker left running (by an earlier docir call) would load the CPU, e.g. embedding the store.
            stopped = worker(store, "stop")
            store.setup["stale_worker_stopped"] = bool(stopped.get("stopped"))
            print(f"speed: {size} docs ready {store.setup}", file=sys.stderr)
        # The touch rounds edit files: while they run, the cached store is not the generated one.
        for store in stores:
            (store.root / harness.MARKER).rename(store.root / (harness.MARKER + ".measuring"))
        try:
            warm_pids: dict[int, object] = {}
            if args.warm:
                for store in stores:
                    reply = worker(store, "start")
                    warm_pids[store.size] = reply.get("pid")
                    store.setup["warm_worker"] = {"pid": reply.get("pid"), "semantic": reply.get("semantic")}
            samples, warnings = measure(stores, commands, args.repeat, args.warmup)
            for store in stores if args.warm else []:
                if worker(store, "status").get("pid") != warm_pids[store.size]:
                    warnings.append(f"the warm worker of the {store.size}-document store did not last the run")
        finally:
            for store in stores:
                if args.warm:
                    worker(store, "stop")
                store.restore()
                harness.run(store.argv("reindex-unchanged"), what=f"final reindex of {store.size} docs")
                (store.root / (harness.MARKER + ".measuring")).rename(store.root / harness.MARKER)
    except harness.BenchmarkError as exc:
        print(f"speed: {exc}", file=sys.stderr)
        return 1

    floor = samples.row("floor")
    by_key: dict[tuple[int, str], dict[str, Any]] = {}
    results = []
    for store in stores:
        for command in commands:
            row = {"size": store.size, "command": command, "mode": "warm" if command.endswith("-warm") else "cold",
                   "argv": " ".join(["docir", *store.argv(command)[3:]]).replace(f" --root {store.root}", ""),
                   **samples.row((store.size, command))}
            by_key[(store.size, command)] = row
            results.append(row)
    payload: dict[str, Any] = {
        "machine": machine,
        "config": {"sizes": sizes, "repeat": args.repeat, "warmup": args.warmup, "seed": args.seed,
                   "search_text": SEARCH_TEXT, "touch_share": TOUCH_SHARE, "warm": args.warm,
                   "pycache_prefix": str(harness.PYCACHE),
                   "caller_had_dontwritebytecode": "PYTHONDONTWRITEBYTECODE" in os.environ},
        "setup": [{"size": s.size, **s.setup} for s in stores],
        "floor_ms": floor["median_ms"], "floor_p90_ms": floor["p90_ms"], "floor_samples_ms": floor["samples_ms"],
        "floor_cpu_ms": floor["cpu_median_ms"],
        "results": results,
        "targets": evaluate_targets(by_key),
        "warnings": warnings,
        "duration_s": round(time.perf_counter() - started, 1),
    }
    title = [f"docir speed: python {machine['python']}, {machine['cpu_count']} CPUs, sqlite {machine['sqlite']}, "
             f"seed {args.seed}, {args.repeat} rounds (+{args.warmup} warm-up)",
             harness.floor_line(floor)]
    columns, rows = size_table(results, LABELS)
    harness.report("speed", payload, title=title, columns=columns, rows=rows, out=args.out)
    return 0


def parse_sizes(parser: argparse.ArgumentParser, text: str) -> list[int]:
    """--sizes: positive integers separated by commas, sorted, each once."""
    try:
        sizes = sorted({int(s) for s in text.split(",") if s.strip()})
    except ValueError:
        parser.error("--sizes takes integers separated by commas, e.g. 100,1000")
    if not sizes or min(sizes) < 1:
        parser.error("sizes must be positive")
    return sizes


if __name__ == "__main__":
    sys.exit(main())
