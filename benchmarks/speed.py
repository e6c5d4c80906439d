"""Whole-process latency of docir's everyday commands on generated stores.

    python benchmarks/speed.py [--sizes 100,1000,10000] [--repeat 15] [--out benchmarks/results/speed.json]

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
import datetime as dt
import hashlib
import json
import math
import os
import platform
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate_store  # benchmarks/ is not a package

SEED = 7
SEARCH_TEXT = "cache invalidation"
TOUCH_SHARE = 0.01
MARKER = ".benchmark-store.json"
FLOOR_ARGV = [sys.executable, "-c", "import sqlite3, json"]
PYCACHE = HERE / ".cache" / "pycache"
NO_MODEL = HERE / ".cache" / "no-model"  # an empty folder: the warm worker runs without a model

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


class BenchmarkError(Exception):
    pass


# --- stores ---------------------------------------------------------------------------------------


def _generator_key() -> str:
    """Changes whenever generate.py does, so a cached store is never stale."""
    return hashlib.sha256((HERE / "generate.py").read_bytes()).hexdigest()[:16]


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
        base = [sys.executable, "-m", "docir"]
        root = ["--root", str(self.root)]
        if command == "get":
            picks = [self.ids[0], self.ids[len(self.ids) // 2], self.ids[-1]]
            return [*base, "get", *picks, *root]
        if command == "search":
            return [*base, "search", SEARCH_TEXT, *root]
        if command == "query":
            return [*base, "query", "--type", "decision", "--limit", "20", *root]
        if command in ("reindex-unchanged", "reindex-1pct"):
            return [*base, "reindex", *root]
        if command == "help":
            return [*base, "--help"]
        if command == "lint-one":
            return [*base, "lint", str(self.lint_path), "--format", "json", *root]
        raise KeyError(command)

    def touch(self, round_no: int) -> None:
        """Append one line to the body of 1 % of the files (a different line every round)."""
        for path in self.touch_paths:
            line = f"\nTouched by the speed benchmark, round {round_no}.\n"
            path.write_bytes(self.originals[path] + line.encode())

    def restore(self) -> None:
        for path, data in self.originals.items():
            path.write_bytes(data)


def prepare_store(cache: Path, size: int, seed: int) -> Store:
    """Generate the store (or reuse the cached one), pick the files to touch, build the index."""
    root = cache / f"store-{size}-seed{seed}"
    marker = root / MARKER
    key = _generator_key()
    setup: dict[str, object] = {}
    ids: list[str] | None = None
    if marker.is_file():
        try:
            info = json.loads(marker.read_text(encoding="utf-8"))
            if info.get("generator") == key and info.get("docs") == size and info.get("seed") == seed:
                ids = list(info["ids"])
        except (ValueError, KeyError, TypeError):
            ids = None
    if ids is None:
        shutil.rmtree(root, ignore_errors=True)
        started = time.perf_counter()
        ids = generate_store(root, size, seed)
        setup["generate_s"] = round(time.perf_counter() - started, 2)
        setup["generated"] = True
        _write_marker(root, size, seed, key, ids)
    else:
        setup["generated"] = False
    store = Store(size, root, ids, setup=setup)
    had_index = (root / ".docir" / "index.db").is_file()
    started = time.perf_counter()
    _run(store.argv("reindex-unchanged"), what=f"initial reindex of {size} docs")
    setup["initial_reindex_ms"] = round((time.perf_counter() - started) * 1000, 1)
    setup["index_existed"] = had_index
    files = sorted((root / "docs").rglob("*.md"))
    step = len(files) / max(1, round(len(files) * TOUCH_SHARE))
    store.touch_paths = [files[int(i * step)] for i in range(max(1, round(len(files) * TOUCH_SHARE)))]
    store.originals = {p: p.read_bytes() for p in store.touch_paths}
    setup["touched_per_round"] = len(store.touch_paths)
    return store


def _write_marker(root: Path, size: int, seed: int, key: str, ids: list[str]) -> None:
    payload = {"generator": key, "docs": size, "seed": seed, "ids": ids}
    (root / MARKER).write_text(json.dumps(payload), encoding="utf-8")


# --- running ------------------------------------------------------------------------------------


def child_env(*, worker: bool = False, with_model: bool = False) -> dict[str, str]:
    """The environment of every timed process.

    Bytecode caching is forced on, into benchmarks/.cache/pycache (PYTHONPYCACHEPREFIX):
    a user's installed docir has its .pyc files, so a PYTHONDONTWRITEBYTECODE=1 in the
    caller's environment must not make every run recompile docir from source; the prefix
    keeps those files out of the source tree. The warm-up round fills it.

    Cold runs set DOCIR_WORKER=0: the command runs in its own process, and a reindex that
    changed something does not start a background worker (which would embed the whole
    store, loading the CPU for the rest of the run and answering later commands warm).
    Warm runs (worker=True) may use the worker; it is started without a model
    (DOCIR_MODEL_PATH at an empty folder), so it never embeds while we measure, unless
    with_model: the benchmarks of the worker itself need it to rank and embed.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env["DOCIR_WORKER"] = "1" if worker else "0"
    if worker and not with_model:
        env["DOCIR_MODEL_PATH"] = str(NO_MODEL)
    return env


