"""Where the task alone misses: for each judged task whose answer is not first, the answer's place in each list.

    python -m benchmarks.quality.misses [--corpus quality,docir,madr,eips] [--cache DIR]

People type tasks without sketches, so the next change to fusion starts from these misses, not from the mean.
For every judged task of each corpus (the stores run.py builds and caches), `context` ranks the task alone,
fused, with `--explain`, no expansion, deep enough (DEPTH) to find the answer below the first page. A miss
is a task whose answer (its top grade) is not first. For each: the answer's place in the fusion and in each
list (heading sections by bm25, word pairs close together, vectors), and each list's contribution to the
answer's score and to the winner's; "outvoted by" names the list whose contribution to the winner most
exceeds the answer's. Prints a table per corpus, a summary (how many misses have the answer in a list's
top 3, which list outvotes most) and writes benchmarks/results/misses.json.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Any

from benchmarks._harness import arguments, report
from benchmarks.quality import run as quality

DEFAULT_CORPORA = ("quality", "docir", "madr", "eips")
DEPTH = 50  # fused places read: an answer below this is "not found"
LISTS = ("sections", "near", "vector")


def _places(row: Mapping[str, Any]) -> dict[str, int | None]:
    rankings = (row.get("explain") or {}).get("rankings") or {}
    return {name: (rankings.get(name) or {}).get("rank") for name in LISTS}


def _parts(row: Mapping[str, Any]) -> dict[str, float]:
    found = (row.get("explain") or {}).get("contributions") or {}
    return {name: float(found.get(name) or 0.0) for name in (*LISTS, "lent")}


def study(session: Any, query: quality.Query) -> dict[str, Any] | None:
    """The task's miss, or None when its answer is first."""
    from docir.services.retrieval import reads

    request = reads.ContextRequest(task=query.text, limit=DEPTH, explain=True, expand=False, budget=0)
    found: list[Mapping[str, Any]] = list(reads.context(session, request, lambda _m: None).to_json()["results"])
    rows = [r for r in found if r.get("via") is None]
    answers = set(query.answers())
    place = next((n for n, row in enumerate(rows, start=1) if row["id"] in answers), None)
    if place == 1 or not rows:
        return None
    winner = rows[0]
    answer = rows[place - 1] if place is not None else None
    won, had = _parts(winner), _parts(answer) if answer is not None else {}
    margins = {name: won[name] - had.get(name, 0.0) for name in (*LISTS, "lent")}
    return {
        "query": query.id, "text": query.text, "kind": query.kind, "answer": sorted(answers), "place": place,
        "lists": _places(answer) if answer is not None else {name: None for name in LISTS},
        "answer_parts": {k: round(v, 3) for k, v in had.items()},
        "winner": winner["id"], "winner_lists": _places(winner),
        "winner_parts": {k: round(v, 3) for k, v in won.items()},
        "outvoted_by": max(margins, key=lambda name: margins[name]),
    }


def summary(misses: list[dict[str, Any]], tasks: int) -> dict[str, Any]:
    near_top = sum(1 for m in misses if any(p is not None and p <= 3 for p in m["lists"].values()))
    by = {name: sum(1 for m in misses if m["outvoted_by"] == name) for name in (*LISTS, "lent")}
    return {"tasks": tasks, "misses": len(misses), "answer_first": round(1 - len(misses) / tasks, 3) if tasks else None,
            "answer_in_a_lists_top3": near_top, "in_fused_top3": sum(1 for m in misses if (m["place"] or 99) <= 3),
            "not_found": sum(1 for m in misses if m["place"] is None), "outvoted_by": by}


COLUMNS = [("corpus", ""), ("tasks", "d"), ("answer first", ".3f"), ("misses", "d"), ("in a list's top 3", "d"),
           ("fused top 3", "d"), ("not found", "d"), ("by sections", "d"), ("by near", "d"), ("by vector", "d"),
           ("by loans", "d")]


def main(argv: list[str] | None = None) -> int:
    args, names, queries = quality.judged(arguments("misses", __doc__), DEFAULT_CORPORA, argv)
    started = time.perf_counter()
    results: dict[str, Any] = {}
    notes: list[str] = []
    for name in names:
        with quality.serving(name, args.cache) as session:
            if session is None:
                continue
            mine = [q for q in queries if q.corpus == name]
            misses = [m for m in (study(session, q) for q in mine) if m is not None]
            results[name] = {"summary": summary(misses, len(mine)), "misses": misses}
            notes.append(f"\n{name}: answer's place, fused / sections / near / vector; the winner's; outvoted by")
            for m in misses:
                lists = " / ".join("-" if p is None else str(p) for p in m["lists"].values())
                won = " / ".join("-" if p is None else str(p) for p in m["winner_lists"].values())
                notes.append(f"  {m['query']:<16} {m['place'] or '-':>3} | {lists:<14} | {won:<14} | "
                             f"{m['outvoted_by']:<8} {m['text'][:60]}")
    rows = [[name, s["tasks"], s["answer_first"], s["misses"], s["answer_in_a_lists_top3"], s["in_fused_top3"],
             s["not_found"], *(s["outvoted_by"][k] for k in (*LISTS, "lent"))]
            for name, found in results.items() for s in (found["summary"],)]
    payload = {"corpora": results, "seconds": round(time.perf_counter() - started, 1)}
    report("misses", payload, columns=COLUMNS, rows=rows, notes=notes, out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
