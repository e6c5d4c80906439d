"""How far fused nDCG@10 moves when only noise moves the query vectors: the floor under comparing two models.

    python -m benchmarks.quality.noise_floor [--corpus quality,docir,eips-ci,madr] [--cosines 0.999,0.995]
                                             [--seeds 3]

Each judged query of each corpus is ranked by the real `context` (fused, limit 10, no expansion),
first as it is, then with each query vector turned to a fixed cosine of itself: towards a random
direction orthogonal to it (seeded), its length kept, the documents' vectors left alone. A model
whose vectors stand at that cosine to today's moves the rankings at least this much by noise alone,
whatever it does better or worse (issue 37's integer build stands at 0.993 mean). Prints, per corpus
and cosine, the nDCG@10 of each seed and the largest change from the vectors as they are, and writes
benchmarks/results/noise_floor.json. Uses run.py's stores and cache (run that first).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks._harness import machine_info, report
from benchmarks.quality import run as bench


def turned(rows: Any, cosine: float, draw: Callable[[int], Any]) -> Any:
    """Each row turned to `cosine` of itself, towards a drawn direction orthogonal to it, its length kept."""
    import numpy as np

    out = []
    for row in np.asarray(rows, dtype=np.float64):
        length = float(np.linalg.norm(row))
        unit = row / length
        other = draw(row.shape[0])
        other -= other.dot(unit) * unit
        other /= np.linalg.norm(other)
        out.append((cosine * unit + (1.0 - cosine ** 2) ** 0.5 * other) * length)
    return np.stack(out).astype(np.float32)


def ndcg(name: str, cache: Path, cosine: float, seed: int, log: Callable[[str], None]) -> float | None:
    """The corpus's mean fused nDCG@10 with its query vectors turned to `cosine` (1: as they are)."""
    import numpy as np

    from docir.services.vectors import query_source

    store = bench.corpus_store(name, cache, log)
    if store is None:
        return None
    queries = [q for q in bench.load_corpus_queries([name]) if q.corpus == name]
    session, source = bench.open_indexed(store, log)
    draw = np.random.default_rng(seed).standard_normal
    embed = query_source.LocalModel.embed

    def noisy(model: Any, texts: Any, *args: Any, **kwargs: Any) -> Any:
        vectors = embed(model, texts, *args, **kwargs)
        return vectors if cosine >= 1.0 else turned(vectors, cosine, draw)

    setattr(query_source.LocalModel, "embed", noisy)  # noqa: B010 - the model every ranking here asks
    try:
        runs = bench.run_queries(session, source, queries, modes=("fused",))
    finally:
        setattr(query_source.LocalModel, "embed", embed)  # noqa: B010
        session.close()
    return statistics.mean(r.metrics["fused"]["ndcg@10"] for r in runs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", default="quality,docir,eips-ci,madr", help="comma-separated corpora")
    parser.add_argument("--cosines", default="0.999,0.995", help="comma-separated cosines to turn the vectors to")
    parser.add_argument("--seeds", type=int, default=3, help="random directions per cosine (default 3)")
    parser.add_argument("--cache", type=Path, default=bench.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, help="JSON output (default benchmarks/results/noise_floor.json)")
    args = parser.parse_args(argv)
    os.environ["DOCIR_WORKER"] = "0"  # every ranking in this process, with this process's patched model
    names = [n.strip() for n in args.corpus.split(",") if n.strip()]
    cosines = [float(c) for c in args.cosines.split(",") if c.strip()]

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    found: dict[str, dict[str, Any]] = {}
    rows: list[Sequence[object]] = []
    for name in names:
        base = ndcg(name, args.cache, 1.0, 0, log)
        if base is None:
            continue
        found[name] = {"ndcg@10": base, "turned": {}}
        for cosine in cosines:
            values = [v for v in (ndcg(name, args.cache, cosine, seed, log) for seed in range(1, args.seeds + 1))
                      if v is not None]
            largest = max(abs(v - base) for v in values)
            found[name]["turned"][str(cosine)] = {"ndcg@10": values, "largest_change": largest}
            rows.append((name, cosine, base, ", ".join(f"{v:.4f}" for v in values), largest))
            log(f"noise_floor: {name} at {cosine}: {values}")
    report("noise_floor", {"machine": machine_info(), "seeds": args.seeds, "corpora": found},
           title=["fused nDCG@10 with the query vectors turned to a cosine of themselves, each seed"],
           columns=[("corpus", ""), ("cosine", ".3f"), ("as they are", ".4f"), ("turned, each seed", ""),
                    ("largest change", ".4f")],
           rows=rows, out=args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