def model_env(worker: bool) -> dict[str, str]:
    """child_env for the benchmarks that rank and embed: the model on, in the worker too."""
    return child_env(worker=worker, with_model=True)


LAST_CPU_MS = [0.0]  # the user + system time of the last process _run ran


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _run(argv: list[str], *, what: str, worker: bool = False) -> tuple[float, bytes]:
    """Run one process with stdout to a pipe; its wall time in ms and its stdout (its CPU time in LAST_CPU_MS:
    processes run one at a time, so the children's usage grows by exactly this one's)."""
    env = child_env(worker=worker)
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, env=env, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    LAST_CPU_MS[0] = _children_cpu() - cpu
    if proc.returncode != 0:
        stderr = proc.stderr.decode(errors="replace").strip()
        raise BenchmarkError(f"{what} failed (exit {proc.returncode}): {' '.join(argv)}\n{stderr}")
    return elapsed, proc.stdout


def worker(store: Store, action: str) -> dict[str, object]:
    """`docir worker start|stop|status` for the store, with the warm environment; its JSON reply."""
    NO_MODEL.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "docir", "worker", action, "--root", str(store.root)]
    _, stdout = _run(argv, what=f"docir worker {action} at {store.size} docs", worker=True)
    try:
        reply = json.loads(stdout)
    except ValueError:
        return {}
    return reply if isinstance(reply, dict) else {}


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


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def measure(stores: list[Store], commands: list[str], repeat: int,
            warmup: int) -> tuple[list[float], dict[tuple[int, str], list[float]], list[str]]:
    """Wall times; the CPU times of the same runs go to CPU_SAMPLES (key (0, "floor") for the floor)."""
    floor: list[float] = []
    samples: dict[tuple[int, str], list[float]] = {(s.size, c): [] for s in stores for c in commands}
    CPU_SAMPLES.clear()
    warnings: list[str] = []
    total = warmup + repeat
    for round_no in range(total):
        keep = round_no >= warmup
        started = time.perf_counter()
        elapsed, _ = _run(FLOOR_ARGV, what="floor")
        if keep:
            floor.append(elapsed)
            CPU_SAMPLES.setdefault((0, "floor"), []).append(LAST_CPU_MS[0])
        for store in stores:
            for command in commands:
                if command == "reindex-1pct":
                    store.touch(round_no)
                elapsed, stdout = _run(store.argv(command), what=f"{command} at {store.size} docs",
                                       worker=command.endswith("-warm"))
                if round_no == 0 or (command == "reindex-1pct" and round_no == total - 1):
                    problem = _check(store, command, stdout)
                    if problem and problem not in warnings:
                        warnings.append(problem)
                        print(f"speed: warning: {problem}", file=sys.stderr)
                if keep:
                    samples[(store.size, command)].append(elapsed)
                    CPU_SAMPLES.setdefault((store.size, command), []).append(LAST_CPU_MS[0])
        label = "warm-up" if not keep else f"round {round_no - warmup + 1}/{repeat}"
        print(f"speed: {label} done in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return floor, samples, warnings


CPU_SAMPLES: dict[tuple[int, str], list[float]] = {}


# --- reporting ----------------------------------------------------------------------------------


def machine_info() -> dict[str, object]:
    info: dict[str, object] = {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "sqlite": sqlite3.sqlite_version,
    }
    if hasattr(os, "sched_getaffinity"):
        info["cpus_usable"] = len(os.sched_getaffinity(0))
    if hasattr(os, "getloadavg"):
        info["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    from importlib.metadata import PackageNotFoundError, version

    try:
        info["docir"] = version("docir")
    except PackageNotFoundError:
        info["docir"] = None
    info["install"] = install_mode()
    # The source measured: others may edit docir/ between runs, and git_head does not show that.
    source = hashlib.sha256()
    for path in sorted((HERE.parent / "docir").rglob("*")):
        if path.suffix in (".py", ".yaml") and path.is_file():
            source.update(str(path.relative_to(HERE.parent)).encode() + b"\0" + path.read_bytes() + b"\0")
    info["docir_source_sha256"] = source.hexdigest()[:16]
    try:
        repo = HERE.parent
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True,
                              check=False)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "docir"], cwd=repo, capture_output=True,
                               text=True, check=False)
        if head.returncode == 0:
            info["git_head"] = head.stdout.strip()
            info["docir_tree_dirty"] = bool(dirty.stdout.strip())
    except OSError:
        pass
    return info


