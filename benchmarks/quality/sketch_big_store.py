"""A sketch in a big store, with and without its common words (adr-1d4f30c33f26), good and poor.

    python -m benchmarks.quality.sketch_big_store [--copies 3]

Every judged EIP query that has a sketch (sketches.yaml) is ranked by the real `context` (no
expansion) in warm_floor.py's store of the EIPs `--copies` times over: past GATE_FROM_SECTIONS
sections, the only judged store that is big. Each query alone, with its own sketch, and with a
poor one (another query's, sketch.py's seeded derangement), each sketch read as this tree reads it
(its common words left out) and with every word (need.LEAVES_COMMON emptied). The copies tie in
every ranking: each ranked id is folded to its first copy's, and the first ten distinct ones are
scored as run.py scores (nDCG@10, MRR@10, answer@1). Prints a table and writes
benchmarks/results/sketch_big_store.json.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
from collections.abc import Sequence
from typing import Any

from benchmarks._harness import REPO, arguments, machine_info, report
from benchmarks.quality import run as bench
from benchmarks.quality import sketch as sketches
from benchmarks.warm_floor import side_store

COPY = re.compile(r"^adr-[0-9a-f]{8}(?=[0-9a-f]{4}$)")
WAYS = ("task alone", "good sketch", "poor sketch")
READINGS = ("every word", "common words left out")


def folded(ids: Sequence[str]) -> list[str]:
    """The ranked ids as their first copy's, each once, in order."""
    return list(dict.fromkeys(COPY.sub("adr-00000000", doc_id) for doc_id in ids))


def evaluate(copies: int) -> dict[str, dict[str, dict[str, float]]]:
    """Per reading and way: the mean of each metric over the queries."""
    os.environ["DOCIR_WORKER"] = "0"  # every ranking in this process, with this process's reading
    from benchmarks._docir_api import load_local, local_context, open_session
    from docir.services.retrieval import local_ranking
    from docir.services.retrieval.need import LEAVES_COMMON, Need

    root = side_store("this", "", REPO, copies)
    queries = [q for q in bench.load_corpus_queries(["eips"]) if q.corpus == "eips"]
    own = sketches.load_sketches()
    queries = [q for q in queries if own.get(q.id)]
    chosen = sketches.poor_sketches(queries, own)
    session = open_session(root)
    source = load_local(session.schema.model_path, session.store.root)
    found: dict[str, dict[str, list[dict[str, float]]]] = {r: {w: [] for w in WAYS} for r in READINGS}
    try:
        for reading in READINGS:
            # The name local ranking reads the rule by (the organisation store is not read here).
            setattr(local_ranking, "LEAVES_COMMON", LEAVES_COMMON if reading == READINGS[1] else ())  # noqa: B010
            for q in queries:
                needs = {"task alone": Need(q.text), "good sketch": Need(q.text, chosen[q.id]["good"]),
                         "poor sketch": Need(q.text, chosen[q.id]["poor"])}
                for way, need in needs.items():
                    result = local_context(session, [need], source, limit=bench.CUTOFF * copies, expand=False)
                    ranked = folded([str(r["id"]) for r in result.results])[: bench.CUTOFF]
                    found[reading][way].append(bench.score(ranked, q.grade_map()))
            print(f"sketch_big_store: {reading} done", file=sys.stderr, flush=True)
    finally:
        setattr(local_ranking, "LEAVES_COMMON", LEAVES_COMMON)  # noqa: B010
        session.close()
    return {reading: {way: {metric: statistics.mean(s[metric] for s in scores)
                            for metric in ("ndcg@10", "mrr@10", "answer@1")}
                      for way, scores in ways.items()}
            for reading, ways in found.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments("sketch_big_store", __doc__)
    parser.add_argument("--copies", type=int, default=3, help="copies of every EIP in the store (default 3)")
    args = parser.parse_args(argv)
    means = evaluate(args.copies)
    rows: list[Sequence[object]] = [
        (way, *(means[reading][way][metric] for reading in READINGS for metric in ("ndcg@10", "answer@1")))
        for way in WAYS]
    payload: dict[str, Any] = {"machine": machine_info(), "copies": args.copies, "means": means}
    report("sketch_big_store", payload, title=[f"the EIPs {args.copies} times over, copies folded; mean per query"],
           columns=[("", ""), ("nDCG@10 every word", ".4f"), ("answer@1 every word", ".3f"),
                    ("nDCG@10 left out", ".4f"), ("answer@1 left out", ".3f")],
           rows=rows, out=args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
