"""Warm `context` and `get` of this tree against another revision of docir, on the same generated stores.

    python benchmarks/against_revision.py [--rev f13de10] [--sizes 1000,10000] [--rounds 40]

A target such as "warm context no slower than before" needs both trees side by side on one
machine, in one run: these machines are too noisy for figures taken at different times.

- This tree ranks speed_context.py's generated store (synthetic stored vectors, the real query
  model), prepared as that benchmark prepares it.
- The revision is unpacked with `git archive` into benchmarks/.cache/rev-<sha>/. Its store is a
  copy of the same documents, indexed and given the same synthetic vectors by the revision's own
  code (its `benchmarks/speed_context.py --fill-vectors`). Both are kept between runs.
- Each side answers through its own warm worker (PYTHONPATH picks the tree). Every round times
  the floor (`python -c "import sqlite3, json"`), then each side's `context` on the round's own
  task and `get` of three ids, the sides' order alternating from round to round.

Reported per size: medians, their ratio (this tree / revision), and the quartiles of the ratio
taken round by round, which the machine's drift affects less. Prints a table and writes
benchmarks/results/against_revision.json.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import speed_context  # noqa: E402  (benchmarks/ is not a package)
from speed import FLOOR_ARGV, SEED, machine_info, model_env, write_results  # noqa: E402

CACHE = HERE / ".cache"
MARKER = ".against-revision.json"
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
    """speed.py's warm environment with the model, running the docir of `tree`."""
    return {**model_env(True), "PYTHONPATH": str(tree)}


def docir(tree: Path, root: Path, *args: str, worker: bool = True) -> tuple[float, bytes]:
    environment = env(tree) if worker else {**env(tree), "DOCIR_WORKER": "0"}
    began = time.perf_counter()
    # From the store's folder: `python -m` puts the working folder first on sys.path, and from this
    # checkout that would run this tree's docir whatever PYTHONPATH says.
    proc = subprocess.run([sys.executable, "-m", "docir", *args, "--root", str(root)], capture_output=True,
                          stdin=subprocess.DEVNULL, env=environment, cwd=root, check=False)
    elapsed = (time.perf_counter() - began) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"docir {' '.join(args)} ({tree}) failed: {proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed, proc.stdout


def rev_store(sha: str, tree: Path, source: Path, size: int) -> Path:
    """The revision's copy of the generated store, indexed and filled by the revision's code."""
    root = CACHE / f"rev-{sha[:12]}-store-{size}"
    key = {"sha": sha, "source": json.loads((source / speed_context.MARKER).read_text(encoding="utf-8"))["key"]}
    marker = root / MARKER
    if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == key:
        return root
    print(f"against_revision: indexing {size} documents with {sha[:12]} (kept for later runs)", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source / "docs", root / "docs")
    shutil.copy2(source / "docs-schema.yaml", root / "docs-schema.yaml")
    docir(tree, root, "reindex", worker=False)
    subprocess.run([sys.executable, str(tree / "benchmarks" / "speed_context.py"), "--fill-vectors", str(root)],
                   env={**env(tree), "DOCIR_WORKER": "0"}, cwd=root, stdout=subprocess.DEVNULL, check=True)
    marker.write_text(json.dumps(key), encoding="utf-8")
    return root


def quartiles(values: list[float]) -> list[float]:
    ordered = sorted(values)
    return [round(ordered[len(ordered) // 4], 3), round(statistics.median(ordered), 3),
            round(ordered[3 * len(ordered) // 4], 3)]


def measure(sides: dict[str, tuple[Path, Path]], ids: list[str], rounds: int, rng: random.Random) -> dict[str, object]:
    """Alternating rounds over both sides of one size; the first round warms the workers and is dropped."""
    picks = [ids[0], ids[len(ids) // 2], ids[-1]]
    times: dict[str, list[float]] = {"floor": []}
    for name in SIDES:
        times[f"{name}-context"], times[f"{name}-get"] = [], []
    for tree, root in sides.values():
        docir(tree, root, "worker", "start")
    try:
        for number in range(rounds + 1):
            words = task(rng)
            began = time.perf_counter()
            subprocess.run(FLOOR_ARGV, check=True, env=model_env(False))
            floor = (time.perf_counter() - began) * 1000
            done = {}
            for name in (SIDES if number % 2 else SIDES[::-1]):
                tree, root = sides[name]
                done[f"{name}-context"] = docir(tree, root, "context", words, "--json")[0]
                done[f"{name}-get"] = docir(tree, root, "get", *picks)[0]
            if number:
                times["floor"].append(floor)
                for label, value in done.items():
                    times[label].append(value)
    finally:
        for tree, root in sides.values():
            docir(tree, root, "worker", "stop")
    row: dict[str, object] = {"floor_ms": round(statistics.median(times["floor"]), 1)}
    for command in ("context", "get"):
        mine, theirs = times[f"this-{command}"], times[f"rev-{command}"]
        row[command] = {"this_ms": round(statistics.median(mine), 1), "rev_ms": round(statistics.median(theirs), 1),
                        "ratio": round(statistics.median(mine) / statistics.median(theirs), 3),
                        "paired_ratio_quartiles": quartiles([a / b for a, b in zip(mine, theirs, strict=True)])}
    return row


def print_table(payload: dict[str, object]) -> None:
    print(f"this tree against {payload['rev']} ({payload['rounds']} alternating rounds, warm workers)")
    print(f"{'docs':>6}  {'command':<8} {'this ms':>8} {'rev ms':>8} {'ratio':>6}  paired ratio p25/p50/p75  floor ms")
    sizes = payload["sizes"]
    assert isinstance(sizes, dict)
    for size, row in sizes.items():
        for command in ("context", "get"):
            cell = row[command]
            print(f"{size:>6}  {command:<8} {cell['this_ms']:>8} {cell['rev_ms']:>8} {cell['ratio']:>6}  "
                  f"{' / '.join(str(q) for q in cell['paired_ratio_quartiles']):<25} {row['floor_ms']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="f13de10", help="the revision to compare with (default f13de10, the "
                        "ranking before heading sections)")
    parser.add_argument("--sizes", default="1000,10000", help="documents per generated store (default 1000,10000)")
    parser.add_argument("--rounds", type=int, default=40, help="timed rounds per size (default 40)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "against_revision.json")
    args = parser.parse_args(argv)
    sha, tree = unpacked(args.rev)
    rng = random.Random(SEED)
    sizes: dict[str, object] = {}
    for size in (int(s) for s in args.sizes.split(",") if s):
        store = speed_context.prepare_store(CACHE, size, SEED)
        sides = {"this": (REPO, store.root), "rev": (tree, rev_store(sha, tree, store.root, size))}
        sizes[str(size)] = measure(sides, store.ids, args.rounds, rng)
    machine = machine_info()
    payload: dict[str, object] = {"benchmark": "against_revision", "rev": args.rev, "rev_sha": sha,
                                  "rounds": args.rounds, "sizes": sizes, "machine": machine}
    print_table(payload)
    write_results(args.out, payload, machine)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
