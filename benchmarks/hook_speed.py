"""How long docir's post-checkout hook takes, and what it adds to `git checkout`.

    python benchmarks/hook_speed.py [--docs 1000] [--changed 10] [--repeat 15]

Builds a temporary git repository holding a generated store (benchmarks/generate.py, seed 7),
with `docir init`'s `.docir/.gitignore` committed, a branch `changed` that edits 10 documents
(a paragraph appended to each body), docir's hooks installed with `python -m docir hooks install`
and the index built. Every process runs with DOCIR_WORKER=0, so no worker starts. Then, in rounds
(worktree on `main`, index in sync at the start of each):

    floor                   python -c "import sqlite3, json"
    git-checkout-nohook     git -c core.hooksPath=<empty> checkout changed   (worktree switches, index goes stale)
    hook-changed            .git/hooks/post-checkout MAIN CHANGED 1          (picks up the 10 changed documents)
    hook-unchanged          .git/hooks/post-checkout MAIN CHANGED 1          (again: nothing changed since)
    hook-same-commit        .git/hooks/post-checkout CHANGED CHANGED 1       (git's "same commit": hook skips refresh)
    git-checkout-hook       git checkout main                                (hook included; 10 documents change back)

The hook is run directly, as git runs it (cwd at the worktree root), so its time is the hook's
alone. The first round is a discarded warm-up. Medians and p90 in ms, ratios to the floor.
Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate_store  # benchmarks/ is not a package
from speed import FLOOR_ARGV, PYCACHE, child_env, machine_info, percentile, write_results

SEED = 7
T = TypeVar("T")
COMMANDS: tuple[tuple[str, str], ...] = (
    ("git-checkout-nohook", "git checkout, no hooks (reference)"),
    ("hook-changed", "post-checkout hook, {n} documents changed"),
    ("hook-unchanged", "post-checkout hook, nothing changed"),
    ("hook-same-commit", "post-checkout hook, same commit (skips)"),
    ("git-checkout-hook", "git checkout with the hook ({n} changed)"),
)
LIMITS_MS = {"hook-changed": 1000.0, "hook-unchanged": 300.0}


class BenchmarkError(Exception):
    pass


def git_env() -> dict[str, str]:
    """speed.py's environment (no worker ever), in a git of its own with a fixed identity."""
    env = child_env()
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(key, None)
    env.update({"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
                "GIT_CONFIG_NOSYSTEM": "1"})
    return env


def run(argv: list[str], cwd: Path, *, what: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, env=git_env(), check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        stderr = proc.stderr.decode(errors="replace").strip()
        raise BenchmarkError(f"{what} failed (exit {proc.returncode}): {' '.join(argv)}\n{stderr[-2000:]}")
    return elapsed, proc.stdout


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


def git(repo: Path, *args: str) -> str:
    return run(["git", *args], repo, what=f"git {' '.join(args)}")[1].decode().strip()


def build_repo(repo: Path, docs: int, changed: int, seed: int) -> dict[str, object]:
    setup: dict[str, object] = {}
    started = time.perf_counter()
    generate_store(repo, docs, seed)
    setup["generate_s"] = round(time.perf_counter() - started, 2)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    run([sys.executable, "-m", "docir", "init", "--root", str(repo)], repo, what="docir init")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "generated store")
    tracked = git(repo, "ls-files", ".docir").split()
    setup["tracked_state_files"] = tracked
    if ".docir/.gitignore" not in tracked:
        raise BenchmarkError(f".docir/.gitignore was not committed (tracked: {tracked})")
    files = sorted((repo / "docs").rglob("*.md"))
    step = len(files) / changed
    picks = [files[int(i * step)] for i in range(changed)]
    git(repo, "checkout", "-q", "-b", "changed")
    for path in picks:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.rstrip("\n") + "\n\nA paragraph added on the `changed` branch by the hook benchmark; "
                        "it gives the document new text, so the index must update it.\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", f"change {changed} documents")
    git(repo, "checkout", "-q", "main")
    setup["changed_paths"] = [str(p.relative_to(repo)) for p in picks]
    _, out = run([sys.executable, "-m", "docir", "hooks", "install", "--json"], repo, what="docir hooks install")
    setup["hooks_install"] = json.loads(out)
    started = time.perf_counter()
    _, out = run([sys.executable, "-m", "docir", "reindex", "--root", str(repo)], repo, what="initial reindex")
    setup["initial_reindex_ms"] = round((time.perf_counter() - started) * 1000)
    setup["initial_reindex"] = json.loads(out)
    status = git(repo, "status", "--porcelain")
    if status:
        raise BenchmarkError(f"the worktree is not clean after setup (is .docir/ ignored?):\n{status}")
    return setup


