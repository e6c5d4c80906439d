"""What an answer sketch is worth to `docir context`, and what a wrong one costs (adr-2b7e51c4d9a0).

    python -m benchmarks.quality.sketch                          # quality, docir, eips-ci
    python -m benchmarks.quality.sketch --corpus quality,docir,eips,madr --benchdata   # every corpus
    python -m benchmarks.quality.sketch --out benchmarks/results/sketch.json

Every query of each corpus is ranked by the real `ranking.context` (limit 10, no expansion)
with its sketch from sketches.yaml (written from the query list alone, see its header):

    task        the task alone: what docir did before sketches
    pasted      the sketch pasted after the task, one text: the floor the issue measured
    sketch      the task with `Need(sketch=...)`: each form ranked, then fused into one ranking
    terms       the task with `Need(terms=...)`, the exact words of sketches.yaml's `terms`
    both        the task with its sketch and its terms

and the same three with a *poor* sketch: another query's, drawn by a seeded derangement
within the corpus (`poor`), and the next query's in file order (`adjacent`), which in these
files is usually a neighbouring topic with misleading vocabulary: the harder case.

Scored as run.py scores (nDCG@10, MRR@10, answer@1 = the answer is first). `first lost` counts
queries whose answer was first with the task alone and is below rank 2 with the sketch.
Targets: with a good sketch, answer@1 >= 0.90 and nDCG@10 >= pasted + 0.01; with a poor one,
nDCG@10 within 0.03 of the task alone. Uses run.py's stores and cache (run that first).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from benchmarks._harness import report
from benchmarks.quality import run as bench

HERE = Path(__file__).resolve().parent

SKETCHES_FILE = HERE / "sketches.yaml"
WAYS = ("task", "pasted", "sketch")
WITH_TERMS = ("terms", "both")  # only with the query's own sketch
SKETCHES = ("good", "poor", "adjacent")
SHOWN = ("ndcg@10", "mrr@10", "answer@1")
SEED = 0


def load_sketches(path: Path = SKETCHES_FILE, part: str = "sketches") -> dict[str, str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {str(k): str(v or "") for k, v in (data.get(part) or {}).items()}


def poor_sketches(queries: Sequence[bench.Query], sketches: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each query's own sketch, a seeded derangement's and the next query's (never its own)."""
    rng = random.Random(SEED)
    order = list(range(len(queries)))
    while len(order) > 1 and any(i == j for i, j in enumerate(order)):
        rng.shuffle(order)
    return {q.id: {"good": sketches[q.id], "poor": sketches[queries[order[i]].id],
                   "adjacent": sketches[queries[(i + 1) % len(queries)].id]}
            for i, q in enumerate(queries)}


def rank(session: Any, source: Any, task: str, sketch: str, way: str, terms: str = "") -> list[str]:
    from benchmarks._docir_api import local_context
    from docir.services.retrieval.need import Need

    need = {"task": Need(task), "pasted": Need(f"{task} {sketch}"), "sketch": Need(task, sketch),
            "terms": Need(task, terms=terms), "both": Need(task, sketch, terms)}[way]
    result = local_context(session, [need], source, limit=bench.CUTOFF, expand=False)
    return [r["id"] for r in result.results]


def evaluate(session: Any, source: Any, queries: Sequence[bench.Query], sketches: dict[str, str],
             terms: dict[str, str]) -> list[dict[str, Any]]:
    """Per query: the ranked ids and metrics of every way, with every kind of sketch."""
    chosen = poor_sketches(queries, sketches)
    chosen_terms = poor_sketches(queries, {q.id: terms.get(q.id, "") for q in queries})  # the same draw
    rows = []
    for q in queries:
        row: dict[str, Any] = {"id": q.id, "corpus": q.corpus, "answers": list(q.answers()), "runs": {}}
        alone = rank(session, source, q.text, "", "task")
        for kind in SKETCHES:
            for way in WAYS:
                ids = alone if way == "task" else rank(session, source, q.text, chosen[q.id][kind], way)
                row["runs"][f"{kind}/{way}"] = {"ranked": ids, **bench.score(ids, q.grade_map())}
        if terms.get(q.id):  # a query with no terms would only repeat its task's and sketch's rankings
            for kind in ("good", "poor"):
                for way in WITH_TERMS:
                    ids = rank(session, source, q.text, chosen[q.id][kind], way, chosen_terms[q.id][kind])
                    row["runs"][f"{kind}/{way}"] = {"ranked": ids, **bench.score(ids, q.grade_map())}
        rows.append(row)
    return rows


