"""What a first embed costs on a template-heavy store and on the EIPs: this tree against a revision.

    python -m benchmarks.template_embed [--rev main] [--corpora madr,eips] [--time madr] [--repeat 1]

For each corpus (built as quality/run.py builds it: quality/madr.py, quality/eips.py) and each side
(this tree; the revision, unpacked by against_revision.py), a fresh index is made by that side's
`docir reindex`, then that side's `embed_throughput --dump-texts` lists exactly what its drain
embeds: texts (de-duplicated by sha256), document texts and chunks, and the tokens the model reads
(each text's tokens, at most the model's window). For the corpora of `--time`, each side's whole
`docir embed --flush` is timed on a fresh index, sides alternating round by round, and its
`texts_embedded` is checked against the listing.

Boilerplate, with this tree's code: how many written sections have a body (the text under the
heading as a reader sees it, whitespace folded) that other documents of the store repeat word for
word, at several thresholds, and the bodies repeated most. Prints a table and writes
benchmarks/results/template_embed.json.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks._harness import CACHE as BENCH_CACHE
from benchmarks._harness import (
    REPO,
    arguments,
    docir_argv,
    machine_info,
    report,
    run,
    table,
    tree_module_argv,
    user_cache,
)
from benchmarks.against_revision import unpacked

CACHE = BENCH_CACHE / "template-embed"
SOURCE = REPO.parent / "shared" / "benchdata" / "eips"
REPEATS_AT = (2, 5, 20)  # a body repeated in at least this many documents


def build(corpus: str) -> Path:
    """The corpus's store, built once into the cache (only changed files are rewritten)."""
    import importlib

    module = importlib.import_module(f"benchmarks.quality.{corpus}")
    built: Path = module.build_store(SOURCE, CACHE / "source" / corpus)
    return built


def side_store(source: Path, side: str, corpus: str) -> Path:
    root = CACHE / side / corpus
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copytree(source / "docs", root / "docs")
    shutil.copy2(source / "docs-schema.yaml", root / "docs-schema.yaml")
    return root


def child(tree: Path, argv: list[str], *, worker: bool = False) -> tuple[float, bytes]:
    """One process of `tree`'s code (PYTHONPATH and cwd the tree): its seconds and stdout. With `worker`,
    the store's warm worker may answer it."""
    # No per-user vector vault: a first embed is timed, and a vault would hand the second round its vectors.
    env = {**os.environ, "PYTHONPATH": str(tree), "DOCIR_WORKER": "1" if worker else "0", "DOCIR_VECTORS": "off",
           "XDG_CACHE_HOME": str(user_cache(tree))}  # each tree's own folded model
    ran = run(argv, what=f"template_embed.py: {' '.join(argv[1:])}", env=env, cwd=tree)
    return ran.ms / 1000, ran.stdout


def fresh_index(tree: Path, root: Path) -> None:
    for path in (root / ".docir").glob("index.db*"):
        path.unlink()
    child(tree, docir_argv("reindex", "--root", str(root)))


def listing(tree: Path, root: Path) -> dict[str, Any]:
    fresh_index(tree, root)
    out = root.parent / f"{root.name}-texts.json"
    child(tree, tree_module_argv(tree, "embed_throughput", "--dump-texts", str(root), str(out)))
    data = json.loads(out.read_text(encoding="utf-8"))
    window = int(data["meta"]["max_tokens"])
    texts = data["texts"]
    return {"documents": data["meta"]["documents"], "texts": len(texts),
            "document_texts": sum(t["kind"] == "document" for t in texts),
            "chunks": sum(t["kind"] == "chunk" for t in texts),
            "tokens_read": sum(min(int(t["tokens"]), window) for t in texts)}


def timed_flush(tree: Path, root: Path, *, worker: bool = False) -> tuple[float, int]:
    """Seconds and texts of a first `embed --flush` on a fresh index: in its own process, or with `worker`
    through a warm worker started for it (its start and model load counted: its drain begins at once)."""
    fresh_index(tree, root)
    if not worker:
        seconds, out = child(tree, docir_argv("embed", "--flush", "--root", str(root)))
        return seconds, int(json.loads(out)["texts_embedded"])
    try:
        started, _ = child(tree, docir_argv("worker", "start", "--root", str(root)), worker=True)
        seconds, out = child(tree, docir_argv("embed", "--flush", "--root", str(root)), worker=True)
    finally:
        child(tree, docir_argv("worker", "stop", "--root", str(root)), worker=True)
    return started + seconds, int(json.loads(out)["texts_embedded"])


def folded(text: str) -> str:
    return " ".join(text.split())


