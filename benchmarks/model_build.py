"""The packaged model as this tree runs it against a revision: its ranking and its first embed.

This tree's file is what its docir loads: the shipped file folded and edited, run side by side
(adr-b2e4ea87c5b3), or its integer build where DOCIR_MODEL_BUILD=int8 asks for it (adr-5b1e0c7d2a94).

    python -m benchmarks.model_build [--rev 1ee4b49] [--corpora quality,docir,madr,eips] [--no-cranfield]
                                     [--time madr,eips] [--repeat 1] [--worker] [--busy N] [--no-quality]

Two questions, each answered in one run, this tree beside the revision:

1. quality    quality/run.py over every judged corpus (and Cranfield unless --no-cranfield), run
              once with the revision's docir and once with this tree's (PYTHONPATH picks the tree;
              the corpora, queries and scoring are this tree's, so only the code and its model
              differ). Each side has its own cache of indexes and computes its own vectors (no
              vector vault: two files under one model id would share them). Reported per corpus:
              nDCG@10, recall@10 and answer@1 of fused ranking, and nDCG@10 of the vector ranking
              alone, with the change.
2. first embed template_embed.py's timed first `docir embed --flush` of the corpora of --time on a
              fresh index and no vault, the sides alternating round by round: seconds, texts
              embedded, and the speed-up (revision seconds / this tree's). In one process, or with
              --worker through a warm worker started for it (its start counted), where a user's
              first embed runs; with --busy N, N cores spin all the while.

Prints a table and writes benchmarks/results/model_build.json.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._harness import (
    CACHE,
    REPO,
    arguments,
    benchmarks_alone,
    busy_cores,
    machine_info,
    module_argv,
    report,
    table,
    target,
    user_cache,
)
from benchmarks.against_revision import unpacked
from benchmarks.template_embed import build, listing, side_store, timed_flush

WORK = CACHE / "model-build"
FUSED_METRICS = ("ndcg@10", "recall@10", "answer@1")


def quality(tree: Path, side: str, corpora: str, cranfield: bool) -> dict[str, dict[str, dict[str, float]]]:
    """{corpus: {mode: metrics}} of quality/run.py run with the docir of `tree`."""
    out = WORK / f"quality-{side}.json"
    cache = WORK / f"{side}-{tree.name}" / "quality"  # each tree its own indexes
    argv = module_argv("quality.run", "--corpus", corpora, "--cache", str(cache), "--out", str(out),
                       *(["--benchdata"] if cranfield else []))
    # No vector vault: each side computes its own vectors (two files under one model id would otherwise
    # share them), and its user cache holds the model folders its own code made.
    env = {**os.environ, "PYTHONPATH": str(tree), "DOCIR_WORKER": "0", "DOCIR_VECTORS": "off",
           "XDG_CACHE_HOME": str(user_cache(tree))}
    print(f"model_build.py: quality with {side}'s docir ...", file=sys.stderr, flush=True)
    with benchmarks_alone() as folder:  # this checkout's benchmarks, the tree's docir
        subprocess.run(argv, env=env, cwd=folder, check=True, stdout=subprocess.DEVNULL)
    data = json.loads(out.read_text(encoding="utf-8"))
    found = {name.removeprefix("corpus:"): {mode: data["summary"][mode][name] for mode in data["summary"]}
             for name in data["summary"]["fused"] if name.startswith("corpus:")}
    if "cranfield" in data:
        found["cranfield"] = {mode: groups["all"] for mode, groups in data["cranfield"]["summary"].items()}
    return found


def first_embeds(trees: dict[str, Path], corpora: list[str], repeat: int, *, worker: bool,
                 busy: int) -> list[dict[str, Any]]:
    rows = []
    for corpus in corpora:
        source = build(corpus)
        stores = {side: side_store(source, side, corpus) for side in trees}
        listed = {side: listing(tree, stores[side])["texts"] for side, tree in trees.items()}
        seconds: dict[str, list[float]] = {side: [] for side in trees}
        embedded: dict[str, int] = {}
        for round_ in range(repeat):
            for side in (list(trees) if round_ % 2 == 0 else list(trees)[::-1]):
                print(f"model_build.py: first embed of {corpus} by {side}, round {round_ + 1} ...", file=sys.stderr,
                      flush=True)
                with busy_cores(busy):
                    elapsed, embedded[side] = timed_flush(trees[side], stores[side], worker=worker)
                seconds[side].append(round(elapsed, 1))
        rev, this = statistics.median(seconds["rev"]), statistics.median(seconds["this"])
        rows.append({"corpus": corpus, "texts": listed, "texts_embedded": embedded, "seconds": seconds,
                     "rev_s": rev, "this_s": this, "speedup": round(rev / this, 3) if this else None})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = arguments("model_build", __doc__)
    parser.add_argument("--rev", default="1ee4b49", help="a revision that runs the packaged file as shipped")
    parser.add_argument("--this", default="", help="a revision to measure instead of this working tree")
    parser.add_argument("--corpora", default="quality,docir,madr,eips", help="judged corpora for the quality part")
    parser.add_argument("--no-cranfield", action="store_true", help="leave Cranfield out of the quality part")
    parser.add_argument("--time", default="madr,eips", help="corpora whose first embed is timed ('' for none)")
    parser.add_argument("--repeat", type=int, default=1, help="timed rounds per side (default 1)")
    parser.add_argument("--worker", action="store_true", help="time the first embeds through a warm worker")
    parser.add_argument("--busy", type=int, default=0, help="cores kept busy while a first embed is timed")
    parser.add_argument("--no-quality", action="store_true", help="time the first embeds only")
    args = parser.parse_args(argv)
    sha, rev_tree = unpacked(args.rev)
    this_sha, this_tree = unpacked(args.this) if args.this else ("working tree", REPO)
    trees = {"rev": rev_tree, "this": this_tree}
    WORK.mkdir(parents=True, exist_ok=True)
    started = time.time()
    scores = {side: {} if args.no_quality else quality(tree, side, args.corpora, not args.no_cranfield)
              for side, tree in trees.items()}
    quality_rows = []
    for corpus in scores["this"]:
        before, after = scores["rev"].get(corpus), scores["this"][corpus]
        if before is None:
            continue
        row: dict[str, Any] = {"corpus": corpus}
        for metric in FUSED_METRICS:
            row[metric] = {"rev": round(before["fused"][metric], 4), "this": round(after["fused"][metric], 4)}
        row["vector ndcg@10"] = {"rev": round(before["vector"]["ndcg@10"], 4),
                                 "this": round(after["vector"]["ndcg@10"], 4)}
        quality_rows.append(row)
    embeds = first_embeds(trees, [c for c in args.time.split(",") if c], args.repeat, worker=args.worker,
                          busy=args.busy)
    config = {"rev": sha, "this": this_sha, "corpora": "" if args.no_quality else args.corpora, "time": args.time,
              "repeat": args.repeat, "worker": args.worker, "busy": args.busy}
    payload = {"machine": machine_info(), "config": config,
               "quality": quality_rows, "first_embed": embeds, "duration_s": round(time.time() - started, 1),
               "targets": [
                   *(target(f"{row['corpus']}: fused nDCG@10 lost", row["ndcg@10"]["rev"] - row["ndcg@10"]["this"],
                            0.005, f"{row['ndcg@10']['rev']:.4f} -> {row['ndcg@10']['this']:.4f}", unit="points")
                     for row in quality_rows),
                   *(target(f"{row['corpus']}: first embed, this tree / revision",
                            row["this_s"] / row["rev_s"] if row["rev_s"] else None, round(1 / 1.4, 3),
                            f"{row['rev_s']} s -> {row['this_s']} s, {row['speedup']}x") for row in embeds)]}
    keys = ("ndcg@10", "recall@10", "answer@1", "vector ndcg@10")
    lines = ["quality (fused unless named): revision -> this tree", *table(
        [("corpus", ""), *[(key, "") for key in keys]],
        [[row["corpus"], *[f"{row[k]['rev']:.4f} -> {row[k]['this']:.4f} ({row[k]['this'] - row[k]['rev']:+.4f})"
                           for k in keys]] for row in quality_rows]),
        "", f"first embed (no vault, fresh index{', through a warm worker' if args.worker else ''}"
            f"{f', {args.busy} cores busy' if args.busy else ''}): seconds, revision -> this tree", *table(
        [("corpus", ""), ("texts", ""), ("revision s", "g"), ("this tree s", "g"), ("speed-up", ".2f")],
        [[row["corpus"], f"{row['texts']['rev']} / {row['texts']['this']}", row["rev_s"], row["this_s"],
          row["speedup"] or 0.0] for row in embeds])]
    report("model_build", payload, title=lines, out=args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
