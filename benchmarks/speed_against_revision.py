"""speed.py's cold and warm commands, this tree against another revision, in one run, alternating.

    python -m benchmarks.speed_against_revision [--rev main] [--size 1000] [--rounds 15]

A target such as "every cold and warm figure within 5% of before" needs both trees side by side
on one machine, in one run: these machines are too noisy for figures taken at different times.

- The store is speed.py's generated one (benchmarks/.cache/store-<N>-seed7), as speed.py prepares
  it. The cold commands of both trees read that one store (DOCIR_WORKER=0, no model), in turn.
- The warm commands need a worker per tree, and a worker belongs to one store (a client of
  another docir version stops it): each tree's worker reads a copy of its own, indexed by its
  code, which no cold command touches.
- The revision is unpacked with `git archive` (against_revision.py's `unpacked`); PYTHONPATH picks
  the tree. Every round times the floor, then each command of each tree, the trees' order
  alternating from command to command and from round to round.

Reported per command: both medians, their ratio (this tree / revision), and the quartiles of the
ratio taken round by round. Prints a table and writes benchmarks/results/speed_against_revision.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._harness import (
    CACHE,
    FLOOR_ARGV,
    REPO,
    SEED,
    child_env,
    machine_info,
    results_path,
    user_cache,
    write_json,
)
from benchmarks.against_revision import quartiles, unpacked
from benchmarks.speed import Store, prepare_store

COLD = ("get", "search", "query", "help", "lint-one", "reindex-unchanged")
WARM = ("get-warm", "search-warm", "query-warm")
SIDES = ("this", "rev")


def run(tree: Path, argv: list[str], *, warm: bool) -> float:
    environment = {**child_env(worker=warm), "PYTHONPATH": str(tree), "XDG_CACHE_HOME": str(user_cache(tree))}
    began = time.perf_counter()
    # From the store's folder: `python -m` puts the working folder first on the import path.
    proc = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, env=environment, cwd=argv_root(argv),
                          check=False)
    elapsed = (time.perf_counter() - began) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} ({tree}) failed: {proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def argv_root(argv: list[str]) -> str:
    return argv[argv.index("--root") + 1] if "--root" in argv else str(CACHE)


def warm_copy(store: Store, name: str, tree: Path) -> Store:
    """A tree's copy of the store for its warm worker, indexed by its code."""
    root = CACHE / f"{name}-speed-store-{store.size}"
    if not (root / ".docir" / "index.db").is_file():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(store.root / "docs", root / "docs")
        shutil.copy2(store.root / "docs-schema.yaml", root / "docs-schema.yaml")
        run(tree, [sys.executable, "-m", "docir", "reindex", "--root", str(root)], warm=False)
    return dataclasses.replace(store, root=root)


def worker(tree: Path, store: Store, action: str) -> None:
    run(tree, [sys.executable, "-m", "docir", "worker", action, "--root", str(store.root)], warm=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="main", help="the revision to compare with (default main)")
    parser.add_argument("--size", type=int, default=1000, help="documents in the store (default 1000)")
    parser.add_argument("--rounds", type=int, default=15, help="measured rounds (default 15)")
    args = parser.parse_args(argv)
    sha, rev_tree = unpacked(args.rev)
    store = prepare_store(CACHE, args.size, SEED)
    sides = {"this": (REPO, warm_copy(store, "this", REPO)),
             "rev": (rev_tree, warm_copy(store, f"rev-{sha[:12]}", rev_tree))}
    times: dict[str, list[float]] = {"floor": []}
    for command in (*COLD, *WARM):
        for side in SIDES:
            times[f"{side} {command}"] = []
    for tree, copy in sides.values():
        worker(tree, copy, "start")
    try:
        for number in range(args.rounds + 1):  # the first round fills the bytecode caches and is dropped
            began = time.perf_counter()
            subprocess.run(FLOOR_ARGV, check=True, env=child_env())
            floor = (time.perf_counter() - began) * 1000
            done: dict[str, float] = {}
            for position, command in enumerate((*COLD, *WARM)):
                order = SIDES if (number + position) % 2 else SIDES[::-1]
                for side in order:
                    tree, copy = sides[side]
                    warm = command.endswith("-warm")
                    done[f"{side} {command}"] = run(tree, (copy if warm else store).argv(command), warm=warm)
            if number:
                times["floor"].append(floor)
                for label, value in done.items():
                    times[label].append(value)
            print(f"speed_against_revision: round {number}/{args.rounds}", file=sys.stderr)
    finally:
        for tree, copy in sides.values():
            worker(tree, copy, "stop")
    rows = []
    for command in (*COLD, *WARM):
        mine, theirs = times[f"this {command}"], times[f"rev {command}"]
        rows.append({"command": command, "this_ms": round(statistics.median(mine), 1),
                     "rev_ms": round(statistics.median(theirs), 1),
                     "ratio": round(statistics.median(mine) / statistics.median(theirs), 3),
                     "ratio_quartiles": quartiles([a / b for a, b in zip(mine, theirs, strict=True)])})
    payload = {"rev": sha, "size": args.size, "rounds": args.rounds,
               "floor_ms": round(statistics.median(times["floor"]), 1), "rows": rows, "machine": machine_info()}
    print(f"this tree against {sha[:12]}, {args.size} documents, {args.rounds} rounds, "
          f"floor {payload['floor_ms']} ms")
    print(f"{'command':<20}{'this ms':>10}{'rev ms':>10}{'ratio':>8}  ratio quartiles")
    for row in rows:
        print(f"{row['command']:<20}{row['this_ms']:>10}{row['rev_ms']:>10}{row['ratio']:>8}  {row['ratio_quartiles']}")
    write_json(results_path("speed_against_revision"), payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
