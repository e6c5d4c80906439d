"""What docir's pre-commit hook adds to `git commit`, now that it lints what is staged (adr-b6dd1c2330ab).

    python -m benchmarks.commit_hook_speed [--docs 1000] [--renames 200] [--repeat 11]

Builds a temporary git repository holding a generated store (benchmarks/generate.py, seed 7) and,
two folders below the top, a second small store, both set up by `docir init`, with docir's hooks
installed (`python -m docir hooks install`) and the indexes built. Every process runs with
DOCIR_WORKER=0. Then, in rounds, each case staged afresh (`git reset -q` and the worktree restored
between cases):

    floor              python -c "import sqlite3, json"
    commit-nohook      git -c core.hooksPath=<empty> commit (one staged document), then undone
    hook-one           .git/hooks/pre-commit with one edited document staged (every store of the repository)
    lint-staged-one    python -m docir lint --staged (the same document, this store)
    lint-disk-one      python -m docir lint <that document> (the on-disk lint the hook ran before)
    hook-renames       .git/hooks/pre-commit with N documents renamed (`git mv` into another folder)
    hook-no-docs       .git/hooks/pre-commit with only README.md staged (starts no Python)
    commit-no-docs     git commit of README.md with the hooks, then undone

The hook is run directly, as git runs it (cwd at the worktree root). The first round is a
discarded warm-up. Medians and p90 in ms, ratios to the floor and to `commit-nohook`. Targets:
`lint --staged` of one document at most 1.2x the on-disk lint of it; a commit of no document
within 1.5x `commit-nohook` (no Python). Prints a table, writes JSON.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._harness import (
    SEED,
    Rounds,
    Samples,
    arguments,
    docir_argv,
    git,
    git_env,
    in_temp_repo,
    machine_info,
    report,
)
from benchmarks.generate import generate_store
from benchmarks.hook_speed import run

CASES = ("commit-nohook", "hook-one", "lint-staged-one", "lint-disk-one", "hook-renames", "hook-no-docs",
         "commit-no-docs")
LABELS = {
    "commit-nohook": "git commit, no hooks, 1 document (reference)",
    "hook-one": "pre-commit hook, 1 document staged",
    "lint-staged-one": "docir lint --staged, that document",
    "lint-disk-one": "docir lint of that document on disk (before)",
    "hook-renames": "pre-commit hook, {renames} documents renamed",
    "hook-no-docs": "pre-commit hook, only README.md staged",
    "commit-no-docs": "git commit of README.md, with the hooks",
}


def build_repo(repo: Path, docs: int, seed: int) -> list[Path]:
    generate_store(repo, docs, seed)
    nested = repo / "services" / "api"
    nested.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    for root in (repo, nested):
        run(docir_argv("init", "--root", str(root)), root, what=f"docir init {root}")
    (repo / "README.md").write_text("# bench\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "generated stores")
    run(docir_argv("hooks", "install"), repo, what="docir hooks install")
    for root in (repo, nested):
        run(docir_argv("reindex", "--root", str(root)), root, what="reindex")
    return sorted((repo / "docs").rglob("*.md"))


def restore(repo: Path) -> None:
    git(repo, "reset", "-q", "--hard", "main")


def measure(repo: Path, files: list[Path], renames: int, empty_hooks: Path, repeat: int, warmup: int) -> Samples:
    hook = str(repo / ".git" / "hooks" / "pre-commit")
    one = files[len(files) // 2]
    one_rel = str(one.relative_to(repo))
    moved = files[:renames]
    rounds = Rounds("commit_hook_speed", repeat, warmup, floor_env=git_env())

    def timed(case: str, argv: list[str], what: str) -> None:
        rounds.record(case, run(argv, repo, what=what)[0])

    for round_no in rounds:
        one.write_text(one.read_text(encoding="utf-8") + "\nA line the benchmark adds.\n", encoding="utf-8")
        git(repo, "add", one_rel)
        timed("commit-nohook", ["git", "-c", f"core.hooksPath={empty_hooks}", "commit", "-q", "-m", "x"],
              "commit without hooks")
        git(repo, "reset", "-q", "--soft", "HEAD~1")
        timed("hook-one", [hook], "pre-commit, one document")
        timed("lint-staged-one", docir_argv("lint", "--staged"), "lint --staged")
        timed("lint-disk-one", docir_argv("lint", one_rel), "lint on disk")
        restore(repo)
        (repo / "docs" / "moved").mkdir(exist_ok=True)
        git(repo, "mv", *[str(p.relative_to(repo)) for p in moved], "docs/moved/")
        timed("hook-renames", [hook], "pre-commit, renames")
        restore(repo)
        (repo / "README.md").write_text(f"# bench\nround {round_no}\n", encoding="utf-8")
        git(repo, "add", "README.md")
        timed("hook-no-docs", [hook], "pre-commit, no documents")
        timed("commit-no-docs", ["git", "commit", "-q", "-m", "readme"], "commit of README")
        git(repo, "reset", "-q", "--hard", "HEAD~1")
        restore(repo)
    return rounds.samples


def main(argv: list[str] | None = None) -> int:
    parser = arguments("commit_hook_speed", __doc__, repeat=11, warmup=1)
    parser.add_argument("--docs", type=int, default=1000, help="documents in the store (default 1000)")
    parser.add_argument("--renames", type=int, default=200, help="documents renamed in one commit (default 200)")
    args = parser.parse_args(argv)
    if not 1 <= args.renames <= args.docs - 1 or args.repeat < 1 or args.warmup < 0:
        parser.error("--renames between 1 and --docs - 1, --repeat positive")
    started = time.perf_counter()
    machine = machine_info()
    samples = in_temp_repo("commit_hook_speed", False, lambda repo, empty_hooks: measure(
        repo, build_repo(repo, args.docs, SEED), args.renames, empty_hooks, args.repeat, args.warmup))
    if samples is None:
        return 1

    reference = samples.median("commit-nohook")
    rows = []
    for case in CASES:
        row = samples.row(case)
        rows.append({"case": case, "label": LABELS[case].format(renames=args.renames), "median_ms": row["median_ms"],
                     "p90_ms": row["p90_ms"], "x_floor": row["ratio"],
                     "x_commit": round(samples.median(case) / reference, 2), "samples_ms": row["samples_ms"]})
    staged_vs_disk = samples.median("lint-staged-one") / samples.median("lint-disk-one")
    no_docs = samples.median("commit-no-docs") / reference
    targets = [
        {"name": "lint --staged of one document at most 1.2x its on-disk lint", "value": round(staged_vs_disk, 2),
         "status": "PASS" if staged_vs_disk <= 1.2 else "FAIL", "detail": f"{staged_vs_disk:.2f}x"},
        {"name": "a commit of no document within 1.5x a commit without hooks", "value": round(no_docs, 2),
         "status": "PASS" if no_docs <= 1.5 else "FAIL", "detail": f"{no_docs:.2f}x"},
    ]
    floor_ms = samples.row("floor")["median_ms"]
    payload: dict[str, Any] = {
        "machine": machine, "config": {"docs": args.docs, "renames": args.renames, "repeat": args.repeat,
                                       "warmup": args.warmup, "seed": SEED, "docir_worker": "0"},
        "floor_ms": floor_ms, "results": rows, "targets": targets,
        "duration_s": round(time.perf_counter() - started, 1),
    }
    title = [f"docir pre-commit hook: {args.docs} documents (and a second store in services/api), "
             f"{args.repeat} rounds (+{args.warmup} warm-up), DOCIR_WORKER=0; floor {floor_ms:.1f} ms"]
    report("commit_hook_speed", payload, title=title, out=args.out,
           columns=[("what", ""), ("median ms", ".1f"), ("p90 ms", ".1f"), ("x floor", ".2f"), ("x commit", ".2f")],
           rows=[[r["label"], r["median_ms"], r["p90_ms"], r["x_floor"], r["x_commit"]] for r in rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())
