"""Warm `context`, `context --sketch` and `search`, and cold `context`, on long real documents, as ratios to the floor,
this tree against another revision in one run.

    python -m benchmarks.warm_floor [--rev 1ee4b49] [--copies 3] [--rounds 20] [--cold-every 2]

The store: every EIP (benchmarks/quality/eips.py) `--copies` times over, each copy under its own
ids (adr-00000001..., adr-00000002...) with the same titles and bodies, so its section texts are the
first copy's and their vectors come from the vector vault or the index, never from the model: three
copies are about 1,750 documents, 27,000 sections and 44,000 vectors. The first build of a side
indexes it and fills its vectors with that side's own code (`reindex`, then `embed --flush`, no
worker); both are kept in benchmarks/.cache/ (eips-x<copies>-<side>) until the revision changes.

Each side answers through its own warm worker (against_revision.py's unpacked tree and runner).
Every round times the floor (`python -c "import sqlite3, json"`), then on each side, the sides'
order alternating round by round, with the round's own judged EIP query (eips_queries.yaml) and its
sketch (sketches.yaml): `context TASK`, `context TASK --sketch SKETCH`, `search TASK`, and every
`--cold-every` rounds `context TASK` with DOCIR_WORKER=0. Each command's output must be byte for
byte the other side's once the copies' ids and folders are the first copy's (`folded`: the copies
tie, and which one comes first is no matter of the code): a mismatch is counted and the first few
are shown.

Reported per command and side: the median, its ratio to the floor's median, and the median of the
round-by-round ratio this / revision; each worker's resident memory (VmRSS and its peak, VmHWM) at
the end. Prints a table and writes benchmarks/results/warm_floor.json.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

import yaml

from benchmarks._harness import CACHE, REPO, Rounds, arguments, machine_info, model_env, module_argv, report, run
from benchmarks.against_revision import docir, quartiles, unpacked

QUALITY = REPO / "benchmarks" / "quality"
COPY_ID = re.compile(r"\badr-0{8}(?=[0-9a-f]{4}\b)")
COPY_ID_BYTES = re.compile(rb"\badr-[0-9a-f]{8}(?=[0-9a-f]{4}\b)")
FOLDER = re.compile(rb"docs/eips-[0-9]+/")
COMMANDS = ("context", "sketch", "search", "cold")
SIDES = ("this", "rev")


def store_docs(root: Path, copies: int) -> None:
    """Every EIP as eips.py builds it, then `copies - 1` more under their own ids and folders."""
    run(module_argv("quality.eips", "--out", str(root.resolve())), what="building the EIP store",
        env=model_env(False), cwd=REPO)
    first = root / "docs" / "eips"
    for copy in range(1, copies):
        folder = root / "docs" / f"eips-{copy + 1}"
        folder.mkdir(parents=True, exist_ok=True)
        for path in sorted(first.glob("*.md")):
            text = path.read_text(encoding="utf-8")
            (folder / path.name).write_text(COPY_ID.sub(f"adr-{copy:08x}", text), encoding="utf-8")


def side_store(name: str, sha: str, tree: Path, copies: int) -> Path:
    """One side's copy of the store, indexed and given its vectors by that side's code; kept between runs."""
    root = CACHE / f"eips-x{copies}-{name}"
    marker = root / ".warm-floor.json"
    key = {"sha": sha if name == "rev" else str(tree), "copies": copies}
    if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == key:
        return root
    print(f"warm_floor: building {root.name} (kept for later runs)", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)
    store_docs(root, copies)
    docir(tree, root, "reindex", worker=False)
    docir(tree, root, "embed", "--flush", worker=False)
    marker.write_text(json.dumps(key), encoding="utf-8")
    return root


def folded(output: bytes) -> bytes:
    """An output with every copy's ids and folders those of the first copy: the copies' documents tie in
    every ranking (same words, same vectors), and which copy of a tie comes first follows the order each
    store's vectors were loaded in, not the code under test."""
    return FOLDER.sub(b"docs/eips/", COPY_ID_BYTES.sub(b"adr-00000000", output))


def tasks() -> list[tuple[str, str]]:
    """(task, sketch) of every judged EIP query that has a sketch, in file order."""
    queries = yaml.safe_load((QUALITY / "eips_queries.yaml").read_text(encoding="utf-8"))["queries"]
    sketches = yaml.safe_load((QUALITY / "sketches.yaml").read_text(encoding="utf-8"))["sketches"]
    return [(str(q["query"]), str(sketches[q["id"]])) for q in queries if sketches.get(q["id"])]


def memory(tree: Path, root: Path) -> dict[str, int]:
    """The worker's resident memory in MB, now and at its peak."""
    pid = json.loads(docir(tree, root, "worker", "status", "--json")[1]).get("pid")
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        field, _, value = line.partition(":")
        if field in ("VmRSS", "VmHWM"):
            out[field] = int(value.split()[0]) // 1024
    return out


def argv(command: str, task: str, sketch: str) -> tuple[list[str], bool]:
    """The command's arguments and whether it runs warm."""
    if command == "search":
        return ["search", task], True
    if command == "sketch":
        return ["context", task, "--sketch", sketch], True
    return ["context", task], command != "cold"


