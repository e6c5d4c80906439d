"""What docir's benchmarks share: stores, timed processes, rounds against the floor, statistics, the report.

Each benchmark stays one script with one command; this module holds what they would otherwise
each write again:

    stores      store_key / cached_marker / write_marker / fresh_store: a generated store
                (benchmarks/generate.py) kept in benchmarks/.cache/ and reused while generate.py is unchanged;
                in_temp_repo / git: a throwaway git repository
    processes   child_env / model_env / git_env, run (wall and CPU time of one process; BenchmarkError
                on failure), docir_argv, timed (an in-process call)
    rounds      Rounds: every round runs the floor (`python -c "import sqlite3, json"`) first, then the
                script's commands, so the machine's noise hits all alike; warm-up rounds are dropped
    statistics  percentile (nearest rank), Samples.row (median, p90, ratio to the floor, CPU), target
                (an informational PASS/FAIL/SKIP), warn_once (a sanity-check problem, once)
    command     arguments: the parser with --out and, when asked, --repeat, --warmup, --seed
    report      report: prints the title lines, an aligned table (table), the targets and warnings, the
                notes, and writes the JSON to benchmarks/results/<name>.json (or --out), stamped with
                machine_info; floor_line says what the floor was

Scripts `from benchmarks._harness import ...` or `from benchmarks import _harness as harness`: benchmarks/ is a
package, each script run as `python -m benchmarks.<name>` from the repository root, and a benchmark that runs
another (or itself again) as a child does so by module name too (module_argv, tree_module_argv,
benchmarks_alone). The leading underscore says it is no benchmark of its own: it has no command.
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
import tempfile
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.generate import generate_store

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
PYCACHE = CACHE / "pycache"
NO_MODEL = CACHE / "no-model"  # an empty folder: a worker started with it runs without a model
SEED = 7
FLOOR_ARGV = [sys.executable, "-c", "import sqlite3, json"]
MARKER = ".benchmark-store.json"
T = TypeVar("T")


class BenchmarkError(SystemExit):
    """A step of a benchmark failed. A script may catch it; uncaught, it ends the script with its
    message on stderr and exit 1, as SystemExit does, and no traceback."""


# --- environments ---------------------------------------------------------------------------------


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
        NO_MODEL.mkdir(parents=True, exist_ok=True)
        env["DOCIR_MODEL_PATH"] = str(NO_MODEL)
    return env


def model_env(worker: bool) -> dict[str, str]:
    """child_env for the benchmarks that rank and embed: the model on, in the worker too."""
    return child_env(worker=worker, with_model=True)


def git_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (default child_env: no worker ever) in a git of its own, with a fixed identity."""
    env = dict(child_env() if base is None else base)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(key, None)
    env.update({"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
                "GIT_CONFIG_NOSYSTEM": "1"})
    return env


# --- running one process --------------------------------------------------------------------------


@dataclass(frozen=True)
class Ran:
    """One finished process: wall and CPU milliseconds (user + system, its children included), its output."""

    ms: float
    cpu_ms: float
    stdout: bytes
    stderr: bytes
    code: int

    def json(self) -> dict[str, Any]:
        """stdout as a JSON object; {} when it is not one."""
        try:
            data = json.loads(self.stdout)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}