def first_lost(rows: Sequence[dict[str, Any]], kind: str = "good") -> list[str]:
    """Queries whose answer was first with the task alone and is below rank 2 with the sketch."""
    lost = []
    for row in rows:
        alone, with_sketch = row["runs"][f"{kind}/task"]["ranked"], row["runs"][f"{kind}/sketch"]["ranked"]
        if alone and alone[0] in row["answers"] and not set(with_sketch[:2]) & set(row["answers"]):
            lost.append(row["id"])
    return lost


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    keys = dict.fromkeys(key for r in rows for key in r["runs"])
    return {key: bench.mean_metrics([r["runs"][key] for r in rows if key in r["runs"]]) for key in keys}


def table(by_corpus: dict[str, list[dict[str, Any]]], kind: str) -> str:
    lines = [f"{kind} sketches: nDCG@10 / MRR@10 / answer@1",
             f"{'corpus':10} {'n':>4}  " + "  ".join(f"{way:>20}" for way in WAYS) + "  first lost"]
    for name, rows in by_corpus.items():
        means = summary(rows)
        cells = ["{:.3f} / {:.3f} / {:.2f}".format(*(means[f"{kind}/{way}"][m] for m in SHOWN)) for way in WAYS]
        lines.append(f"{name:10} {len(rows):>4}  " + "  ".join(f"{c:>20}" for c in cells)
                     + f"  {len(first_lost(rows, kind)):>10}")
    return "\n".join(lines)


def terms_table(by_corpus: dict[str, list[dict[str, Any]]], kind: str) -> str:
    """The queries that have terms, each way over just them; poor terms are another query's, drawn as
    its poor sketch is."""
    ways = ("task", "sketch", *WITH_TERMS)
    lines = [f"{kind} exact terms (queries with terms only): nDCG@10 / MRR@10 / answer@1",
             f"{'corpus':10} {'n':>4}  " + "  ".join(f"{way:>20}" for way in ways)]
    for name, rows in by_corpus.items():
        having = [r for r in rows if f"{kind}/terms" in r["runs"]]
        if not having:
            continue
        means = summary(having)
        cells = ["{:.3f} / {:.3f} / {:.2f}".format(*(means[f"{kind}/{way}"][m] for m in SHOWN)) for way in ways]
        lines.append(f"{name:10} {len(having):>4}  " + "  ".join(f"{c:>20}" for c in cells))
    return "\n".join(lines)


def corpus_rows(name: str, cache: Path, sketches: dict[str, str], terms: dict[str, str],
                log: Callable[[str], None]) -> list[dict[str, Any]] | None:
    if name == "cranfield":
        folder = bench.BENCHDATA / "cranfield"
        if not (folder / "cran.all.1400").is_file():
            log(f"skipping Cranfield: {folder} not found")
            return None
        store, queries = bench.build_cranfield(folder, cache / "cranfield")
    else:
        found = bench.corpus_store(name, cache, log)
        if found is None:
            return None
        store, queries = found, bench.load_corpus_queries([name])
    missing = [q.id for q in queries if q.id not in sketches]
    if missing:
        raise SystemExit(f"{SKETCHES_FILE.name} has no sketch for {', '.join(missing[:5])}")
    session, source = bench.open_indexed(store, log)
    try:
        return evaluate(session, source, queries, sketches, terms)
    finally:
        session.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="quality,docir,eips-ci", help="comma-separated corpora")
    parser.add_argument("--benchdata", action="store_true", help="also Cranfield from ../shared/benchdata")
    parser.add_argument("--cache", type=Path, default=bench.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, help="JSON output (default benchmarks/results/sketch.json)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.corpus.split(",") if n.strip()] + (["cranfield"] if args.benchdata else [])
    sketches, terms = load_sketches(), load_sketches(part="terms")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    by_corpus: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        rows = corpus_rows(name, args.cache, sketches, terms, log)
        if rows is not None:
            by_corpus[name] = rows
    tables = [*(table(by_corpus, kind) + "\n" for kind in SKETCHES),
              *(terms_table(by_corpus, kind) + "\n" for kind in ("good", "poor"))]
    report("sketch", {"corpora": {name: {"queries": len(rows), "summary": summary(rows), "first_lost": first_lost(rows),
                                         "per_query": rows} for name, rows in by_corpus.items()}},
           title=tables, out=args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
