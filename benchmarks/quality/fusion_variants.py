"""Evaluate candidate fusion settings through the real `ranking.context`, by monkeypatching.

    python benchmarks/quality/fusion_variants.py [--benchdata] [--out benchmarks/results/fusion_variants.json]

Nothing in docir/ is edited: each variant patches module constants of
docir.services.ranking (RRF_K, LEXICAL_WEIGHT, VECTOR_WEIGHT) or its `lexical_ranking`/`fuse`
functions (written against the ranking.py whose fuse takes a list of lexical rankings) for the duration of one evaluation, then restores them. Uses the same
stores, cache and queries as run.py (run that first so the vectors are cached).

Variants:
- current:        what docir does today (RRF k=60, weights 1:1).
- k1-vector3:     constants only: RRF_K=1, VECTOR_WEIGHT=3.
- coverage3-k10:  RRF k=10 where each lexical contribution is scaled by c**3, c being the
                  fraction of the query's terms the document matches (a coordination factor).
                  (`coverage_fusion(..., idf=True)` weights terms by idf; it measured no better.)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench


@contextmanager
def patched(**constants: Any) -> Iterator[None]:
    from docir.services import ranking

    saved = {name: getattr(ranking, name) for name in constants}
    try:
        for name, value in constants.items():
            setattr(ranking, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(ranking, name, value)


@contextmanager
def coverage_fusion(power: float, k: int, idf: bool = False) -> Iterator[None]:
    """Lexical RRF terms scaled by (matched query terms / query terms) ** power (terms idf-weighted if asked)."""
    import math

    from docir.index.fts import query_terms
    from docir.services import ranking

    coverage: dict[int, float] = {}  # document rowid -> coverage, for the query being ranked
    original_lexical, original_fuse = getattr(ranking, "lexical_ranking"), ranking.fuse  # noqa: B009

    def lexical_ranking(session: Any, text: str, visibility: Any, limit: int | None) -> Any:
        hits = original_lexical(session, text, visibility, limit)
        total = session.catalog.conn.execute("SELECT count(*) FROM documents_fts").fetchone()[0]
        matched: list[tuple[set[int], float]] = []
        for term in query_terms(text):
            match = '"' + term.replace('"', '""') + '"'
            rows = {r[0] for r in session.catalog.conn.execute(
                "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?", (match,))}
            weight = math.log(1 + (total - len(rows) + 0.5) / (len(rows) + 0.5)) if idf else 1.0
            matched.append((rows, weight))
        mass = sum(w for _, w in matched) or 1.0
        coverage.clear()
        for item, _ in hits:
            coverage[item.rowid] = sum(w for rows, w in matched if item.rowid in rows) / mass
        return hits

    def fuse(lexical_rankings: Any, vector_ranking: Any) -> Any:
        if not any(lexical_rankings) or not vector_ranking:  # single-mode rankings stay as they are today
            return original_fuse(lexical_rankings, vector_ranking)
        by_key: dict[Any, Any] = {}
        for lexical in lexical_rankings:
            for rank, cand in enumerate(lexical, start=1):
                mine = by_key.setdefault(cand.key, cand)
                mine.lexical_rank, mine.bm25 = rank, cand.bm25
                share = coverage.get(cand.key[1], 0.0) if cand.key[0] == "doc" else 1.0
                mine.score += share**power / (k + rank)
        for rank, cand in enumerate(vector_ranking, start=1):
            mine = by_key.setdefault(cand.key, cand)
            mine.listing, mine.ref = mine.listing or cand.listing, mine.ref or cand.ref
            mine.vector_rank, mine.similarity, mine.ordinal = rank, cand.similarity, cand.ordinal
            mine.score += 1.0 / (k + rank)
        return sorted(by_key.values(), key=lambda c: -c.score)

    setattr(ranking, "lexical_ranking", lexical_ranking)  # noqa: B010 - patched on purpose
    setattr(ranking, "fuse", fuse)  # noqa: B010
    try:
        yield
    finally:
        setattr(ranking, "lexical_ranking", original_lexical)  # noqa: B010
        setattr(ranking, "fuse", original_fuse)  # noqa: B010


VARIANTS: dict[str, Callable[[], Any]] = {
    "current": lambda: patched(),
    "k1-vector3": lambda: patched(RRF_K=1, VECTOR_WEIGHT=3.0),
    "coverage3-k10": lambda: coverage_fusion(3.0, 10),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchdata", action="store_true", help="also Cranfield")
    parser.add_argument("--cache", type=Path, default=bench.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, default=bench.REPO / "benchmarks" / "results" / "fusion_variants.json")
    args = parser.parse_args()

    stores: list[tuple[str, Path, list[bench.Query]]] = []
    queries = bench.load_queries()
    for name in ("quality", "docir"):
        stores.append((name, bench.prepare_store(bench.CORPORA[name], args.cache / name),
                       [q for q in queries if q.corpus == name]))
    if args.benchdata and (bench.BENCHDATA / "cranfield" / "cran.all.1400").is_file():
        store, cran = bench.build_cranfield(bench.BENCHDATA / "cranfield", args.cache / "cranfield")
        stores.append(("cranfield", store, cran))

    sessions = {name: bench.open_indexed(store, print) for name, store, _ in stores}
    results: dict[str, Any] = {}
    try:
        for variant, make in VARIANTS.items():
            per_corpus: dict[str, list[bench.QueryRun]] = {}
            with make():
                for name, _store, qs in stores:
                    session, source = sessions[name]
                    per_corpus[name] = bench.run_queries(session, source, qs)
            ours = per_corpus["quality"] + per_corpus["docir"]
            results[variant] = {"quality+docir": bench.summarise(ours)}
            if "cranfield" in per_corpus:
                results[variant]["cranfield"] = {m: {"all": s["all"]} for m, s in bench.summarise(per_corpus["cranfield"]).items()}
    finally:
        for session, _source in sessions.values():
            session.close()

    groups = ["all", "corpus:quality", "corpus:docir", "kind:lexical", "kind:paraphrase"]
    print(f"\n{'variant':<15} {'mode':<8} " + " ".join(f"{g:>16}" for g in groups) + f" {'cranfield':>10}   (nDCG@10)")
    for variant, res in results.items():
        for mode in bench.MODES:
            row = res["quality+docir"][mode]
            cran = res.get("cranfield", {}).get(mode, {}).get("all", {}).get("ndcg@10")
            print(f"{variant:<15} {mode:<8} " + " ".join(f"{row[g]['ndcg@10']:>16.3f}" for g in groups)
                  + (f" {cran:>10.3f}" if cran is not None else ""))
        fused = res["quality+docir"]["fused"]["all"]
        print(f"{'':<15} fused recall@10 {fused['recall@10']:.3f}, MRR@10 {fused['mrr@10']:.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
