"""What an agent reads per task: one `context` and one `get --section` of its top result.

    python -m benchmarks.context_cost [--corpus quality,docir,eips] [--budgets 1000,1600,2500]

For every judged query of the quality corpora (benchmarks/quality/run.py builds and caches
their stores), runs the `context` command's own service function (commands.context, what
the CLI and the MCP tool run) in these shapes:

    before      no budget, full skeletons everywhere (the shape `context` had before budgets)
    compact     no budget, linked documents compact, ranked ones with a related count
    after       compact within the default budget (budget.DEFAULT_BUDGET)
    budget=N    compact within N tokens, for each N of --budgets

then `get` of the top result: the matched section when there is one (`get --section`), else
the whole document, as an agent would. Bytes are the JSON as the MCP server sends it
(`json.dumps`, no indentation); tokens are bytes / 4, the estimate `size` uses. answer@1
(run.py's: the top result carries the query's highest grade) is reported beside, to show
that trimming never costs the answer. Prints a table, writes benchmarks/results/context_cost.json.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any

from benchmarks._harness import arguments, percentile, report
from benchmarks.quality import run as quality  # corpora, queries, cached stores
from docir.services.retrieval import budget as budgets
from docir.services.retrieval import reads as commands
from docir.services.retrieval.skeleton import cost

DEFAULT_CORPORA = ("quality", "docir", "eips")
TARGET_MEDIAN = 2500  # tokens per task


def json_bytes(payload: Any) -> int:
    return len(json.dumps(payload, ensure_ascii=False).encode("utf-8"))


def tokens_of(size: int) -> int:
    return cost(size)["tokens"]  # the estimate `size` and the budget use


def shapes(extra: list[int]) -> dict[str, tuple[int, bool]]:
    """shape name -> (budget, full_links)."""
    found = {"before": (0, True), "compact": (0, False), "after": (budgets.DEFAULT_BUDGET, False)}
    for limit in extra:
        found.setdefault(f"budget={limit}", (limit, False))
    return found


def measure(session: Any, query: quality.Query, shape: tuple[int, bool]) -> dict[str, Any]:
    limit, full_links = shape
    request = commands.ContextRequest(task=query.text, budget=limit, full_links=full_links)
    result = commands.context(session, request, lambda _m: None)
    context_bytes = json_bytes(result.to_json())
    ranked = [row for row in result.results if row.get("via") is None]
    top = ranked[0] if ranked else None
    get_bytes = 0
    if top is not None:
        # a ranked row is never a LinkedDoc (those have a `via`), so this is its str | None field
        matched = top.get("matched_section") if top["kind"] == "document" else None
        section = matched if isinstance(matched, str) else None
        fetched = commands.get(session, commands.GetRequest(ids=(top["id"],), section=(section,) if section else ()),
                               lambda _m: None)
        get_bytes = json_bytes(fetched.to_json())
    ids = [row["id"] for row in ranked]
    return {"context_bytes": context_bytes, "get_bytes": get_bytes, "entries": len(result.results),
            "omitted": result.omitted, "answer@1": quality.answer_at_1(ids, query.grade_map()),
            "top": ids[0] if ids else None}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    context_tokens = [tokens_of(r["context_bytes"]) for r in rows]
    task_tokens = [tokens_of(r["context_bytes"] + r["get_bytes"]) for r in rows]
    return {
        "n": len(rows),
        "context_tokens_median": statistics.median(context_tokens),
        "context_tokens_p90": percentile(context_tokens, 0.9),
        "task_tokens_median": statistics.median(task_tokens),
        "task_tokens_p90": percentile(task_tokens, 0.9),
        "context_bytes_median": statistics.median(r["context_bytes"] for r in rows),
        "entries_mean": round(statistics.fmean(r["entries"] for r in rows), 2),
        "omitted_mean": round(statistics.fmean(r["omitted"] for r in rows), 2),
        "answer@1": round(statistics.fmean(r["answer@1"] for r in rows), 3),
    }


COLUMNS = [("corpus", ""), ("shape", ""), ("n", "d"), ("ctx tok med", "g"), ("ctx p90", "d"),
           ("task tok med", "g"), ("task p90", "d"), ("entries", ".2f"), ("omitted", ".2f"), ("answer@1", ".3f")]


def table_rows(results: dict[str, dict[str, dict[str, Any]]]) -> list[list[object]]:
    return [[corpus, shape, s["n"], s["context_tokens_median"], s["context_tokens_p90"], s["task_tokens_median"],
             s["task_tokens_p90"], s["entries_mean"], s["omitted_mean"], s["answer@1"]]
            for corpus, by_shape in results.items() for shape, s in by_shape.items()]


def main(argv: list[str] | None = None) -> int:
    parser = arguments("context_cost", __doc__)
    parser.add_argument("--budgets", default="", help="extra budgets to compare, comma-separated tokens")
    args, names, queries = quality.judged(parser, DEFAULT_CORPORA, argv)
    wanted = shapes([int(b) for b in args.budgets.split(",") if b.strip()])
    started = time.perf_counter()
    per_query: list[dict[str, Any]] = []
    results: dict[str, dict[str, dict[str, Any]]] = {}
    everything: dict[str, list[dict[str, Any]]] = {shape: [] for shape in wanted}
    for name in names:
        with quality.serving(name, args.cache) as session:
            if session is None:
                continue
            by_shape: dict[str, list[dict[str, Any]]] = {shape: [] for shape in wanted}
            for q in (q for q in queries if q.corpus == name):
                row: dict[str, Any] = {"corpus": name, "query": q.id, "kind": q.kind}
                for shape, spec in wanted.items():
                    found = measure(session, q, spec)
                    row[shape] = found
                    by_shape[shape].append(found)
                    everything[shape].append(found)
                per_query.append(row)
            results[name] = {shape: summary(rows) for shape, rows in by_shape.items() if rows}
    if len(results) > 1:
        results["all"] = {shape: summary(rows) for shape, rows in everything.items() if rows}
    overall = results.get("all") or next(iter(results.values()), {})
    after, before = overall.get("after"), overall.get("before")
    verdict = None
    notes = []
    if after and before:
        verdict = {"median_task_tokens": after["task_tokens_median"], "target": TARGET_MEDIAN,
                   "median_ok": after["task_tokens_median"] <= TARGET_MEDIAN,
                   "answer_ok": after["answer@1"] >= before["answer@1"]}
        notes.append(f"\nafter: median {after['task_tokens_median']} tokens per task (target <= {TARGET_MEDIAN}), "
                     f"answer@1 {after['answer@1']} vs {before['answer@1']} before")
    payload = {"default_budget": budgets.DEFAULT_BUDGET, "shapes": wanted, "summary": results, "verdict": verdict,
               "per_query": per_query, "seconds": round(time.perf_counter() - started, 1)}
    report("context_cost", payload, columns=COLUMNS, rows=table_rows(results), notes=notes, out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