def evaluate_targets(results: dict[tuple[int, str], dict[str, float]]) -> list[dict[str, object]]:
    targets: list[dict[str, object]] = []
    noop = results.get((1000, "reindex-unchanged"))
    target: dict[str, object] = {
        "name": "reindex with nothing changed on 1,000 docs under 500 ms",
        "limit_ms": 500.0,
    }
    if noop is None:
        target.update(status="SKIP", detail="size 1000 not measured")
    else:
        target.update(value_ms=round(noop["median_ms"], 1), status="PASS" if noop["median_ms"] < 500 else "FAIL",
                      detail=f"median {noop['median_ms']:.0f} ms (limit 500 ms)")
    targets.append(target)
    for command in ("search", "query"):
        small, large = results.get((100, command)), results.get((10000, command))
        target = {"name": f"{command} median at 10,000 docs at most 2x its median at 100 docs", "limit_ratio": 2.0}
        if small is None or large is None:
            target.update(status="SKIP", detail="needs sizes 100 and 10000")
        else:
            ratio = large["median_ms"] / small["median_ms"]
            target.update(value_ratio=round(ratio, 2), status="PASS" if ratio <= 2.0 else "FAIL",
                          detail=f"{large['median_ms']:.0f} ms vs {small['median_ms']:.0f} ms = {ratio:.2f}x "
                                 "(limit 2x)")
        targets.append(target)
    targets.extend(_cold_targets(results))
    return targets


# A command run without a worker (a hook, CI, a sandbox) against the bare interpreter, at 1,000 docs.
COLD_LIMITS = {"get": 3.0, "search": 3.0, "help": 3.0, "lint-one": 4.0}


def _cold_targets(results: dict[tuple[int, str], dict[str, float]]) -> list[dict[str, object]]:
    targets: list[dict[str, object]] = []
    floor = results.get((0, "floor"))
    for command, limit in COLD_LIMITS.items():
        row = results.get((1000, command))
        target: dict[str, object] = {"name": f"cold {command} at 1,000 docs at most {limit:g}x the floor",
                                     "limit_ratio": limit}
        if row is None or floor is None:
            target.update(status="SKIP", detail="size 1000 not measured")
        else:
            ratio = row["median_ms"] / floor["median_ms"]
            cpu = row["cpu_ms"] / floor["cpu_ms"] if floor.get("cpu_ms") else float("nan")
            target.update(value_ratio=round(ratio, 2), cpu_ratio=round(cpu, 2),
                          status="PASS" if ratio <= limit else "FAIL",
                          detail=f"{ratio:.2f}x wall, {cpu:.2f}x CPU (limit {limit:g}x)")
        targets.append(target)
    small, large = results.get((1000, "lint-one")), results.get((10000, "lint-one"))
    target = {"name": "lint of one file at 10,000 docs at most 1.5x at 1,000 docs", "limit_ratio": 1.5}
    if small is None or large is None:
        target.update(status="SKIP", detail="needs sizes 1000 and 10000")
    else:
        ratio = large["median_ms"] / small["median_ms"]
        target.update(value_ratio=round(ratio, 2), status="PASS" if ratio <= 1.5 else "FAIL",
                      detail=f"{large['median_ms']:.0f} ms vs {small['median_ms']:.0f} ms = {ratio:.2f}x (limit 1.5x)")
    targets.append(target)
    return targets


