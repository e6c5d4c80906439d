"""What leaving boilerplate sections out would do: nDCG@10 and texts, through the real ranking.

    python -m benchmarks.quality.boilerplate_variants [--corpus madr,eips,eips-ci,quality,docir]

Run quality/run.py on the corpora first: each variant copies a corpus's cached store and index, so
every vector is reused by its hash and only the sections change. Nothing in docir/ is edited: a
variant replaces `written_sections` (the sections the chunker and the lexical index keep) for the
duration of one evaluation, makes the copy re-read every file and re-plan every document's sections,
then runs the corpus's queries. The variants:

- `docir`: what docir does (comments out, sections with nothing under their heading out);
- `empty-kept`: comments out, but a section with nothing under its heading still a section, as before;
- `parents-kept`: comments out, and a heading whose text is all in its subsections still a section;
- `repeated-N`: also every section whose body (as a reader sees it, whitespace folded) appears word
  for word in at least N documents of the store;
- `prompts`: also every section lint reports as template text (DOC022: `{placeholder}` prompts only);
- `inner-parents` / `top-parents`: also a heading with no text of its own under another heading /
  at the top (a MADR document's `# Title`);
- `inner+prompts`, `inner+rep2`: two of the above together;
- a name ending in `/vec` (`rep2/vec`, `inner+rep2/vec`): the same, but only the chunks change and
  the lexical sections stay as docir has them.

`--variants a,b` runs only those (and `docir`). Run it with DOCIR_VECTORS=off: a vector vault
would hand every copy the chunk plans docir made, and no variant would change a chunk.

Reported per corpus: fused nDCG@10 and section chunks, against `docir`. The decisions these
numbers made are recorded in adr-e7498b6485e7 and adr-5d1c0a7e94b2.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks._harness import report, table
from benchmarks.quality import run as bench
from benchmarks.template_embed import folded, section_bodies

WORK = bench.REPO / "benchmarks" / ".cache" / "quality-boilerplate"
THRESHOLDS = (2, 5, 20)

Keep = Callable[[str, Any, Any], bool]  # (body, its Visible, a section) -> keep it?


EMPTY_KEPT = "empty-kept"
PARENTS_KEPT = "parents-kept"
VECTORS_ONLY = "/vec"  # a variant named so leaves the lexical sections as docir has them


@contextmanager
def sections_kept(keep: Keep, empty_too: bool = False, parents_too: bool = False,
                  chunks_only: bool = False) -> Iterator[None]:
    from docir.documents import chunk
    from docir.documents.reader_view import Visible
    from docir.services.indexing import convert

    original = chunk.written_sections

    def written(body: str, seen: Visible | None = None,
                sections: list[chunk.Section] | None = None) -> list[chunk.Section]:
        seen = seen if seen is not None else Visible.of(body)
        every = sections if sections is not None else chunk.heading_sections(body, seen)
        if empty_too:
            return [s for s in every if s.path or seen.slice(s.start, s.end).strip()]
        if parents_too:
            kept = set(original(body, seen, every))
            return [s for i, s in enumerate(every) if s in kept or (
                s.path and i + 1 < len(every) and every[i + 1].path[: len(s.path)] == s.path
                and len(every[i + 1].path) > len(s.path))]
        return [s for s in original(body, seen, every) if keep(body, seen, s)]

    # The chunker's own module, and the name the lexical side imported from it.
    chunk.written_sections = written
    if not chunks_only:
        convert.written_sections = written  # type: ignore[attr-defined]
    try:
        yield
    finally:
        chunk.written_sections = original
        convert.written_sections = original  # type: ignore[attr-defined]


def copy_for(store: Path, name: str) -> Path:
    """The corpus's store and index, copied, told to re-read every file and re-plan every section."""
    dest = WORK / name
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(store, dest)
    conn = sqlite3.connect(dest / ".docir" / "index.db")
    with conn:
        conn.execute("UPDATE documents SET size = -1, sha256 = ''")
        conn.execute("UPDATE embeddings SET dirty = 2 WHERE dirty = 0")
    conn.close()
    return dest