def section_bodies(root: Path) -> tuple[int, dict[str, set[str]]]:
    """(written sections, the documents each folded section body appears in), with this tree's code."""
    from docir.documents import frontmatter
    from docir.documents.chunk import written_sections
    from docir.documents.reader_view import Visible

    owners: dict[str, set[str]] = {}
    sections = 0
    for path in sorted((root / "docs").rglob("*.md")):
        body = frontmatter.parse(path.read_text(encoding="utf-8"))[1].body
        seen = Visible.of(body)
        for section in written_sections(body, seen):
            sections += 1
            text = folded(seen.slice(section.content, section.end))
            if text:  # a heading over written subsections has no text of its own to repeat
                owners.setdefault(text, set()).add(path.name)
    return sections, owners


def boilerplate(root: Path) -> dict[str, Any]:
    """Written sections whose body other documents repeat word for word."""
    sections, owners = section_bodies(root)
    per_body = Counter({text: len(docs) for text, docs in owners.items()})
    documents = len(list((root / "docs").rglob("*.md")))
    repeated = {f"in_{n}_or_more": sum(c for c in per_body.values() if c >= n) for n in REPEATS_AT}
    top = [{"documents": c, "body": text[:80]} for text, c in per_body.most_common(6) if c > 1]
    return {"documents": documents, "written_sections": sections, "sections_with_a_body_repeated": repeated,
            "most_repeated": top}


def main(argv: list[str] | None = None) -> int:
    parser = arguments("template_embed", __doc__)
    parser.add_argument("--rev", default="main", help="the revision to compare with (default main)")
    parser.add_argument("--corpora", default="madr,eips")
    parser.add_argument("--time", default="madr", help="corpora whose whole first embed is timed ('' for none)")
    parser.add_argument("--repeat", type=int, default=1, help="timed rounds per side (default 1)")
    args = parser.parse_args(argv)
    if not SOURCE.is_dir():
        print(f"template_embed.py: {SOURCE} not found", file=sys.stderr)
        return 2
    sha, rev_tree = unpacked(args.rev)
    trees = {"this": REPO, "rev": rev_tree}
    timed = {c for c in args.time.split(",") if c}
    results: list[dict[str, Any]] = []
    started = time.time()
    for corpus in [c for c in args.corpora.split(",") if c]:
        source = build(corpus)
        row: dict[str, Any] = {"corpus": corpus, "boilerplate": boilerplate(source)}
        stores = {side: side_store(source, side, corpus) for side in trees}
        for side, tree in trees.items():
            row[side] = listing(tree, stores[side])
        if corpus in timed:
            seconds: dict[str, list[float]] = {side: [] for side in trees}
            for round_ in range(args.repeat):
                for side in (list(trees) if round_ % 2 == 0 else list(trees)[::-1]):
                    elapsed, embedded = timed_flush(trees[side], stores[side])
                    if embedded != row[side]["texts"]:
                        listed = row[side]["texts"]
                        row.setdefault("warnings", []).append(f"{side}: embedded {embedded}, listed {listed}")
                    seconds[side].append(round(elapsed, 1))
            for side in trees:
                row[side]["first_embed_s"] = statistics.median(seconds[side])
                row[side]["first_embed_samples_s"] = seconds[side]
        results.append(row)
    report("template_embed", {"machine": machine_info(), "config": {"rev": sha, "corpora": args.corpora,
                                                                     "time": sorted(timed), "repeat": args.repeat},
                              "results": results, "duration_s": round(time.time() - started, 1)},
           title=[line for row in results for line in row_lines(row)], out=args.out)
    return 0


def row_lines(row: dict[str, Any]) -> list[str]:
    """A corpus's figures: this tree against the revision, then the repeated section bodies."""
    this, rev = row["this"], row["rev"]
    cells = [[key, rev[key], this[key], (this[key] - rev[key]) / rev[key] if rev[key] else 0.0]
             for key in ("texts", "document_texts", "chunks", "tokens_read", "first_embed_s") if key in this]
    bp = row["boilerplate"]
    repeated = ", ".join(f"{k.split('_')[1]}+ docs: {v}" for k, v in bp["sections_with_a_body_repeated"].items())
    return ["", f"{row['corpus']}: {this['documents']} documents",
            *("  " + line for line in table([("", ""), ("revision", "g"), ("this tree", "g"), ("change", "+.1%")],
                                             cells)),
            f"  written sections {bp['written_sections']}; bodies repeated in {repeated}",
            *(f"    {item['documents']:>4} x {item['body']!r}" for item in bp["most_repeated"]),
            *(f"  warning: {warning}" for warning in row.get("warnings", []))]


if __name__ == "__main__":
    raise SystemExit(main())
