"""Warm `context` and `get` of this tree against another revision of docir, on the same generated stores.

    python -m benchmarks.against_revision [--rev f13de10] [--sizes 1000,10000] [--rounds 40]

A target such as "warm context no slower than before" needs both trees side by side on one
machine, in one run: these machines are too noisy for figures taken at different times.

- This tree ranks speed_context.py's generated store (synthetic stored vectors, the real query
  model), prepared as that benchmark prepares it.
- The revision is unpacked with `git archive` into benchmarks/.cache/rev-<sha>/. Its store is a
  copy of the same documents, indexed and given the same synthetic vectors by the revision's own
  code (its `python -m benchmarks.speed_context --fill-vectors`). Both are kept between runs.
- Each side answers through its own warm worker (PYTHONPATH picks the tree). Every round times
  the floor (`python -c "import sqlite3, json"`), then each side's `context` on the round's own
  task and `get` of three ids, the sides' order alternating from round to round.

Reported per size: medians, their ratio (this tree / revision), and the quartiles of the ratio
taken round by round, which the machine's drift affects less. Prints a table and writes
benchmarks/results/against_revision.json.
"""

from __future__ import annotations

import io
import json
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

from benchmarks import speed_context
from benchmarks._harness import (
    CACHE,
    MARKER,
    REPO,
    SEED,
    Rounds,
    arguments,
    docir_argv,
    machine_info,
    model_env,
    report,
    run,
    tree_module_argv,
    user_cache,
)
from benchmarks.speed import parse_sizes, picks

REV_MARKER = ".against-revision.json"
WORDS = ("cache retry webhook session store migration gateway limits events schema index worker queue "
         "deploy audit token billing search upload").split()
SIDES = ("this", "rev")


def task(rng: random.Random) -> str:
    """A ten-word task unlike the last one: a repeated task would measure the query cache."""
    return ("add retries with exponential backoff and an idempotency key to the "
            + " ".join(rng.sample(WORDS, 3)) + " consumer")