def last_refresh(repo: Path) -> dict[str, object] | str:
    """The counts the hook logged last (.docir/run/hooks.log: 'post-checkout: refreshed {...}')."""
    try:
        line = (repo / ".docir" / "run" / "hooks.log").read_text(encoding="utf-8").splitlines()[-1]
    except (OSError, IndexError):
        return "no hooks.log"
    _, _, rest = line.partition(": ")
    if rest.startswith("refreshed "):
        try:
            value = ast.literal_eval(rest.removeprefix("refreshed "))
            return value if isinstance(value, dict) else rest
        except (ValueError, SyntaxError):
            return rest
    return rest


def measure(repo: Path, empty_hooks: Path, changed: int, repeat: int, warmup: int) -> dict[str, object]:
    main_sha = git(repo, "rev-parse", "main")
    changed_sha = git(repo, "rev-parse", "changed")
    hook = str(repo / ".git" / "hooks" / "post-checkout")
    argv = {
        "git-checkout-nohook": ["git", "-c", f"core.hooksPath={empty_hooks}", "checkout", "-q", "changed"],
        "hook-changed": [hook, main_sha, changed_sha, "1"],
        "hook-unchanged": [hook, main_sha, changed_sha, "1"],
        "hook-same-commit": [hook, changed_sha, changed_sha, "1"],
        "git-checkout-hook": ["git", "checkout", "-q", "main"],
    }
    expect = {"hook-changed": changed, "hook-unchanged": 0, "git-checkout-hook": changed}
    floor: list[float] = []
    samples: dict[str, list[float]] = {c: [] for c, _ in COMMANDS}
    warnings: list[str] = []
    logged: dict[str, list[object]] = {c: [] for c in expect}
    for round_no in range(warmup + repeat):
        keep = round_no >= warmup
        started = time.perf_counter()
        elapsed, _ = run(FLOOR_ARGV, repo, what="floor")
        if keep:
            floor.append(elapsed)
        for command, _ in COMMANDS:
            log = repo / ".docir" / "run" / "hooks.log"
            before = log.stat().st_size if log.exists() else 0
            elapsed, _ = run(argv[command], repo, what=command)
            if keep:
                samples[command].append(elapsed)
            if command in expect:
                counts = last_refresh(repo)
                updated = counts.get("updated") if isinstance(counts, dict) else None
                logged[command].append(updated)
                grew = log.exists() and log.stat().st_size > before
                if not grew or updated != expect[command]:
                    problem = (f"{command}: expected the hook to log updated={expect[command]}, "
                               f"got {counts!r}{'' if grew else ' (nothing new in hooks.log)'}")
                    if problem not in warnings:
                        warnings.append(problem)
                        print(f"hook_speed: warning: {problem}", file=sys.stderr)
        if git(repo, "rev-parse", "--abbrev-ref", "HEAD") != "main" or git(repo, "status", "--porcelain"):
            raise BenchmarkError("the repository is not back on a clean `main` after a round")
        what = "warm-up" if not keep else f"round {round_no - warmup + 1}/{repeat}"
        print(f"hook_speed: {what} done in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return {"floor": floor, "samples": samples, "warnings": warnings, "logged_updated": logged,
            "argv": {k: " ".join(v) for k, v in argv.items()}}