def measure(sides: dict[str, tuple[Path, Path]], rounds: int, cold_every: int) -> dict[str, Any]:
    """Alternating rounds; the first warms the workers and is dropped."""
    started = {name: json.loads(docir(tree, root, "worker", "start", "--json")[1]).get("pid")
               for name, (tree, root) in sides.items()}
    work = tasks()
    timing = Rounds("warm_floor", rounds, 1, floor_env=model_env(False))
    mismatches: list[str] = []
    compared = 0
    different = dict.fromkeys(COMMANDS, 0)
    try:
        for number in timing:
            task, sketch = work[number % len(work)]
            wanted = [c for c in COMMANDS if c != "cold" or number % cold_every == 0]
            for command in wanted:
                outputs: dict[str, bytes] = {}
                for name in (SIDES if number % 2 else SIDES[::-1]):
                    tree, root = sides[name]
                    args, warm = argv(command, task, sketch)
                    ms, outputs[name] = docir(tree, root, *args, worker=warm)
                    timing.record(f"{name}-{command}", ms)
                compared += 1
                if folded(outputs["this"]) != folded(outputs["rev"]):
                    different[command] += 1
                    if len(mismatches) < 5:
                        mismatches.append(f"{command} {task!r}")
        rss = {name: memory(tree, root) for name, (tree, root) in sides.items()}
        # A worker exits when its code changes on disk (an edit of docir/): its later rounds ran cold.
        lasted = [name for name, (tree, root) in sides.items()
                  if json.loads(docir(tree, root, "worker", "status", "--json")[1]).get("pid") == started[name]]
    finally:
        for tree, root in sides.values():
            docir(tree, root, "worker", "stop")
    times = timing.samples
    floor = times.median("floor")
    rows: dict[str, Any] = {}
    for command in COMMANDS:
        mine, theirs = times.wall.get(f"this-{command}", []), times.wall.get(f"rev-{command}", [])
        if not mine:
            continue
        rows[command] = {"this_ms": round(statistics.median(mine), 1), "rev_ms": round(statistics.median(theirs), 1),
                         "this_x_floor": round(statistics.median(mine) / floor, 2),
                         "rev_x_floor": round(statistics.median(theirs) / floor, 2),
                         "paired_ratio_quartiles": quartiles([a / b for a, b in zip(mine, theirs, strict=True)])}
    return {"floor_ms": round(floor, 1), "commands": rows, "worker_mb": rss, "outputs_compared": compared,
            "outputs_different": different, "mismatches": mismatches, "workers_lasted": lasted}


def main(argv_: list[str] | None = None) -> int:
    parser = arguments("warm_floor", __doc__)
    parser.add_argument("--rev", default="1ee4b49", help="the revision to compare with (default 1ee4b49)")
    parser.add_argument("--copies", type=int, default=3, help="copies of every EIP in the store (default 3)")
    parser.add_argument("--rounds", type=int, default=20, help="timed rounds (default 20)")
    parser.add_argument("--cold-every", type=int, default=2, help="a cold context every this many rounds (default 2)")
    parser.add_argument("--this-tree", type=Path, default=REPO,
                        help="the docir tree measured against the revision (default this checkout); another tree "
                             "gets a store of its own, eips-x<copies>-<its folder's name>")
    args = parser.parse_args(argv_)
    sha, tree = unpacked(args.rev)
    mine = args.this_tree.resolve()
    sides = {"this": (mine, side_store("this" if mine == REPO else mine.name, sha, mine, args.copies)),
             "rev": (tree, side_store("rev", sha, tree, args.copies))}
    result = measure(sides, args.rounds, max(1, args.cold_every))
    payload = {"rev": args.rev, "rev_sha": sha, "this_tree": str(mine), "copies": args.copies, "rounds": args.rounds,
               **result,
               "machine": machine_info()}
    rows = [[command, row["this_ms"], row["this_x_floor"], row["rev_ms"], row["rev_x_floor"],
             " / ".join(str(q) for q in row["paired_ratio_quartiles"])] for command, row in result["commands"].items()]
    notes = ["worker memory MB (now / peak): " + ", ".join(
        f"{name} {mb.get('VmRSS')} / {mb.get('VmHWM')}" for name, mb in result["worker_mb"].items()),
        f"outputs compared: {result['outputs_compared']}, different: "
        f"{', '.join(f'{n} {c}' for c, n in result['outputs_different'].items())}; "
        + "; ".join(result["mismatches"]),
        f"workers that lasted the run: {', '.join(result['workers_lasted']) or 'none'} (of this, rev)"]
    report("warm_floor", payload, out=args.out, rows=rows, notes=notes,
           title=[f"this tree against {args.rev}, {args.copies} copies of the EIPs, {args.rounds} alternating rounds, "
                  f"floor {result['floor_ms']} ms"],
           columns=[("command", ""), ("this ms", ".1f"), ("x floor", ".2f"), ("rev ms", ".1f"), ("x floor", ".2f"),
                    ("paired this/rev p25/p50/p75", "")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
