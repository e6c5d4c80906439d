"""How long docir's post-checkout hook takes, and what it adds to `git checkout`.

    python -m benchmarks.hook_speed [--docs 1000] [--changed 10] [--repeat 15]

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

import ast
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import _harness as harness
from benchmarks.generate import generate_store

COMMANDS: tuple[tuple[str, str], ...] = (
    ("git-checkout-nohook", "git checkout, no hooks (reference)"),
    ("hook-changed", "post-checkout hook, {n} documents changed"),
    ("hook-unchanged", "post-checkout hook, nothing changed"),
    ("hook-same-commit", "post-checkout hook, same commit (skips)"),
    ("git-checkout-hook", "git checkout with the hook ({n} changed)"),
)
LIMITS_MS = {"hook-changed": 1000.0, "hook-unchanged": 300.0}


def run(argv: list[str], cwd: Path, *, what: str) -> tuple[float, bytes]:
    """One process in `cwd` with git_env: its wall ms and stdout (commit_hook_speed.py runs its own this way)."""
    ran = harness.run(argv, what=what, cwd=cwd, env=harness.git_env())
    return ran.ms, ran.stdout


def build_repo(repo: Path, docs: int, changed: int, seed: int) -> dict[str, object]:
    setup: dict[str, object] = {}
    started = time.perf_counter()
    generate_store(repo, docs, seed)
    setup["generate_s"] = round(time.perf_counter() - started, 2)
    harness.git(repo, "init", "-q", "-b", "main")
    harness.git(repo, "config", "commit.gpgsign", "false")
    run(harness.docir_argv("init", "--root", str(repo)), repo, what="docir init")
    harness.git(repo, "add", "-A")
    harness.git(repo, "commit", "-q", "-m", "generated store")
    tracked = harness.git(repo, "ls-files", ".docir").split()
    setup["tracked_state_files"] = tracked
    if ".docir/.gitignore" not in tracked:
        raise harness.BenchmarkError(f".docir/.gitignore was not committed (tracked: {tracked})")
    files = sorted((repo / "docs").rglob("*.md"))
    step = len(files) / changed
    picks = [files[int(i * step)] for i in range(changed)]
    harness.git(repo, "checkout", "-q", "-b", "changed")
    for path in picks:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.rstrip("\n") + "\n\nA paragraph added on the `changed` branch by the hook benchmark; "
                        "it gives the document new text, so the index must update it.\n", encoding="utf-8")
    harness.git(repo, "commit", "-q", "-am", f"change {changed} documents")
    harness.git(repo, "checkout", "-q", "main")
    setup["changed_paths"] = [str(p.relative_to(repo)) for p in picks]
    _, out = run(harness.docir_argv("hooks", "install", "--json"), repo, what="docir hooks install")
    setup["hooks_install"] = json.loads(out)
    started = time.perf_counter()
    _, out = run(harness.docir_argv("reindex", "--root", str(repo)), repo, what="initial reindex")
    setup["initial_reindex_ms"] = round((time.perf_counter() - started) * 1000)
    setup["initial_reindex"] = json.loads(out)
    status = harness.git(repo, "status", "--porcelain")
    if status:
        raise harness.BenchmarkError(f"the worktree is not clean after setup (is .docir/ ignored?):\n{status}")
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


def measure(repo: Path, empty_hooks: Path, changed: int, repeat: int, warmup: int) -> dict[str, Any]:
    main_sha = harness.git(repo, "rev-parse", "main")
    changed_sha = harness.git(repo, "rev-parse", "changed")
    hook = str(repo / ".git" / "hooks" / "post-checkout")
    argv = {
        "git-checkout-nohook": ["git", "-c", f"core.hooksPath={empty_hooks}", "checkout", "-q", "changed"],
        "hook-changed": [hook, main_sha, changed_sha, "1"],
        "hook-unchanged": [hook, main_sha, changed_sha, "1"],
        "hook-same-commit": [hook, changed_sha, changed_sha, "1"],
        "git-checkout-hook": ["git", "checkout", "-q", "main"],
    }
    expect = {"hook-changed": changed, "hook-unchanged": 0, "git-checkout-hook": changed}
    warnings: list[str] = []
    logged: dict[str, list[object]] = {c: [] for c in expect}
    rounds = harness.Rounds("hook_speed", repeat, warmup, floor_env=harness.git_env())
    for _ in rounds:
        for command, _ in COMMANDS:
            log = repo / ".docir" / "run" / "hooks.log"
            before = log.stat().st_size if log.exists() else 0
            rounds.record(command, harness.run(argv[command], what=command, cwd=repo, env=harness.git_env()))
            if command in expect:
                counts = last_refresh(repo)
                updated = counts.get("updated") if isinstance(counts, dict) else None
                logged[command].append(updated)
                grew = log.exists() and log.stat().st_size > before
                if not grew or updated != expect[command]:
                    harness.warn_once("hook_speed", warnings,
                                      f"{command}: expected the hook to log updated={expect[command]}, "
                                      f"got {counts!r}{'' if grew else ' (nothing new in hooks.log)'}")
        if harness.git(repo, "rev-parse", "--abbrev-ref", "HEAD") != "main" or \
                harness.git(repo, "status", "--porcelain"):
            raise harness.BenchmarkError("the repository is not back on a clean `main` after a round")
    return {"samples": rounds.samples, "warnings": warnings, "logged_updated": logged,
            "argv": {k: " ".join(v) for k, v in argv.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = harness.arguments("hook_speed", __doc__, repeat=15, warmup=1, seed=True)
    parser.add_argument("--docs", type=int, default=1000, help="documents in the store (default 1000)")
    parser.add_argument("--changed", type=int, default=10, help="documents the `changed` branch edits (default 10)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary repository (its path is printed)")
    args = parser.parse_args(argv)
    if args.docs < 1 or args.repeat < 1 or args.warmup < 0 or not 1 <= args.changed <= args.docs:
        parser.error("--docs and --repeat must be positive, --changed between 1 and --docs")
    started = time.perf_counter()
    machine = harness.machine_info()
    done = harness.in_temp_repo("hook_speed", args.keep, lambda repo, empty_hooks: (
        build_repo(repo, args.docs, args.changed, args.seed),
        measure(repo, empty_hooks, args.changed, args.repeat, args.warmup)))
    if done is None:
        return 1
    setup, measured = done
    samples = measured["samples"]
    floor = samples.row("floor")
    results = [{"command": command, "label": label.format(n=args.changed), "argv": measured["argv"][command],
                **samples.row(command)} for command, label in COMMANDS]
    by_command = {row["command"]: row for row in results}
    targets = []
    for command, limit in LIMITS_MS.items():
        row = by_command[command]
        targets.append({"name": f"{row['label']} under {limit / 1000:g} s", "limit_ms": limit,
                        "value_ms": row["median_ms"], "status": "PASS" if row["median_ms"] < limit else "FAIL",
                        "detail": f"median {row['median_ms']:.0f} ms (limit {limit:.0f} ms)"})
    payload: dict[str, Any] = {
        "machine": machine,
        "config": {"docs": args.docs, "changed": args.changed, "repeat": args.repeat, "warmup": args.warmup,
                   "seed": args.seed, "pycache_prefix": str(harness.PYCACHE), "docir_worker": "0"},
        "setup": setup,
        "floor_ms": floor["median_ms"], "floor_p90_ms": floor["p90_ms"], "floor_samples_ms": floor["samples_ms"],
        "results": results,
        "logged_updated": measured["logged_updated"],
        "targets": targets,
        "warnings": measured["warnings"],
        "duration_s": round(time.perf_counter() - started, 1),
    }
    title = [f"docir post-checkout hook: python {machine['python']}, {machine['cpu_count']} CPUs, {args.docs} "
             f"documents, {args.changed} changed between branches, {args.repeat} rounds (+{args.warmup} warm-up), "
             "DOCIR_WORKER=0",
             harness.floor_line(floor)]
    harness.report("hook_speed", payload, title=title, out=args.out,
           columns=[("what", ""), ("median ms", ".1f"), ("p90 ms", ".1f"), ("x floor", ".2f")],
           rows=[[r["label"], r["median_ms"], r["p90_ms"], r["ratio"]] for r in results])
    return 0


if __name__ == "__main__":
    sys.exit(main())
