"""What the section ranking costs a warm `context`, against the whole-document bm25 it replaced.

    python -m benchmarks.lexical_cost [--sizes 1000,10000] [--rounds 15]

Uses speed_context.py's stores (generated, indexed, synthetic vectors; built on first use) and
runs, in one process and in alternating rounds so that load on the machine hits all sides alike:

  whole-doc  the lexical work of the ranking before adr-78d1238b4ae2: one bm25 query over
             documents_fts (column weights), the visibility walk, and term coverage
  sections   today's lexical side, `lexical.rank_documents`: bm25 over every heading section,
             the NEAR pairs, the visibility walk and term coverage
  context    a whole in-process `local_ranking.context` (fused, the real query embedding), for scale

per query (speed_context's task and worker_concurrency's four). Reported: median ms of each, the
extra cost of sections over whole-doc, and that extra as a share of the in-process context.
Prints a table, writes benchmarks/results/lexical_cost.json.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._harness import CACHE, SEED, Samples, arguments, report, timed
from benchmarks.speed import parse_sizes
from benchmarks.speed_context import TASK, prepare_store
from benchmarks.worker_concurrency import QUERIES

SIDES = ("whole-doc", "sections", "context")


def sides(root: Path) -> tuple[Callable[[], None], dict[str, Callable[[str], object]]]:
    """(close, side name -> one call) on an open session of the store."""
    os.environ["DOCIR_WORKER"] = "0"  # everything in this process: no worker, no forwarding
    from benchmarks._docir_api import load_local, local_context, open_session
    from docir.index.fts import CANDIDATES, match_expression, query_terms
    from docir.services.retrieval import lexical
    from docir.services.retrieval.visibility import Visibility

    session = open_session(root)
    source = load_local(session.schema.model_path, session.store.root)
    visibility = Visibility.from_schema(session.schema)

    def whole_doc(text: str) -> object:
        match = match_expression(text)
        if match is None:
            return []
        hits = session.catalog.search.lexical_hits(match, CANDIDATES * 2)
        shown = lexical.visible_in_order(session, [h.rowid for h in hits], visibility, CANDIDATES)
        return lexical.term_coverage(session, query_terms(text), shown, "documents_fts")

    return session.close, {
        "whole-doc": whole_doc,
        "sections": lambda text: lexical.rank_documents(session, text, visibility),
        "context": lambda text: local_context(session, [text], source, expand=False),
    }


def measure(root: Path, rounds: int) -> dict[str, Any]:
    close, calls = sides(root)
    queries = (TASK, *QUERIES)
    times = Samples()
    try:
        for query in queries:  # warm-up: caches, the model, the vector matrix
            for side in SIDES:
                calls[side](query)
        for _ in range(rounds):
            for query in queries:
                for side in SIDES:
                    times.add(side, timed(lambda: calls[side](query))[1])  # noqa: B023  (called at once)
    finally:
        close()
    medians = {side: round(times.median(side), 2) for side in SIDES}
    extra = medians["sections"] - medians["whole-doc"]
    return {"median_ms": medians, "extra_ms": round(extra, 2),
            "extra_share_of_context": round(extra / medians["context"], 3),
            "calls_per_side": len(times.wall["context"])}


def main(argv: list[str] | None = None) -> int:
    parser = arguments("lexical_cost", __doc__)
    parser.add_argument("--sizes", default="1000,10000", help="store sizes (default 1000,10000)")
    parser.add_argument("--rounds", type=int, default=15, help="rounds over the five queries (default 15)")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    for size in parse_sizes(parser, args.sizes):
        store = prepare_store(CACHE, size, SEED)
        results[str(size)] = measure(store.root, args.rounds)
    rows = [[int(size), *(row["median_ms"][side] for side in SIDES), row["extra_ms"], row["extra_share_of_context"]]
            for size, row in results.items()]
    report("lexical_cost", {"rounds": args.rounds, "sizes": results}, out=args.out, rows=rows,
           columns=[("docs", "d"), *((f"{side} ms", ".1f") for side in SIDES), ("extra ms", ".1f"),
                    ("of context", ".0%")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
