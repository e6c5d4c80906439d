"""The organisation store at 200,000 documents: `context`, this tree against a revision, in two vocabularies.

    python -m benchmarks.org_scale [--rev 6f37781] [--rounds 2] [--stores generated,real] [--no-check]

Two stores of 200,000 published documents, each kept in benchmarks/.cache/org-store between runs:

- generated: org_store.py's org200k, its 200 generated repositories copied ten times (a task's
  words each stand in a third of the documents or more), built as `python -m benchmarks.org_store`
  builds it;
- real: real documents (the quality corpora: Cranfield's abstracts, EIPs, MADR rewrites, a
  company's design documents, docir's own), published split into repositories, then copied in SQL
  until there are 200,000, with their words kept (ids rewritten). The copies have no vectors, so
  the vector list reads the originals'. Its tasks are the corpora's own judged queries.

After --warmup rounds not counted (a store's first reads come from disk), each round, each side
(this tree, the revision; their order alternating by round) answers every task with `context` in
process (session opened, commands.context, closed: org_store.context_once) in a child of its own
tree reading the same database, after one warm-up task. Reported per store: p50 and p95 of each
side, and the median of the per-task ratios. With the check (the default), this tree's sections and
pairs lists of every task are also read scoring every candidate and compared with the
pruned lists (adr-f28942173e60). Prints a table; writes benchmarks/results/org_scale.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REAL_CORPORA = ("cranfield", "eips-ci", "madr", "quality", "docir")
REAL_DOCUMENTS = 200_000
REAL_TASKS = {"cranfield": 8, "eips-ci": 4, "quality": 4}  # the first judged queries of each
LIMIT = 60  # org_ranking's CANDIDATES: each list's length in `context`


# One side's round, run by `python -c` in a child whose PYTHONPATH is the side's tree (its docir, and its
# benchmarks/org_store.py): every task of the file answered by the reader, after one warm-up task.
CHILD = """
import json, sys
from pathlib import Path
from benchmarks import org_store
from docir.services.vectors.model_registry import register_process_model
register_process_model(org_store.WordHashEmbedder(org_store.real_model()))
reader, tasks = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
warnings = []
org_store.context_once(reader, tasks[-1], warnings)
times = []
for task in tasks:
    elapsed, rows = org_store.context_once(reader, task, warnings)
    times.append({"ms": round(elapsed, 1), "ids": [row["id"] for row in rows]})
