"""What an agent reads of docir's answers: the compact text form beside the JSON, per judged task.

    python -m benchmarks.agent_bytes [--corpus quality,docir,madr,eips]

For every judged query of each corpus (benchmarks/quality/run.py builds and caches their stores),
runs the `context` command's own service function, as the CLI and the MCP tool do, with the
default budget and 8 results, for the task alone and with its sketch (quality/sketches.yaml), and
measures the bytes of the same answer in three forms: `--json` (the complete JSON, as the CLI
prints it: as it was before the text form, which is the target's measure, and as it is now), the
agent's text (what a read prints off a terminal) and the MCP tool's reply (the same text). Per
answered task, an agent reads one context and the get it needs: the matched section of
the top result (`get --section`), else the document, in the agent's form. Then `get` of every
document over 20 KB in the corpus, in the agent's form (its outline) and in JSON.

Targets (adr-aa663d326ae5): the agent's form at most 25% of the JSON with the same ids in the same
order; `get` of a document over 20 KB at most 8 KB unless the whole body is asked for. Prints a
table and writes benchmarks/results/agent_bytes.json.

Linked entries (`↳`), per relation kind and direction: how many the text form printed, their bytes,
how many are judged relevant to the task, and how many tasks' answer (the top grade) came only as a
linked entry. Taking a kind out of the expansion drops exactly its lines: ranked entries come
first within the budget, so none of them changes (docir/services/retrieval/budget.py). A kind
earns its bytes when it brings judged documents, or answers, the ranking left out.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from typing import Any

from benchmarks._harness import arguments, percentile, report, target
from benchmarks.quality import run as quality  # corpora, queries, cached stores
from benchmarks.quality import sketch as sketches  # each judged task's sketch
from docir.cli import agent_text
from docir.services.retrieval import budget as budgets
from docir.services.retrieval import reads as commands

DEFAULT_CORPORA = ("quality", "docir", "madr", "eips")
TEXT_SHARE = 0.25  # the agent's form, at most this share of the JSON's bytes
BIG_DOCUMENT = 20_000  # bytes: a body this long is fetched as its outline
BIG_GET_MAX = 8_000  # bytes an agent's `get` of such a document may print
ENTRY_RE = re.compile(r"^(?:\d+\.|   ↳) (\S+) \(", re.M)


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def cli_json(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def json_before(payload: Any) -> str:
    """The JSON `context` printed before the text form: the same entries, each as the budget counts it (without
    the linked entries' descriptions and the matched passage, which the JSON gained with the text form)."""
    return cli_json({**payload, "results": [budgets.counted(row) for row in payload["results"]]})


def measure(session: Any, query: quality.Query, sketch: str) -> dict[str, Any]:
    request = commands.ContextRequest(task=query.text, sketch=sketch)
    payload = commands.context(session, request, lambda _m: None).to_json()
    text = agent_text.context(payload)
    ids = [row["id"] for row in payload["results"]]
    ranked = [row for row in payload["results"] if row.get("via") is None]
    top = ranked[0] if ranked else None
    get_text = ""
    if top is not None:
        matched = top.get("matched_section") if top.get("kind") == "document" else None
        section = (matched,) if isinstance(matched, str) else ()
        found = commands.get(session, commands.GetRequest(ids=(top["id"],), section=section), lambda _m: None)
        get_text = agent_text.documents(found.to_json())
    grades = query.grade_map()
    answers = set(query.answers())
    ranked_ids = {row["id"] for row in ranked}
    lines = {m.group(1): size(m.group(0)) for m in re.finditer(r"^   ↳ (\S+) .*\n?", text, re.M)}
    links = [{"kind": f"{via['kind']} ({via['direction']})", "bytes": lines.get(row["id"], 0),
              "relevant": grades.get(row["id"], 0) > 0,
              "answer_only_here": row["id"] in answers and not answers & ranked_ids}
             for row in payload["results"] if (via := row.get("via")) is not None]
    return {"json": size(json_before(payload)), "json_now": size(cli_json(payload)), "text": size(text),
            "mcp": size(text), "links": links,
            "task": size(text) + size(get_text), "same_ids": ENTRY_RE.findall(text) == ids,
            "answer@1": quality.answer_at_1([r["id"] for r in ranked], query.grade_map())}


def big_gets(session: Any) -> list[dict[str, Any]]:
    """`get` of every document over BIG_DOCUMENT bytes, as an agent reads it and as JSON."""
    out = []
    for listing in session.catalog.docs.listings():
        if listing.size < BIG_DOCUMENT:
            continue
        found = commands.get(session, commands.GetRequest(ids=(listing.id,)), lambda _m: None).to_json()
        out.append({"id": listing.id, "bytes": listing.size, "text": size(agent_text.documents(found)),
                    "json": size(cli_json(found))})
    return out


def by_kind(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Linked entries of every task, per relation kind: what they cost and what they brought."""
    kinds: dict[str, dict[str, Any]] = {}
    for row in rows:
        for link in row["links"]:
            found = kinds.setdefault(link["kind"], {"entries": 0, "bytes": 0, "relevant": 0, "answers": 0})
            found["entries"] += 1
            found["bytes"] += link["bytes"]
            found["relevant"] += link["relevant"]
            found["answers"] += link["answer_only_here"]
    for found in kinds.values():
        found["bytes_per_task"] = round(found["bytes"] / len(rows), 1)
        found["relevant_share"] = round(found["relevant"] / found["entries"], 3)
    return kinds


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    median = {key: statistics.median(r[key] for r in rows) for key in ("json", "json_now", "text", "mcp", "task")}
    return {"n": len(rows), **{f"{k}_median": v for k, v in median.items()},
            "text_p90": percentile([r["text"] for r in rows], 0.9),
            "share": round(median["text"] / median["json"], 3) if median["json"] else None,
            "same_ids": all(r["same_ids"] for r in rows),
            "answer@1": round(statistics.fmean(r["answer@1"] for r in rows), 3), "links": by_kind(rows)}


COLUMNS = [("corpus", ""), ("form", ""), ("n", "d"), ("json before", "g"), ("--json now", "g"), ("text med B", "g"),
           ("text p90", "g"),
           ("text/json", ".3f"), ("mcp med B", "g"), ("task med B", "g"), ("same ids", ""), ("answer@1", ".3f")]


def main(argv: list[str] | None = None) -> int:
    args, names, queries = quality.judged(arguments("agent_bytes", __doc__), DEFAULT_CORPORA, argv)
    written = sketches.load_sketches()
    started = time.perf_counter()
    results: dict[str, dict[str, dict[str, Any]]] = {}
    gets: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        with quality.serving(name, args.cache) as session:
            if session is None:
                continue
            forms: dict[str, list[dict[str, Any]]] = {"task": [], "+sketch": []}
            for q in (q for q in queries if q.corpus == name):
                forms["task"].append(measure(session, q, ""))
                if written.get(q.id):
                    forms["+sketch"].append(measure(session, q, written[q.id]))
            results[name] = {form: summary(rows) for form, rows in forms.items() if rows}
            gets[name] = big_gets(session)
    rows = [[corpus, form, s["n"], s["json_median"], s["json_now_median"], s["text_median"], s["text_p90"], s["share"],
             s["mcp_median"],
             s["task_median"], "yes" if s["same_ids"] else "NO", s["answer@1"]]
            for corpus, by_form in results.items() for form, s in by_form.items()]
    shares = [s["share"] for by_form in results.values() for s in by_form.values() if s["share"] is not None]
    every_get = [g for found in gets.values() for g in found]
    worst_get = max((g["text"] for g in every_get), default=0)
    same = all(s["same_ids"] for by_form in results.values() for s in by_form.values())
    targets = [
        target("agent's form / --json bytes, worst corpus median", max(shares) if shares else None, TEXT_SHARE,
               "the same answer as compact text"),
        target("entries in another order than the JSON's", 0.0 if same else 1.0, 0.0, "ids parsed from the text",
               unit="count"),
        target(f"get of a document over {BIG_DOCUMENT // 1000} KB, largest", float(worst_get) if every_get else None,
               BIG_GET_MAX, "its outline, as an agent reads it", unit="bytes"),
    ]
    notes = ["\nlinked entries per kind (entries, judged relevant, answers only there, bytes a task):"]
    notes += [f"  {corpus} {form:8} {kind:28} {k['entries']:4d} {k['relevant']:4d} ({k['relevant_share']:.0%}) "
              f"{k['answers']:3d} {k['bytes_per_task']:7.1f} B"
              for corpus, by_form in results.items() for form, s in by_form.items()
              for kind, k in sorted(s["links"].items())]
    notes += [f"\nget of documents over {BIG_DOCUMENT // 1000} KB: {len(every_get)} document(s); agent's form median "
             f"{statistics.median(g['text'] for g in every_get) if every_get else 0:g} B, largest {worst_get} B; "
             f"JSON median {statistics.median(g['json'] for g in every_get) if every_get else 0:g} B"]
    payload = {"results": results, "big_gets": gets, "targets": targets,
               "seconds": round(time.perf_counter() - started, 1)}
    report("agent_bytes", payload, columns=COLUMNS, rows=rows, notes=notes, out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