def print_rows(payload: dict[str, object], labels: dict[str, str], width: int) -> None:
    """The size/command/median/p90/ratio table, then targets and warnings: shared by the speed benchmarks."""
    cpu = any("cpu_ratio" in row for row in payload["results"])  # type: ignore[attr-defined]
    header = f"{'docs':>6}  {'command':<{width}} {'median ms':>10} {'p90 ms':>9} {'x floor':>8}"
    header += f" {'cpu ms':>8} {'cpu x':>6}" if cpu else ""
    print(header)
    print("-" * len(header))
    previous = None
    results = payload["results"]
    assert isinstance(results, list)
    for row in results:
        if previous is not None and row["size"] != previous:
            print()
        previous = row["size"]
        line = (f"{row['size']:>6}  {labels[row['command']]:<{width}} {row['median_ms']:>10.1f} "
                f"{row['p90_ms']:>9.1f} {row['ratio']:>8.2f}")
        if cpu:
            line += f" {row['cpu_median_ms']:>8.1f} {row['cpu_ratio']:>6.2f}"
        print(line)
    print()
    print("targets (informational)")
    targets = payload["targets"]
    assert isinstance(targets, list)
    for target in targets:
        print(f"  {target['status']:<4}  {target['name']}: {target['detail']}")
    warnings = payload.get("warnings") or []
    assert isinstance(warnings, list)
    for warning in warnings:
        print(f"  WARNING  {warning}")