print(json.dumps({"times": times, "warnings": warnings}))
"""


def _side(tree: Path, reader: Path, tasks_file: Path) -> dict[str, Any]:
    from benchmarks.org_store import CACHE

    env = {**os.environ, "PYTHONPATH": str(tree), "DOCIR_WORKER": "0", "DOCIR_VECTORS": str(CACHE / "vectors.db"),
           "DOCIR_BENCH_ORG_CACHE": str(CACHE)}
    # From a folder of no checkout: the side's docir and benchmarks come from PYTHONPATH.
    ran = subprocess.run([sys.executable, "-c", CHILD, str(reader), str(tasks_file)], env=env,
                         cwd=tasks_file.parent, capture_output=True, text=True, check=False)
    if ran.returncode != 0:
        raise RuntimeError(f"org_scale: the {tree} side failed: {ran.stderr.strip()[-2000:]}")
    found: dict[str, Any] = json.loads(ran.stdout)
    return found


def _real_store(server: Any) -> tuple[str, list[str]]:
    """The real-vocabulary store (built once, kept) and its tasks (kept with it)."""
    from benchmarks import org_store
    from benchmarks.quality import run as quality_run
    from docir.services.vectors.model_registry import register_process_model

    marker = org_store.CACHE / "realbase.json"
    key = org_store.build_key("realbase", *REAL_CORPORA, org_store.tables_key())
    found = org_store.marked(marker, key)
    if found is None or "tasks" not in found:
        os.environ["DOCIR_VECTORS"] = str(org_store.CACHE / "vectors.db")  # synthetic: never the user's vault
        embedder = org_store.WordHashEmbedder(org_store.real_model())
        register_process_model(embedder)
        url = org_store.create_database(server, "realbase")
        documents, tasks = 0, []
        for corpus in REAL_CORPORA:
            corpus_found = org_store.quality_corpus(corpus)
            if isinstance(corpus_found, str):
                raise RuntimeError(f"org_scale: {corpus}: {corpus_found}")
            store, queries = corpus_found
            tasks += [q.text for q in queries[: REAL_TASKS.get(corpus, 0)]]
            fields = quality_run.read_fields(store)
            published = org_store.publish_parts(corpus, store, fields, org_store.split_parts(sorted(fields)), url,
                                                embedder)
            documents += sum(int(p["documents"] or 0) for p in published)
        org_store.mark(marker, key, documents=documents, tasks=tasks, rows=org_store.count_rows(url))
        found = org_store.marked(marker, key)
        assert found is not None
    org_store.copy_org(server, "realbase", "real200k", math.ceil(REAL_DOCUMENTS / int(found["documents"])),
                       vectors=False)
    return "real200k", [str(task) for task in found["tasks"]]


def _check(url: str, tasks: list[str]) -> dict[str, Any]:
    """This tree's lists of every task, pruned and scoring every candidate: how many differ."""
    from docir.invocation import here
    from docir.org import ranking_sql
    from docir.org.address import parse
    from docir.org.peer import OrgPeer

    peer = OrgPeer.open(parse(url, committed=False, repos=()), here().settings())
    differ, timed = [], {"pruned_ms": 0.0, "every_ms": 0.0}
    try:
        for task in tasks:
            for name, ranked in (("sections", ranking_sql.lexical_sections), ("pairs", ranking_sql.lexical_pairs)):
                lists = {}
                for prune, what in ((True, "pruned_ms"), (False, "every_ms")):
                    started = time.perf_counter()
                    lists[prune] = ranked(peer, peer.names, task, include_inactive=False, limit=LIMIT, prune=prune)
                    timed[what] += (time.perf_counter() - started) * 1000
                if lists[True] != lists[False]:
                    differ.append(f"{name} of {task!r}")
    finally:
        peer.close()
    return {"lists": 2 * len(tasks), "differ": differ, **{k: round(v) for k, v in timed.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="6f37781", help="the revision to compare with (default 6f37781)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=1,
                        help="rounds answered first and not counted (default 1): a store's first reads come "
                        "from disk, and its first side would pay for both")
    parser.add_argument("--stores", default="generated,real", help="generated, real, or both (the default)")
    parser.add_argument("--no-check", action="store_true", help="leave out the pruned-against-every-candidate check")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from benchmarks import org_store
    from benchmarks._harness import REPO, machine_info, percentile, report
    from benchmarks.against_revision import unpacked

    sha, rev_tree = unpacked(args.rev)
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    machine = machine_info()
    payload: dict[str, Any] = {"machine": machine, "commit": org_store.commit(), "rev": sha[:12], "stores": {}}
    rows: list[list[object] | None] = []
    with org_store.postgres(org_store.CACHE / "pgdata") as server:
        for store in stores:
            if store == "generated":
                if not (org_store.CACHE / "org200k.json").is_file():
                    raise SystemExit("org_scale: no org200k yet: run `python -m benchmarks.org_store` once")
                db, tasks = "org200k", list(org_store.TASKS)
            elif store == "real":
                db, tasks = _real_store(server)
            else:
                parser.error(f"unknown store {store!r}: generated or real")
            url = server.get_uri(db)
            reader = org_store.empty_repo(org_store.CACHE / "readers" / f"scale-{db}", [{"url": url}])
            tasks_file = org_store.CACHE / "readers" / f"scale-{db}-tasks.json"
            tasks_file.write_text(json.dumps(tasks), encoding="utf-8")
            sides: dict[str, list[float]] = {"this": [], "rev": []}
            same = 0
            for _ in range(args.warmup):
                for side in ("this", "rev"):
                    _side(REPO if side == "this" else rev_tree, reader, tasks_file)
            for round_ in range(args.rounds):
                order = ("this", "rev") if round_ % 2 == 0 else ("rev", "this")
                answers = {side: _side(REPO if side == "this" else rev_tree, reader, tasks_file) for side in order}
                for side in order:
                    sides[side] += [t["ms"] for t in answers[side]["times"]]
                same += sum(a["ids"] == b["ids"] for a, b in zip(answers["this"]["times"], answers["rev"]["times"],
                                                                 strict=True))
                org_store.log(f"org_scale: {store}: round {round_ + 1}/{args.rounds}")
            ratios = [a / b for a, b in zip(sides["this"], sides["rev"], strict=True)]
            found = {"db": db, "tasks": len(tasks), "rounds": args.rounds, "warmup": args.warmup,
                     **{side: {"p50_ms": round(statistics.median(v)), "p95_ms": round(percentile(v, 0.95)),
                               "max_ms": round(max(v))} for side, v in sides.items()},
                     "ratio_p50": round(statistics.median(ratios), 3), "same_answers": same,
                     "answers": len(ratios), "samples_ms": sides}
            if not args.no_check:
                found["check"] = _check(url, tasks)
            payload["stores"][store] = found
            rows.append([store, f"{found['rev']['p50_ms']:,} / {found['rev']['p95_ms']:,}",
                         f"{found['this']['p50_ms']:,} / {found['this']['p95_ms']:,}", found["ratio_p50"],
                         f"{same} of {len(ratios)}",
                         "-" if args.no_check else f"{len(found['check']['differ'])} of {found['check']['lists']}"])
    report("org_scale", payload,
           title=[f"org_scale: `context` at 200,000 published documents, this tree against {sha[:12]}",
                  f"machine load at start {machine.get('loadavg_at_start')}"],
           columns=[("store", ""), (f"{sha[:7]} p50 / p95 ms", ""), ("this p50 / p95 ms", ""),
                    ("this/rev p50 of ratios", ".3f"), ("same answers", ""), ("pruned lists differing", "")],
           rows=rows, out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
