"""A sketch in a big store, read with every word and as this tree reads it (adr-1d4f30c33f26), good and poor.

    python -m benchmarks.quality.sketch_big_store [--copies 3] [--repeat 5]

Every judged EIP query that has a sketch (sketches.yaml) is ranked by the real `context` (no
expansion) in warm_floor.py's store of the EIPs `--copies` times over: past GATE_FROM_SECTIONS
sections, the only judged store that is big. Each query alone, with its own sketch, and with a
poor one (another query's, sketch.py's seeded derangement), each sketch read as this tree reads it
(need.LEAVES_COMMON: its common words left out of its lists) and with every word (need.LEAVES_COMMON
emptied). The copies tie in every ranking: each ranked id is folded to its first
copy's, and the first ten distinct ones are scored as run.py scores (nDCG@10, MRR@10, answer@1).

Then the speed of a sketch's lexical lists (lexical.LexicalLists: its sections, its word pairs and
their coverage, on one thread, warm), both readings of each good sketch back to back, their order
alternating, `--repeat` rounds in one run: the mean per sketch of each reading and the median of the
sketch-by-sketch ratio. Prints a table and writes benchmarks/results/sketch_big_store.json.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from benchmarks._harness import REPO, arguments, machine_info, report
from benchmarks.quality import run as bench
from benchmarks.quality import sketch as sketches
from benchmarks.warm_floor import side_store

COPY = re.compile(r"^adr-[0-9a-f]{8}(?=[0-9a-f]{4}$)")
WAYS = ("task alone", "good sketch", "poor sketch")
READINGS = ("every word", "common words left out")  # the second: as this tree reads a sketch


def folded(ids: Sequence[str]) -> list[str]:
    """The ranked ids as their first copy's, each once, in order."""
    return list(dict.fromkeys(COPY.sub("adr-00000000", doc_id) for doc_id in ids))


def sketch_texts() -> list[str]:
    """The good sketch of every judged EIP query that has one, in file order."""
    own = sketches.load_sketches()
    return [own[q.id] for q in bench.load_corpus_queries(["eips"]) if q.corpus == "eips" and own.get(q.id)]


def lists_speed(copies: int, repeat: int) -> dict[str, Any]:
    """A sketch's lexical lists read with every word and as this tree reads them, paired in one run: each
    sketch's two readings back to back, the order alternating sketch by sketch and round by round, after one
    warm-up round. Per reading the mean per sketch (ms) of each round, and the median over rounds; the
    median of the sketch-by-sketch ratio, as read / every word."""
    os.environ["DOCIR_WORKER"] = "0"
    from benchmarks._docir_api import open_session
    from docir.services.retrieval import lexical
    from docir.services.retrieval.visibility import Visibility

    session = open_session(side_store("this", "", REPO, copies))
    visibility = Visibility.from_schema(session.schema)
    texts = sketch_texts()
    took: dict[bool, list[list[float]]] = {False: [], True: []}

    def read(text: str, leave_common: bool) -> float:
        started = time.perf_counter()
        form = lexical.LexicalLists(session, text, visibility, leave_common=leave_common)
        form.ranked(session, form.sections(session), form.pairs(session))
        return time.perf_counter() - started

    try:
        for round_ in range(repeat + 1):
            times: dict[bool, list[float]] = {False: [], True: []}
            for n, text in enumerate(texts):
                order = (False, True) if (n + round_) % 2 == 0 else (True, False)
                for leave_common in order:
                    times[leave_common].append(read(text, leave_common))
            if round_:  # the first round warms the caches and the pages
                for leave_common, spent in times.items():
                    took[leave_common].append(spent)
    finally:
        session.close()
    ratios = [mine / every for spent_mine, spent_every in zip(took[True], took[False], strict=True)
              for mine, every in zip(spent_mine, spent_every, strict=True)]
    per_round = {reading: [1000 * sum(spent) / len(spent) for spent in took[leave_common]]
                 for reading, leave_common in zip(READINGS, (False, True), strict=True)}
    return {"sketches": len(texts), "rounds": repeat, "ms_per_sketch": per_round,
            "median_ms": {reading: statistics.median(values) for reading, values in per_round.items()},
            "median_ratio": statistics.median(ratios)}


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
    parser.add_argument("--repeat", type=int, default=5, help="rounds of the lists' speed (default 5; 0: none)")
    args = parser.parse_args(argv)
    means = evaluate(args.copies)
    speed = lists_speed(args.copies, args.repeat) if args.repeat > 0 else None
    rows: list[Sequence[object]] = [
        (way, *(means[reading][way][metric] for reading in READINGS for metric in ("ndcg@10", "answer@1")))
        for way in WAYS]
    payload: dict[str, Any] = {"machine": machine_info(), "copies": args.copies, "means": means, "speed": speed}
    notes = [] if speed is None else [
        f"a sketch's lexical lists, one thread, warm ({speed['sketches']} sketches x {speed['rounds']} rounds, "
        f"paired): every word {speed['median_ms'][READINGS[0]]:.2f} ms, left out "
        f"{speed['median_ms'][READINGS[1]]:.2f} ms per sketch; median ratio left out / every word "
        f"{speed['median_ratio']:.3f}"]
    report("sketch_big_store", payload, title=[f"the EIPs {args.copies} times over, copies folded; mean per query"],
           columns=[("", ""), ("nDCG@10 every word", ".4f"), ("answer@1 every word", ".3f"),
                    ("nDCG@10 left out", ".4f"), ("answer@1 left out", ".3f")],
           rows=rows, notes=notes, out=args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
