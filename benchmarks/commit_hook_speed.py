"""What docir's pre-commit hook adds to `git commit`, now that it lints what is staged (adr-b6dd1c2330ab).

    python benchmarks/commit_hook_speed.py [--docs 1000] [--renames 200] [--repeat 11]

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

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate_store  # benchmarks/ is not a package
from hook_speed import git, in_temp_repo, run
from speed import FLOOR_ARGV, machine_info, percentile, write_results

SEED = 7
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
        run([sys.executable, "-m", "docir", "init", "--root", str(root)], root, what=f"docir init {root}")
    (repo / "README.md").write_text("# bench\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "generated stores")
    run([sys.executable, "-m", "docir", "hooks", "install"], repo, what="docir hooks install")
    for root in (repo, nested):
        run([sys.executable, "-m", "docir", "reindex", "--root", str(root)], root, what="reindex")
    return sorted((repo / "docs").rglob("*.md"))


def restore(repo: Path) -> None:
    git(repo, "reset", "-q", "--hard", "main")


def measure(repo: Path, files: list[Path], renames: int, empty_hooks: Path, repeat: int,
            warmup: int) -> tuple[list[float], dict[str, list[float]]]:
    hook = str(repo / ".git" / "hooks" / "pre-commit")
    one = files[len(files) // 2]
    one_rel = str(one.relative_to(repo))
    moved = files[:renames]
    floor: list[float] = []
    samples: dict[str, list[float]] = {case: [] for case in CASES}

    def edit_one() -> None:
        one.write_text(one.read_text(encoding="utf-8") + "\nA line the benchmark adds.\n", encoding="utf-8")
        git(repo, "add", one_rel)

    for round_no in range(warmup + repeat):
        keep = round_no >= warmup
        times: dict[str, float] = {"floor": run(FLOOR_ARGV, repo, what="floor")[0]}
        edit_one()
        times["commit-nohook"] = run(["git", "-c", f"core.hooksPath={empty_hooks}", "commit", "-q", "-m", "x"],
                                     repo, what="commit without hooks")[0]
        git(repo, "reset", "-q", "--soft", "HEAD~1")
        times["hook-one"] = run([hook], repo, what="pre-commit, one document")[0]
        times["lint-staged-one"] = run([sys.executable, "-m", "docir", "lint", "--staged"], repo,
                                       what="lint --staged")[0]
        times["lint-disk-one"] = run([sys.executable, "-m", "docir", "lint", one_rel], repo, what="lint on disk")[0]
        restore(repo)
        (repo / "docs" / "moved").mkdir(exist_ok=True)
        git(repo, "mv", *[str(p.relative_to(repo)) for p in moved], "docs/moved/")
        times["hook-renames"] = run([hook], repo, what="pre-commit, renames")[0]
        restore(repo)
        (repo / "README.md").write_text(f"# bench\nround {round_no}\n", encoding="utf-8")
        git(repo, "add", "README.md")
        times["hook-no-docs"] = run([hook], repo, what="pre-commit, no documents")[0]
        times["commit-no-docs"] = run(["git", "commit", "-q", "-m", "readme"], repo, what="commit of README")[0]
        git(repo, "reset", "-q", "--hard", "HEAD~1")
        restore(repo)
        if keep:
            floor.append(times.pop("floor"))
            for case, value in times.items():
                samples[case].append(value)
    return floor, samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1000, help="documents in the store (default 1000)")
    parser.add_argument("--renames", type=int, default=200, help="documents renamed in one commit (default 200)")
    parser.add_argument("--repeat", type=int, default=11, help="measured rounds (default 11)")
    parser.add_argument("--warmup", type=int, default=1, help="discarded warm-up rounds (default 1)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "commit_hook_speed.json", help="JSON output")
    args = parser.parse_args(argv)
    if not 1 <= args.renames <= args.docs - 1 or args.repeat < 1 or args.warmup < 0:
        parser.error("--renames between 1 and --docs - 1, --repeat positive")
    started = time.perf_counter()
    machine = machine_info()
    done = in_temp_repo("commit_hook_speed", False, lambda repo, empty_hooks: measure(
        repo, build_repo(repo, args.docs, SEED), args.renames, empty_hooks, args.repeat, args.warmup))
    if done is None:
        return 1
    floor, samples = done

    floor_median = statistics.median(floor)
    medians = {case: statistics.median(values) for case, values in samples.items()}
    reference = medians["commit-nohook"]
    rows = [{"case": case, "label": LABELS[case].format(renames=args.renames), "median_ms": round(medians[case], 1),
             "p90_ms": round(percentile(samples[case], 0.9), 1), "x_floor": round(medians[case] / floor_median, 2),
             "x_commit": round(medians[case] / reference, 2), "samples_ms": [round(v, 1) for v in samples[case]]}
            for case in CASES]
    staged_vs_disk = medians["lint-staged-one"] / medians["lint-disk-one"]
    no_docs = medians["commit-no-docs"] / reference
    targets = [
        {"name": "lint --staged of one document at most 1.2x its on-disk lint", "value": round(staged_vs_disk, 2),
         "status": "PASS" if staged_vs_disk <= 1.2 else "FAIL"},
        {"name": "a commit of no document within 1.5x a commit without hooks", "value": round(no_docs, 2),
         "status": "PASS" if no_docs <= 1.5 else "FAIL"},
    ]
    payload: dict[str, object] = {
        "benchmark": "commit_hook_speed", "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine, "config": {"docs": args.docs, "renames": args.renames, "repeat": args.repeat,
                                       "warmup": args.warmup, "seed": SEED, "docir_worker": "0"},
        "floor_ms": round(floor_median, 1), "results": rows, "targets": targets,
        "duration_s": round(time.perf_counter() - started, 1),
    }
    write_results(args.out, payload, machine)
    print(f"docir pre-commit hook: {args.docs} documents (and a second store in services/api), "
          f"{args.repeat} rounds (+{args.warmup} warm-up), DOCIR_WORKER=0; floor {floor_median:.1f} ms")
    header = f"{'what':<48} {'median ms':>10} {'p90 ms':>9} {'x floor':>8} {'x commit':>9}"
    print(header + "\n" + "-" * len(header))
    for row in rows:
        print(f"{row['label']:<48} {row['median_ms']:>10.1f} {row['p90_ms']:>9.1f} {row['x_floor']:>8.2f} "
              f"{row['x_commit']:>9.2f}")
    print("\ntargets")
    for target in targets:
        print(f"  {target['status']:<4}  {target['name']}: {target['value']}")
    print(f"\nwrote {args.out} ({payload['duration_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