def write_results(out: Path, payload: dict[str, object], machine: dict[str, object]) -> None:
    """Stamp the end-of-run load, write the JSON: shared by the benchmarks."""
    if hasattr(os, "getloadavg"):
        machine["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write_json(out, payload)


def write_json(out: Path, payload: object) -> None:
    """A benchmark's results file: indented JSON, its folder made if needed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def install_mode() -> str:
    """"editable" (pip install -e), "regular", or "none".

    It moves the floor: an editable install's finder runs in every interpreter of the venv, the
    floor's too, and imports pathlib and more (about 7 ms here), which docir then finds loaded. A
    regular install, what `pip install docir` gives, has the lower floor and the higher ratios.
    """
    from importlib.metadata import distributions

    found = list(distributions(name="docir"))  # the source tree's egg-info too, when run from it
    if not found:
        return "none"
    for dist in found:
        direct = dist.read_text("direct_url.json")
        if direct and json.loads(direct).get("dir_info", {}).get("editable"):
            return "editable"
    return "regular"


def print_table(payload: dict[str, object]) -> None:
    machine = payload["machine"]
    config = payload["config"]
    assert isinstance(machine, dict) and isinstance(config, dict)
    print(f"docir speed: python {machine['python']}, {machine['cpu_count']} CPUs, sqlite {machine['sqlite']}, "
          f"seed {config['seed']}, {config['repeat']} rounds (+{config['warmup']} warm-up)")
    print(f'floor  python -c "import sqlite3, json": median {payload["floor_ms"]:.1f} ms, '
          f"p90 {payload['floor_p90_ms']:.1f} ms, CPU {payload['floor_cpu_ms']:.1f} ms")
    if machine.get("install") == "editable":
        print("note   editable install: its finder raises the floor, so these ratios are lower than a regular "
              "install's (see install_mode)")
    print()
    print_rows(payload, LABELS, 34)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000",
                        help="store sizes, comma-separated (default 100,1000,10000)")
    parser.add_argument("--repeat", type=int, default=15, help="measured rounds (default 15)")
    parser.add_argument("--warmup", type=int, default=1, help="discarded warm-up rounds (default 1)")
    parser.add_argument("--seed", type=int, default=SEED, help="generator seed (default 7)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "speed.json", help="JSON output")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache", help="where generated stores are kept")
    parser.add_argument("--warm", action="store_true",
                        help="also time get/search/query answered by a warm worker (started without a model)")
    args = parser.parse_args(argv)
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    except ValueError:
        parser.error("--sizes takes integers separated by commas, e.g. 100,1000")
    if not sizes or min(sizes) < 1 or args.repeat < 1 or args.warmup < 0:
        parser.error("sizes and --repeat must be positive")

    started = time.perf_counter()
    machine = machine_info()
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
            (store.root / MARKER).rename(store.root / (MARKER + ".measuring"))
        try:
            warm_pids: dict[int, object] = {}
            if args.warm:
                for store in stores:
                    reply = worker(store, "start")
                    warm_pids[store.size] = reply.get("pid")
                    store.setup["warm_worker"] = {"pid": reply.get("pid"), "semantic": reply.get("semantic")}
            floor, samples, warnings = measure(stores, commands, args.repeat, args.warmup)
            for store in stores if args.warm else []:
                if worker(store, "status").get("pid") != warm_pids[store.size]:
                    warnings.append(f"the warm worker of the {store.size}-document store did not last the run")
        finally:
            for store in stores:
                if args.warm:
                    worker(store, "stop")
                store.restore()
                _run(store.argv("reindex-unchanged"), what=f"final reindex of {store.size} docs")
                (store.root / (MARKER + ".measuring")).rename(store.root / MARKER)
    except BenchmarkError as exc:
        print(f"speed: {exc}", file=sys.stderr)
        return 1

    floor_median = statistics.median(floor)
    floor_cpu = statistics.median(CPU_SAMPLES[(0, "floor")])
    by_key: dict[tuple[int, str], dict[str, float]] = {(0, "floor"): {"median_ms": floor_median, "cpu_ms": floor_cpu}}
    results = []
    for store in stores:
        for command in commands:
            values = samples[(store.size, command)]
            median = statistics.median(values)
            row = {
                "size": store.size,
                "command": command,
                "mode": "warm" if command.endswith("-warm") else "cold",
                "argv": " ".join(["docir", *store.argv(command)[3:]]).replace(f" --root {store.root}", ""),
                "median_ms": round(median, 1),
                "p90_ms": round(percentile(values, 0.9), 1),
                "ratio": round(median / floor_median, 2),
                "samples_ms": [round(v, 1) for v in values],
                "cpu_median_ms": round(statistics.median(CPU_SAMPLES[(store.size, command)]), 1),
                "cpu_ratio": round(statistics.median(CPU_SAMPLES[(store.size, command)]) / floor_cpu, 2),
            }
            by_key[(store.size, command)] = {"median_ms": median, "cpu_ms": row["cpu_median_ms"]}  # type: ignore[dict-item]
            results.append(row)
    payload: dict[str, object] = {
        "benchmark": "speed",
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine,
        "config": {"sizes": sizes, "repeat": args.repeat, "warmup": args.warmup, "seed": args.seed,
                   "search_text": SEARCH_TEXT, "touch_share": TOUCH_SHARE, "warm": args.warm,
                   "pycache_prefix": str(PYCACHE),
                   "caller_had_dontwritebytecode": "PYTHONDONTWRITEBYTECODE" in os.environ},
        "setup": [{"size": s.size, **s.setup} for s in stores],
        "floor_ms": round(floor_median, 1),
        "floor_p90_ms": round(percentile(floor, 0.9), 1),
        "floor_samples_ms": [round(v, 1) for v in floor],
        "floor_cpu_ms": round(floor_cpu, 1),
        "results": results,
        "targets": evaluate_targets(by_key),
        "warnings": warnings,
        "duration_s": round(time.perf_counter() - started, 1),
    }
    write_json(args.out, payload)
    print_table(payload)
    print(f"\nwrote {args.out} ({payload['duration_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