def print_table(payload: dict[str, object]) -> None:
    machine, config = payload["machine"], payload["config"]
    assert isinstance(machine, dict) and isinstance(config, dict)
    print(f"docir post-checkout hook: python {machine['python']}, {machine['cpu_count']} CPUs, "
          f"{config['docs']} documents, "
          f"{config['changed']} changed between branches, {config['repeat']} rounds (+{config['warmup']} warm-up), "
          f"DOCIR_WORKER=0")
    print(f'floor  python -c "import sqlite3, json": median {payload["floor_ms"]:.1f} ms, '
          f'p90 {payload["floor_p90_ms"]:.1f} ms')
    print()
    header = f"{'what':<46} {'median ms':>10} {'p90 ms':>9} {'x floor':>8}"
    print(header)
    print("-" * len(header))
    results = payload["results"]
    assert isinstance(results, list)
    for row in results:
        print(f"{row['label']:<46} {row['median_ms']:>10.1f} {row['p90_ms']:>9.1f} {row['ratio']:>8.2f}")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1000, help="documents in the store (default 1000)")
    parser.add_argument("--changed", type=int, default=10, help="documents the `changed` branch edits (default 10)")
    parser.add_argument("--repeat", type=int, default=15, help="measured rounds (default 15)")
    parser.add_argument("--warmup", type=int, default=1, help="discarded warm-up rounds (default 1)")
    parser.add_argument("--seed", type=int, default=SEED, help="generator seed (default 7)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "hook_speed.json", help="JSON output")
    parser.add_argument("--keep", action="store_true", help="keep the temporary repository (its path is printed)")
    args = parser.parse_args(argv)
    if args.docs < 1 or args.repeat < 1 or args.warmup < 0 or not 1 <= args.changed <= args.docs:
        parser.error("--docs and --repeat must be positive, --changed between 1 and --docs")
    started = time.perf_counter()
    machine = machine_info()
    done = in_temp_repo("hook_speed", args.keep, lambda repo, empty_hooks: (
        build_repo(repo, args.docs, args.changed, args.seed),
        measure(repo, empty_hooks, args.changed, args.repeat, args.warmup)))
    if done is None:
        return 1
    setup, measured = done

    floor = measured["floor"]
    samples = measured["samples"]
    assert isinstance(floor, list) and isinstance(samples, dict)
    floor_median = statistics.median(floor)
    results = []
    by_command = {}
    for command, label in COMMANDS:
        values = samples[command]
        median = statistics.median(values)
        row = {"command": command, "label": label.format(n=args.changed), "argv": measured["argv"][command],  # type: ignore[index]
               "median_ms": round(median, 1), "p90_ms": round(percentile(values, 0.9), 1),
               "ratio": round(median / floor_median, 2), "samples_ms": [round(v, 1) for v in values]}
        results.append(row)
        by_command[command] = row
    targets = []
    for command, limit in LIMITS_MS.items():
        row = by_command[command]
        targets.append({"name": f"{row['label']} under {limit / 1000:g} s", "limit_ms": limit,
                        "value_ms": row["median_ms"], "status": "PASS" if row["median_ms"] < limit else "FAIL",
                        "detail": f"median {row['median_ms']:.0f} ms (limit {limit:.0f} ms)"})
    payload: dict[str, object] = {
        "benchmark": "hook_speed",
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine,
        "config": {"docs": args.docs, "changed": args.changed, "repeat": args.repeat, "warmup": args.warmup,
                   "seed": args.seed, "pycache_prefix": str(PYCACHE), "docir_worker": "0"},
        "setup": setup,
        "floor_ms": round(floor_median, 1), "floor_p90_ms": round(percentile(floor, 0.9), 1),
        "floor_samples_ms": [round(v, 1) for v in floor],
        "results": results,
        "logged_updated": measured["logged_updated"],
        "targets": targets,
        "warnings": measured["warnings"],
        "duration_s": round(time.perf_counter() - started, 1),
    }
    write_results(args.out, payload, machine)
    print_table(payload)
    print(f"\nwrote {args.out} ({payload['duration_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
