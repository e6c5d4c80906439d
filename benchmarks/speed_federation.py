"""Warm `docir context` across three stores, and through the MCP server, as ratios.

    python -m benchmarks.speed_federation [--size 1000] [--repeat 15]

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

import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import speed_context as sc
from benchmarks._harness import (
    CACHE,
    BenchmarkError,
    Rounds,
    Samples,
    arguments,
    docir_argv,
    machine_info,
    model_env,
    report,
)

TASK = sc.TASK


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
                raise BenchmarkError(str(result.content))
            if index >= 2:
                timings.append(elapsed)
            else:
                await anyio.sleep(3)  # let the server finish loading its model
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = arguments("speed_federation", __doc__, repeat=15)
    parser.add_argument("--size", type=int, default=1000, help="documents in each of the three stores (default 1000)")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where generated stores are kept")
    args = parser.parse_args(argv)

    machine = machine_info()
    stores = [sc.prepare_store(args.cache, args.size, seed) for seed in (7, 8, 9)]
    local, peers = stores[0], stores[1:]
    peer_args = [arg for peer in peers for arg in ("--store", str(peer.root))]
    base = docir_argv("context", TASK, "--root", str(local.root))
    commands = {"context-1": base, "context-3": [*base, *peer_args]}
    for store in stores:
        sc.worker(store, "stop")
    sc.worker(local, "start")
    rounds = Rounds("speed_federation", args.repeat, 1, floor_env=model_env(True))
    try:
        for name, argv_ in commands.items():  # check once that each answers as expected
            rows = sc.run(argv_, what=name, warm=True).json()["results"]
            stores_seen = {row.get("store", ".") for row in rows}
            if name == "context-3" and len(stores_seen) < 2:
                raise BenchmarkError(f"federated context returned rows of {stores_seen} only")
        for _ in rounds:
            for name, argv_ in commands.items():
                rounds.record(name, sc.run(argv_, what=name, warm=True).ms)
        import anyio

        samples: Samples = rounds.samples
        for elapsed in anyio.run(mcp_timings, local.root, model_env(True), args.repeat):
            samples.add("mcp-context", elapsed)
    finally:
        sc.worker(local, "stop")

    rows = [{"command": name, **samples.row(name)} for name in ("floor", *commands, "mcp-context")]
    for row in rows:
        row["ratio_to_floor"] = row.pop("ratio", 1.0)
    federation_ratio = round(samples.median("context-3") / samples.median("context-1"), 2)
    mcp_ratio = round(samples.median("mcp-context") / samples.median("context-1"), 2)
    targets: list[dict[str, Any]] = [
        {"name": "context over 3 stores at most 1.5x context over 1 store (warm)", "ratio": federation_ratio,
         "limit": 1.5, "status": "PASS" if federation_ratio <= 1.5 else "FAIL", "detail": f"{federation_ratio}x"},
        {"name": "MCP context call vs the CLI's warm context", "ratio": mcp_ratio, "status": "INFO",
         "detail": f"{mcp_ratio}x"},
    ]
    payload = {"size": args.size, "stores": 3, "task": TASK, "floor_ms": samples.row("floor")["median_ms"],
               "results": rows, "targets": targets, "machine": machine}
    report("speed_federation", payload, out=args.out,
           columns=[("command", ""), ("median ms", ".1f"), ("p90 ms", ".1f"), ("x floor", ".2f")],
           rows=[[r["command"], r["median_ms"], r["p90_ms"], r["ratio_to_floor"]] for r in rows])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