def _children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def run(argv: Sequence[str], *, what: str, env: dict[str, str] | None = None, cwd: Path | None = None,
        ok_codes: Sequence[int] = (0,), input: bytes | None = None, timeout: float | None = None) -> Ran:
    """Run one process with stdout to a pipe; BenchmarkError when its exit code is not in `ok_codes`.

    Its CPU time is the growth of this process's children's usage: processes run one at a time,
    so it grows by exactly this one's (and its waited-for children's).
    """
    cpu = _children_cpu_ms()
    started = time.perf_counter()
    proc = subprocess.run(list(argv), cwd=cwd, input=input, capture_output=True,
                          stdin=None if input is not None else subprocess.DEVNULL,
                          env=child_env() if env is None else env, timeout=timeout, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    ran = Ran(elapsed, _children_cpu_ms() - cpu, proc.stdout, proc.stderr, proc.returncode)
    if proc.returncode not in ok_codes:
        stderr = (proc.stdout + proc.stderr).decode(errors="replace").strip()
        raise BenchmarkError(f"{what} failed (exit {proc.returncode}): {' '.join(argv)}\n{stderr[-3000:]}")
    return ran


def timed(call: Callable[[], T]) -> tuple[T, float]:
    """`call()`'s result and its wall milliseconds: for what is timed in-process."""
    started = time.perf_counter()
    result = call()
    return result, (time.perf_counter() - started) * 1000


@contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """`count` processes that spin on a core each for as long as the block runs: a machine whose cores
    other work wants too, as a user's machine or a CI runner often is."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def user_cache(tree: Path) -> Path:
    """A user cache (XDG_CACHE_HOME) of its own for the docir of `tree`. What docir keeps there is stamped
    with the code that made it (kept `--help` text, the folded model's recipe), and two trees sharing one
    would replace each other's at every call."""
    return CACHE / f"user-cache-{'this' if tree == REPO else tree.name}"


def docir_argv(*args: str) -> list[str]:
    """`python -m docir ARGS` with this interpreter: what every benchmark times."""
    return [sys.executable, "-m", "docir", *args]


def module_argv(module: str, *args: str) -> list[str]:
    """`python -m benchmarks.MODULE ARGS` with this interpreter: a benchmark of this checkout (MODULE as
    "embed_throughput" or "quality.eips") run as a child, with cwd=REPO so that the package is found."""
    return [sys.executable, "-m", f"benchmarks.{module}", *args]


def tree_module_argv(tree: Path, module: str, *args: str) -> list[str]:
    """`tree`'s own benchmark MODULE, for a child whose PYTHONPATH starts with `tree` (and whose cwd holds no
    benchmarks/ of its own): `python -m benchmarks.MODULE ARGS` where the tree's benchmarks/ is a package.

    A revision from before benchmarks/ was a package runs the script by its path, as it was run then (it puts
    its own folder on the import path). By name, its plain folder would lose to this checkout's package,
    which an editable install of docir puts on every interpreter's path."""
    if (tree / "benchmarks" / "__init__.py").is_file():
        return module_argv(module, *args)
    return [sys.executable, str(tree / "benchmarks" / Path(*module.split(".")).with_suffix(".py")), *args]


@contextmanager
def benchmarks_alone() -> Iterator[Path]:
    """A folder holding only a link to this checkout's benchmarks/, for the cwd of a child that runs this
    checkout's benchmark modules (module_argv) with the docir of another tree (PYTHONPATH=tree).

    `python -m` puts the working folder first on the import path: from here it finds `benchmarks` in this
    checkout and `docir` in the tree, where the repository root would give it this checkout's docir too."""
    with tempfile.TemporaryDirectory(prefix="docir-benchmarks-") as folder:
        (Path(folder) / "benchmarks").symlink_to(HERE, target_is_directory=True)
        yield Path(folder)


# --- rounds against the floor ---------------------------------------------------------------------


@dataclass
class Samples:
    """Wall and CPU milliseconds by key; the floor's under FLOOR (or a phase's own floor key)."""

    wall: dict[Hashable, list[float]] = field(default_factory=dict)
    cpu: dict[Hashable, list[float]] = field(default_factory=dict)

    def add(self, key: Hashable, ms: float, cpu_ms: float | None = None) -> None:
        self.wall.setdefault(key, []).append(ms)
        if cpu_ms is not None:
            self.cpu.setdefault(key, []).append(cpu_ms)

    def median(self, key: Hashable) -> float:
        return statistics.median(self.wall[key])

    def row(self, key: Hashable, floor: Hashable = "floor", digits: int = 1) -> dict[str, Any]:
        """median_ms, p90_ms, ratio (median over the floor's median) and samples_ms; with CPU samples also
        cpu_median_ms and cpu_ratio."""
        values = self.wall[key]
        median = statistics.median(values)
        row: dict[str, Any] = {"median_ms": round(median, digits), "p90_ms": round(percentile(values, 0.9), digits)}
        if floor in self.wall and key != floor:
            row["ratio"] = round(median / self.median(floor), 2)
        row["samples_ms"] = [round(v, digits) for v in values]
        if self.cpu.get(key):
            cpu = statistics.median(self.cpu[key])
            row["cpu_median_ms"] = round(cpu, digits)
            if self.cpu.get(floor) and key != floor:
                row["cpu_ratio"] = round(cpu / statistics.median(self.cpu[floor]), 2)
        return row


FLOOR = "floor"


class Rounds:
    """Paired timing against the floor: iterate for the round numbers; each round first runs the floor.

        rounds = Rounds("speed", repeat, warmup)
        for round_no in rounds:
            rounds.record(key, run(argv, what=...))

    The first `warmup` rounds are run and dropped. A progress line per round goes to stderr.
    """

    def __init__(self, name: str, repeat: int, warmup: int = 1, *, samples: Samples | None = None,
                 floor: Hashable = FLOOR, floor_env: dict[str, str] | None = None, label: str = "") -> None:
        self.name, self.repeat, self.warmup, self.label = name, repeat, warmup, label
        self.samples = Samples() if samples is None else samples
        self.floor, self.floor_env = floor, floor_env
        self.keep = False

    def __iter__(self) -> Iterator[int]:
        for round_no in range(self.warmup + self.repeat):
            self.keep = round_no >= self.warmup
            started = time.perf_counter()
            self.record(self.floor, run(FLOOR_ARGV, what="floor", env=self.floor_env))
            yield round_no
            what = "warm-up" if not self.keep else f"round {round_no - self.warmup + 1}/{self.repeat}"
            label = f"{self.label} " if self.label else ""
            print(f"{self.name}: {label}{what} done in {time.perf_counter() - started:.1f} s", file=sys.stderr)

    def record(self, key: Hashable, ran: Ran | float) -> None:
        """Keep a sample (a Ran, or milliseconds measured some other way) unless this is a warm-up round."""
        if not self.keep:
            return
        if isinstance(ran, Ran):
            self.samples.add(key, ran.ms, ran.cpu_ms)
        else:
            self.samples.add(key, ran)


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def floor_line(floor: dict[str, Any], during: str = "") -> str:
    """The report's line about the floor, from its Samples.row."""
    cpu = f", CPU {floor['cpu_median_ms']:.1f} ms" if "cpu_median_ms" in floor else ""
    return (f'floor  python -c "import sqlite3, json"{during}: median {floor["median_ms"]:.1f} ms, '
            f'p90 {floor["p90_ms"]:.1f} ms{cpu}')


def warn_once(name: str, warnings: list[str], problem: str | None) -> None:
    """Add a sanity-check problem to `warnings` (and stderr) the first time it is seen."""
    if problem and problem not in warnings:
        warnings.append(problem)
        print(f"{name}: warning: {problem}", file=sys.stderr)


# --- stores ---------------------------------------------------------------------------------------


def store_key(*extra: str) -> str:
    """Changes whenever generate.py (or `extra`) does, so a cached store is never stale."""
    digest = hashlib.sha256((HERE / "generate.py").read_bytes())
    for part in extra:
        digest.update(part.encode())
    return digest.hexdigest()[:16]


def cached_marker(root: Path, key: str, size: int, seed: int) -> dict[str, Any] | None:
    """The marker of a cached store made by the same generator, size and seed; None when there is none."""
    try:
        info = json.loads((root / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or (info.get("key"), info.get("docs"), info.get("seed")) != (key, size, seed):
        return None
    return info if isinstance(info.get("ids"), list) else None


def write_marker(root: Path, key: str, size: int, seed: int, ids: list[str], **extra: object) -> None:
    payload = {"key": key, "docs": size, "seed": seed, "ids": ids, **extra}
    (root / MARKER).write_text(json.dumps(payload), encoding="utf-8")


def fresh_store(root: Path, size: int, seed: int = SEED) -> tuple[list[str], float]:
    """Generate a store at `root` (replacing what is there): its ids and the seconds it took."""
    shutil.rmtree(root, ignore_errors=True)
    started = time.perf_counter()
    ids = generate_store(root, size, seed)
    return ids, round(time.perf_counter() - started, 2)


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """A git command in `repo` with git_env; its stdout, stripped."""
    return run(["git", *args], what=f"git {' '.join(args)}", cwd=repo, env=env or git_env()).stdout.decode().strip()


def in_temp_repo(name: str, keep: bool, work: Callable[[Path, Path], T]) -> T | None:
    """`work(repo, empty_hooks)` in a temporary folder (`repo` not made yet; `empty_hooks` an empty
    folder for `core.hooksPath`), removed afterwards unless `keep`. None, with the reason on stderr,
    when git is missing or a step failed."""
    if shutil.which("git") is None:
        print(f"{name}: git is not installed", file=sys.stderr)
        return None
    tmp = Path(tempfile.mkdtemp(prefix=f"docir-{name}-")).resolve()
    repo, empty_hooks = tmp / "repo", tmp / "no-hooks"
    empty_hooks.mkdir()
    try:
        print(f"{name}: building {repo}", file=sys.stderr)
        return work(repo, empty_hooks)
    except BenchmarkError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return None
    finally:
        if keep:
            print(f"{name}: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


# --- the command line ----------------------------------------------------------------------------


def arguments(name: str, doc: str | None, *, repeat: int | None = None, warmup: int | None = None,
              seed: bool = False) -> argparse.ArgumentParser:
    """A benchmark's parser: the docstring's first paragraph as its description, --out (default
    benchmarks/results/<name>.json), and, when given their defaults, --repeat, --warmup and --seed."""
    parser = argparse.ArgumentParser(description=(doc or name).split("\n\n")[0])
    if repeat is not None:
        parser.add_argument("--repeat", type=int, default=repeat, help=f"measured rounds (default {repeat})")
    if warmup is not None:
        parser.add_argument("--warmup", type=int, default=warmup, help=f"discarded warm-up rounds (default {warmup})")
    if seed:
        parser.add_argument("--seed", type=int, default=SEED, help=f"generator seed (default {SEED})")
    parser.add_argument("--out", type=Path, help=f"JSON output (default benchmarks/results/{name}.json)")
    return parser


# --- the report -----------------------------------------------------------------------------------


def machine_info() -> dict[str, object]:
    """Where and what was measured: CPUs, Python, SQLite, load, docir's install mode and source hash."""
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
    for path in sorted((REPO / "docir").rglob("*")):
        if path.suffix in (".py", ".yaml") and path.is_file():
            source.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    info["docir_source_sha256"] = source.hexdigest()[:16]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=False)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "docir"], cwd=REPO, capture_output=True,
                               text=True, check=False)
        if head.returncode == 0:
            info["git_head"] = head.stdout.strip()
            info["docir_tree_dirty"] = bool(dirty.stdout.strip())
    except OSError:
        pass
    return info


def install_mode() -> str:
    """"editable" (pip install -e), "regular", or "none".

    It can move the floor: an install whose editable hook runs code in every interpreter of the
    venv (an import finder) raises the floor's cost too; a path in a .pth file, what flit_core's
    editable install writes, costs next to nothing.
    """
    from importlib.metadata import distributions

    found = list(distributions(name="docir"))
    if not found:
        return "none"
    for dist in found:
        direct = dist.read_text("direct_url.json")
        if direct and json.loads(direct).get("dir_info", {}).get("editable"):
            return "editable"
    return "regular"


def results_path(name: str) -> Path:
    """Where a benchmark writes its JSON unless told otherwise: benchmarks/results/<name>.json."""
    return RESULTS / f"{name}.json"


def write_json(out: Path, payload: object) -> None:
    """A results file: indented JSON, its folder made if needed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


Column = tuple[str, str]  # a header and a format spec without width: ".1f", ".2f", "d", "" (text)


def table(columns: Sequence[Column], rows: Iterable[Sequence[object] | None]) -> list[str]:
    """An aligned table: header, rule, one line a row (None: an empty line). Numbers right, text left;
    a None cell prints as '-'."""
    cells: list[list[str] | None] = []
    for row in rows:
        if row is None:
            cells.append(None)
            continue
        cells.append(["-" if value is None else format(value, spec) for value, (_, spec) in zip(row, columns,
                                                                                                 strict=True)])
    widths = [max([len(head)] + [len(line[i]) for line in cells if line is not None])
              for i, (head, _) in enumerate(columns)]
    right = [bool(spec) and (spec[-1] in "dfegn%" or spec[0] == ">") for _, spec in columns]

    def line(values: Sequence[str]) -> str:
        return " ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right, strict=True)).rstrip()

    header = line([head for head, _ in columns])
    return [header, "-" * len(header), *("" if row is None else line(row) for row in cells)]


def report(name: str, payload: dict[str, Any], *, title: Sequence[str] = (), columns: Sequence[Column] = (),
           rows: Iterable[Sequence[object] | None] = (), notes: Sequence[str] = (), out: Path | None = None) -> Path:
    """Write the results and show them: the one way every benchmark ends.

    The JSON (payload, with "benchmark" and "when" filled in and the machine's end-of-run load
    stamped into payload["machine"] when present) goes to `out`, default benchmarks/results/<name>.json.
    Printed: the title lines, the table, the payload's "targets" and "warnings" if any, the notes,
    and where the JSON went. Returns that path.
    """
    out = results_path(name) if out is None else out
    payload = {"benchmark": name, "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), **payload}
    machine = payload.get("machine")
    if isinstance(machine, dict) and hasattr(os, "getloadavg"):
        machine["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write_json(out, payload)
    for text in title:
        print(text)
    if columns:
        if title:
            print()
        print("\n".join(table(columns, rows)))
    targets = payload.get("targets") or []
    warnings = payload.get("warnings") or []
    if targets or warnings:
        print()
    if targets:
        print("targets (informational)")
    for target in targets:
        print(f"  {target['status']:<4}  {target['name']}: {target['detail']}")
    for warning in warnings:
        print(f"  WARNING  {warning}")
    for text in notes:
        print(text)
    took = f" ({payload['duration_s']} s)" if "duration_s" in payload else ""
    print(f"\nwrote {out}{took}")
    return out


def target(name: str, value: float | None, limit: float, detail: str, *, unit: str = "ratio",
           skip: str = "not measured") -> dict[str, object]:
    """An informational target: PASS when `value` is at most `limit` (SKIP with `skip` when there is no value)."""
    row: dict[str, object] = {"name": name, f"limit_{unit}": limit}
    if value is None:
        row.update(status="SKIP", detail=skip)
    else:
        row.update({f"value_{unit}": round(value, 2), "status": "PASS" if value <= limit else "FAIL",
                    "detail": detail})
    return row