def evaluate(store: Path, queries: list[bench.Query]) -> dict[str, Any]:
    session, source = bench.open_indexed(store, print)
    try:
        runs = bench.run_queries(session, source, queries, ("fused",))
        chunks = int(session.catalog.conn.execute("SELECT count(*) FROM chunk_embeddings").fetchone()[0])
    finally:
        session.close()
    ndcg = sum(r.metrics["fused"]["ndcg@10"] for r in runs) / max(len(runs), 1)
    return {"ndcg@10": round(ndcg, 4), "chunks": chunks, "queries": len(runs),
            "per_query": {r.query.id: round(r.metrics["fused"]["ndcg@10"], 4) for r in runs}}


def variants(store: Path) -> dict[str, Keep]:
    from docir.services.lint.template_text import template_only_sections

    _sections, owners = section_bodies(store)
    count = {text: len(docs) for text, docs in owners.items()}
    found: dict[str, Keep] = {"docir": lambda body, seen, s: True, EMPTY_KEPT: lambda body, seen, s: True,
                             PARENTS_KEPT: lambda body, seen, s: True}
    for n in THRESHOLDS:
        found[f"repeated-{n}"] = _fewer_than(count, n)
    twice = _fewer_than(count, 2)
    def prompt(body: str, seen: Any, s: Any) -> bool:
        return s.start in {o for o, _ in template_only_sections(body)}

    def own_empty(seen: Any, s: Any) -> bool:
        return not seen.slice(s.content, s.end).strip()

    def inner(body: str, seen: Any, s: Any) -> bool:
        return len(s.path) > 1 and own_empty(seen, s)

    def top(body: str, seen: Any, s: Any) -> bool:
        return len(s.path) == 1 and own_empty(seen, s)

    found["prompts"] = lambda body, seen, s: not prompt(body, seen, s)
    found["inner-parents"] = lambda body, seen, s: not inner(body, seen, s)
    found["top-parents"] = lambda body, seen, s: not top(body, seen, s)
    found["inner+prompts"] = lambda body, seen, s: not (inner(body, seen, s) or prompt(body, seen, s))
    found["inner+rep2"] = lambda body, seen, s: not inner(body, seen, s) and twice(body, seen, s)
    found["inner+rep2" + VECTORS_ONLY] = found["inner+rep2"]
    found["rep2" + VECTORS_ONLY] = twice
    return found


def _fewer_than(count: dict[str, int], n: int) -> Keep:
    return lambda body, seen, s: count.get(folded(seen.slice(s.content, s.end)), 0) < n  # "" is never counted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="madr,eips,eips-ci,quality,docir")
    parser.add_argument("--cache", type=Path, default=bench.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, help="JSON output (default benchmarks/results/boilerplate_variants.json)")
    parser.add_argument("--variants", default="", help="comma-separated names to run (default: all); docir always runs")
    args = parser.parse_args(argv)
    names = [n for n in args.corpus.split(",") if n]
    queries = bench.load_corpus_queries(names)
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        store = bench.corpus_store(name, args.cache, print)
        if store is None:
            continue
        bench.open_indexed(store, print)[0].close()  # the cached index, brought up to date first
        results[name] = {}
        wanted = {"docir", *filter(None, args.variants.split(","))}
        for variant, keep in variants(store).items():
            if args.variants and variant not in wanted:
                continue
            with sections_kept(keep, empty_too=variant == EMPTY_KEPT, parents_too=variant == PARENTS_KEPT,
                               chunks_only=variant.endswith(VECTORS_ONLY)):
                results[name][variant] = evaluate(copy_for(store, f"{name}-{variant}"),
                                                  [q for q in queries if q.corpus == name])
    report("boilerplate_variants", {"results": results}, out=args.out,
           title=[line for name, rows in results.items() for line in corpus_lines(name, rows)])
    return 0


def corpus_lines(name: str, rows: dict[str, dict[str, Any]]) -> list[str]:
    base = rows["docir"]
    cells = [[variant, row["ndcg@10"], row["ndcg@10"] - base["ndcg@10"], row["chunks"],
              (row["chunks"] - base["chunks"]) / max(base["chunks"], 1)] for variant, row in rows.items()]
    columns = [("variant", ""), ("nDCG@10", ".3f"), ("change", "+.3f"), ("chunks", "d"), ("change", "+.1%")]
    return ["", f"{name}: {base['queries']} queries", *("  " + line for line in table(columns, cells))]


if __name__ == "__main__":
    raise SystemExit(main())