def unpacked(rev: str) -> tuple[str, Path]:
    """(full sha, folder) of the revision's files, unpacked once."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout.strip()
    folder = CACHE / f"rev-{sha[:12]}"
    if not (folder / "docir" / "__init__.py").is_file():
        archive = subprocess.run(["git", "archive", "--format=tar", sha], cwd=REPO, capture_output=True,
                                 check=True).stdout
        shutil.rmtree(folder, ignore_errors=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
    return sha, folder


def env(tree: Path) -> dict[str, str]:
    """speed.py's warm environment with the model, running the docir of `tree` with its own user cache (each
    tree's folded model; sharing one, each cold command folded the other tree's again)."""
    return {**model_env(True), "PYTHONPATH": str(tree), "XDG_CACHE_HOME": str(user_cache(tree))}


def docir(tree: Path, root: Path, *args: str, worker: bool = True) -> tuple[float, bytes]:
    environment = env(tree) if worker else {**env(tree), "DOCIR_WORKER": "0"}
    # From the store's folder: `python -m` puts the working folder first on the import path, and from this
    # checkout that would run this tree's docir whatever PYTHONPATH says.
    ran = run(docir_argv(*args, "--root", str(root)), what=f"docir {' '.join(args)} ({tree})", env=environment,
              cwd=root)
    return ran.ms, ran.stdout


def rev_store(sha: str, tree: Path, source: Path, size: int) -> Path:
    """The revision's copy of the generated store, indexed and filled by the revision's code."""
    root = CACHE / f"rev-{sha[:12]}-store-{size}"
    key = {"sha": sha, "source": json.loads((source / MARKER).read_text(encoding="utf-8"))["key"]}
    marker = root / REV_MARKER
    if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == key:
        return root
    print(f"against_revision: indexing {size} documents with {sha[:12]} (kept for later runs)", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source / "docs", root / "docs")
    shutil.copy2(source / "docs-schema.yaml", root / "docs-schema.yaml")
    docir(tree, root, "reindex", worker=False)
    # The vault off: the synthetic vectors must never reach the user's vault (speed_context.py says why).
    run(tree_module_argv(tree, "speed_context", "--fill-vectors", str(root)),
        what=f"filling vectors with {sha[:12]}", env={**env(tree), "DOCIR_WORKER": "0", "DOCIR_VECTORS": "off"},
        cwd=root)
    marker.write_text(json.dumps(key), encoding="utf-8")
    return root


def quartiles(values: list[float]) -> list[float]:
    ordered = sorted(values)
    return [round(ordered[len(ordered) // 4], 3), round(statistics.median(ordered), 3),
            round(ordered[3 * len(ordered) // 4], 3)]


def measure(sides: dict[str, tuple[Path, Path]], ids: list[str], rounds: int, rng: random.Random) -> dict[str, Any]:
    """Alternating rounds over both sides of one size; the first round warms the workers and is dropped."""
    for tree, root in sides.values():
        docir(tree, root, "worker", "start")
    timing = Rounds("against_revision", rounds, 1, floor_env=model_env(False))
    try:
        for number in timing:
            words = task(rng)
            for name in (SIDES if number % 2 else SIDES[::-1]):
                tree, root = sides[name]
                timing.record(f"{name}-context", docir(tree, root, "context", words, "--json")[0])
                timing.record(f"{name}-get", docir(tree, root, "get", *picks(ids))[0])
    finally:
        for tree, root in sides.values():
            docir(tree, root, "worker", "stop")
    times = timing.samples
    row: dict[str, Any] = {"floor_ms": round(times.median("floor"), 1)}
    for command in ("context", "get"):
        mine, theirs = times.wall[f"this-{command}"], times.wall[f"rev-{command}"]
        row[command] = {"this_ms": round(statistics.median(mine), 1), "rev_ms": round(statistics.median(theirs), 1),
                        "ratio": round(statistics.median(mine) / statistics.median(theirs), 3),
                        "paired_ratio_quartiles": quartiles([a / b for a, b in zip(mine, theirs, strict=True)])}
    return row


def main(argv: list[str] | None = None) -> int:
    parser = arguments("against_revision", __doc__)
    parser.add_argument("--rev", default="f13de10", help="the revision to compare with (default f13de10, the "
                        "ranking before heading sections)")
    parser.add_argument("--sizes", default="1000,10000", help="documents per generated store (default 1000,10000)")
    parser.add_argument("--rounds", type=int, default=40, help="timed rounds per size (default 40)")
    args = parser.parse_args(argv)
    sha, tree = unpacked(args.rev)
    rng = random.Random(SEED)
    sizes: dict[str, Any] = {}
    for size in parse_sizes(parser, args.sizes):
        store = speed_context.prepare_store(CACHE, size, SEED)
        sides = {"this": (REPO, store.root), "rev": (tree, rev_store(sha, tree, store.root, size))}
        sizes[str(size)] = measure(sides, store.ids, args.rounds, rng)
    payload = {"rev": args.rev, "rev_sha": sha, "rounds": args.rounds, "sizes": sizes, "machine": machine_info()}
    rows = [[int(size), command, row[command]["this_ms"], row[command]["rev_ms"], row[command]["ratio"],
             " / ".join(str(q) for q in row[command]["paired_ratio_quartiles"]), row["floor_ms"]]
            for size, row in sizes.items() for command in ("context", "get")]
    report("against_revision", payload, out=args.out, rows=rows,
           title=[f"this tree against {args.rev} ({args.rounds} alternating rounds, warm workers)"],
           columns=[("docs", "d"), ("command", ""), ("this ms", ".1f"), ("rev ms", ".1f"), ("ratio", ".3f"),
                    ("paired ratio p25/p50/p75", ""), ("floor ms", ".1f")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
