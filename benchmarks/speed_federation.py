"""Warm `docir context` across three stores, and through the MCP server, as ratios.

    python benchmarks/speed_federation.py [--size 1000] [--repeat 15]

Stores: three generated stores of SIZE documents (seeds 7, 8, 9; prepared exactly as
speed_context.py prepares its stores, synthetic vectors included). With a warm worker on
the first store, in interleaved rounds, whole-process medians of
    floor            python -c "import sqlite3, json"
    context-1        docir context TASK                          (one store)
    context-3        docir context TASK --store B --store C      (three stores)
and, through one long-lived `docir mcp` server spoken to by the MCP SDK's own client,
    mcp-context      call_tool("context", {"task": TASK})        (time of the call alone)
Targets: context-3 at most 1.5x context-1; mcp-context reported as a
ratio to the CLI's warm context-1. Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import speed_context as sc
from speed import FLOOR_ARGV, write_json

TASK = sc.TASK


def median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


async def mcp_timings(root: Path, env: dict[str, str], rounds: int) -> list[float]:
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "docir", "mcp", "--root", str(root)], env=env)
    timings: list[float] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for index in range(rounds + 2):  # two warm-up calls: the server loads its model in the background
            started = time.perf_counter()
            result = await session.call_tool("context", {"task": TASK})
            elapsed = (time.perf_counter() - started) * 1000
            if result.is_error:
                raise sc.BenchmarkError(str(result.content))
            if index >= 2:
                timings.append(elapsed)
            else:
                await anyio.sleep(3)  # let the server finish loading its model
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "speed_federation.json")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache")
    args = parser.parse_args(argv)

    stores = [sc.prepare_store(args.cache, args.size, seed) for seed in (7, 8, 9)]
    local, peers = stores[0], stores[1:]
    peer_args = [arg for peer in peers for arg in ("--store", str(peer.root))]
    base = [sys.executable, "-m", "docir", "context", TASK, "--root", str(local.root)]
    commands = {"context-1": base, "context-3": [*base, *peer_args]}
    for store in stores:
        sc.worker(store, "stop")
    sc.worker(local, "start")
    samples: dict[str, list[float]] = {"floor": [], **{name: [] for name in commands}}
    try:
        for name, argv_ in commands.items():  # check once that each answers as expected
            _, out = sc.run(argv_, what=name, warm=True)
            rows = json.loads(out)["results"]
            stores_seen = {row.get("store", ".") for row in rows}
            if name == "context-3" and len(stores_seen) < 2:
                raise sc.BenchmarkError(f"federated context returned rows of {stores_seen} only")
        for round_ in range(args.repeat + 1):
            elapsed, _ = sc.run(FLOOR_ARGV, what="floor", warm=True)
            if round_:
                samples["floor"].append(elapsed)
            for name, argv_ in commands.items():
                elapsed, _ = sc.run(argv_, what=name, warm=True)
                if round_:
                    samples[name].append(elapsed)
        import anyio

        env = sc.child_env(warm=True)
        samples["mcp-context"] = anyio.run(mcp_timings, local.root, env, args.repeat)
    finally:
        sc.worker(local, "stop")

    floor = median(samples["floor"])
    rows = [{"command": name, "median_ms": median(values),
             "p90_ms": round(sorted(values)[int(0.9 * (len(values) - 1))], 1),
             "ratio_to_floor": round(median(values) / floor, 2)} for name, values in samples.items()]
    by = {row["command"]: row for row in rows}
    federation_ratio = round(by["context-3"]["median_ms"] / by["context-1"]["median_ms"], 2)
    mcp_ratio = round(by["mcp-context"]["median_ms"] / by["context-1"]["median_ms"], 2)
    targets = [
        {"name": "context over 3 stores at most 1.5x context over 1 store (warm)", "ratio": federation_ratio,
         "limit": 1.5, "status": "PASS" if federation_ratio <= 1.5 else "FAIL"},
        {"name": "MCP context call vs the CLI's warm context (informational)", "ratio": mcp_ratio},
    ]
    payload = {"size": args.size, "stores": 3, "task": TASK, "floor_ms": floor, "results": rows, "targets": targets,
               "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    write_json(args.out, payload)
    print(f"{'command':<14} {'median ms':>10} {'p90 ms':>8} {'x floor':>8}")
    for row in rows:
        print(f"{row['command']:<14} {row['median_ms']:>10} {row['p90_ms']:>8} {row['ratio_to_floor']:>8}")
    for target in targets:
        print(f"{target.get('status', 'INFO'):<5} {target['name']}: {target['ratio']}x")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
