"""An hour of embedding is never lost: a corpus's vectors come back from the vault and from a vector file.

    python -m benchmarks.vectors_outlive_index                  # the EIPs
    python -m benchmarks.vectors_outlive_index --corpus madr    # the template corpus (tuned on by nothing)

The store is a corpus of the quality benchmark, built by its own builders (benchmarks/quality/run.py).
Every step runs docir as its own process with DOCIR_VECTORS at a vault of this benchmark's
(benchmarks/.cache/vault-<corpus>/), and with DOCIR_WORKER=0 (each number is one command's own work)
except the row through the warm worker.

  setup            the store is indexed and fully embedded once; a later run finds its vectors in the
                   vault and embeds nothing.
  deleted index    .docir/index.db is deleted; then `embed --flush` and `context`: seconds until the
                   first fully fused answer (no document pending). Target: under 10 s.
  ... by the worker  .docir/index.db is deleted while a worker with the model runs; `context` is asked
                   every half second (the first call rebuilds the index, the worker's drain restores its
                   vectors) until nothing is pending: seconds, and the texts the worker embedded.
  second clone     docs/ and docs-schema.yaml copied to a new folder, the same vault: texts embedded
                   (target 0) and seconds to the first fully fused answer.
  export, import   `embed --export` (float32 and --int8), then `embed --import` into a clone with an
                   empty vault: seconds and bytes per 1,000 texts, and texts embedded after the import.
  quality          nDCG@10 of the corpus's graded queries (benchmarks/quality/) with the computed
                   vectors, with imported float32 and with imported int8; float32 must equal.

Prints a table, writes benchmarks/results/vectors_outlive_index[-<corpus>].json.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._harness import (
    CACHE,
    BenchmarkError,
    docir_argv,
    machine_info,
    model_env,
    report,
    results_path,
    run,
)
from benchmarks.quality import run as quality

QUERY = "how does a contract signal which token interfaces it supports"


def env(vault: Path, worker: bool = False) -> dict[str, str]:
    out = {k: v for k, v in model_env(worker).items() if not k.startswith("DOCIR_") or k == "DOCIR_WORKER"}
    return {**out, "DOCIR_VECTORS": str(vault)}


def docir(root: Path, vault: Path, *args: str, worker: bool = False) -> tuple[float, dict[str, Any]]:
    ran = run(docir_argv(*args, "--json", "--root", str(root)), what=f"docir {' '.join(args)}",
              env=env(vault, worker))
    return ran.ms / 1000, ran.json()


def first_fused(root: Path, vault: Path) -> tuple[float, int]:
    """Seconds of `embed --flush` then `context` (checked fused), and the texts the flush embedded."""
    flush_s, flushed = docir(root, vault, "embed", "--flush")
    context_s, answer = docir(root, vault, "context", QUERY)
    if answer.get("semantic") != "on" or answer.get("pending", 0):
        raise BenchmarkError(f"context was not fully fused: semantic {answer.get('semantic')}, "
                         f"pending {answer.get('pending')}")
    return flush_s + context_s, int(flushed["texts_embedded"])


def fused_by_the_worker(root: Path, vault: Path) -> tuple[float, int]:
    """Delete the index with a worker running; seconds until `context` is fully fused, the worker's texts."""
    docir(root, vault, "worker", "start", worker=True)
    _, before = docir(root, vault, "worker", "status", worker=True)
    remove_index(root)
    began = time.perf_counter()
    while True:
        _, answer = docir(root, vault, "context", QUERY, worker=True)
        if answer.get("semantic") == "on" and not answer.get("pending") and not answer.get("sections_pending"):
            break
        time.sleep(0.5)
    elapsed = time.perf_counter() - began
    _, after = docir(root, vault, "worker", "status", worker=True)
    docir(root, vault, "worker", "stop", worker=True)
    # A worker that saw its index gone may have exited; the one answering now started after the delete.
    earlier = int(before.get("texts_embedded", 0)) if after.get("pid") == before.get("pid") else 0
    return elapsed, int(after.get("texts_embedded", 0)) - earlier


def remove_index(root: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{root}/.docir/index.db{suffix}").unlink(missing_ok=True)


def clone_of(store: Path, target: Path) -> Path:
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copytree(store / "docs", target / "docs")
    shutil.copy2(store / "docs-schema.yaml", target / "docs-schema.yaml")
    return target


def ndcg(root: Path, vault: Path, corpus: str) -> float:
    """Mean nDCG@10 of the corpus's graded queries on this store, fused ranking, in process."""
    os.environ.update({"DOCIR_WORKER": "0", "DOCIR_VECTORS": str(vault)})
    session, source = quality.open_indexed(root)
    try:
        runs = quality.run_queries(session, source, quality.load_corpus_queries([corpus]), modes=("fused",))
    finally:
        session.close()
    return round(sum(r.metrics["fused"]["ndcg@10"] for r in runs) / len(runs), 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="eips", choices=quality.ALL_CORPORA,
                        help="a corpus of the quality benchmark (default eips)")
    parser.add_argument("--out", type=Path, help="default benchmarks/results/vectors_outlive_index[-CORPUS].json")
    args = parser.parse_args()
    suffix = "" if args.corpus == "eips" else f"-{args.corpus}"
    out = args.out or results_path(f"vectors_outlive_index{suffix}")
    work = CACHE / f"vault-{args.corpus}"
    vault = work / "vectors.db"
    store = quality.corpus_store(args.corpus, work, log=print)
    if store is None:
        parser.error(f"corpus {args.corpus} has no source here")
    print(f"setup: {store} (embedding everything once; later runs reuse the vault)", flush=True)
    setup_s, setup = docir(store, vault, "embed", "--flush")
    computed = ndcg(store, vault, args.corpus)

    remove_index(store)
    deleted_s, deleted_texts = first_fused(store, vault)
    worker_s, worker_texts = fused_by_the_worker(store, vault)

    second = clone_of(store, work / "second-clone")
    second_s, second_texts = first_fused(second, vault)

    rows: dict[str, Any] = {}
    for dtype in ("float32", "int8"):
        target = work / f"eips-{dtype}.docirvec"
        flags = ["--int8"] if dtype == "int8" else []
        export_s, exported = docir(store, vault, "embed", "--export", str(target), *flags)
        fresh_vault = work / f"empty-vault-{dtype}" / "vectors.db"
        shutil.rmtree(fresh_vault.parent, ignore_errors=True)
        clone = clone_of(store, work / f"imported-{dtype}")
        docir(clone, fresh_vault, "reindex")
        import_s, imported = docir(clone, fresh_vault, "embed", "--import", str(target))
        _, after = docir(clone, fresh_vault, "embed", "--flush")
        per_k = 1000 / max(int(exported["vectors"]), 1)
        rows[dtype] = {"vectors": exported["vectors"], "bytes": exported["bytes"],
                       "bytes_per_1000": round(exported["bytes"] * per_k),
                       "export_s_per_1000": round(export_s * per_k, 3),
                       "import_s_per_1000": round(import_s * per_k, 3),
                       "documents_restored": imported["documents_restored"],
                       "texts_embedded_after_import": after["texts_embedded"],
                       "ndcg@10": ndcg(clone, fresh_vault, args.corpus)}

    payload = {
        "machine": machine_info(),
        "config": {"corpus": args.corpus, "store": str(store), "query": QUERY},
        "setup": {"seconds": round(setup_s, 1), "texts_embedded": setup["texts_embedded"]},
        "deleted_index": {"seconds_to_first_fused": round(deleted_s, 2), "texts_embedded": deleted_texts,
                          "target_seconds": 10},
        "deleted_index_worker": {"seconds_to_first_fused": round(worker_s, 2), "texts_embedded": worker_texts},
        "second_clone": {"seconds_to_first_fused": round(second_s, 2), "texts_embedded": second_texts},
        "transfer": rows,
        "ndcg@10": {"computed": computed, "imported_float32": rows["float32"]["ndcg@10"],
                    "imported_int8": rows["int8"]["ndcg@10"]},
    }
    steps: list[list[object]] = [
        ["setup: texts embedded", f"{setup['texts_embedded']:,}", ""],
        ["deleted index: s to fused", f"{deleted_s:.2f}", f"target < 10; {deleted_texts} texts embedded"],
        ["... through the worker: s to fused", f"{worker_s:.2f}", f"{worker_texts} texts embedded"],
        ["second clone: s to fused", f"{second_s:.2f}", f"{second_texts} texts embedded; target 0"]]
    for dtype, row in rows.items():
        steps += [[f"{dtype}: bytes per 1,000 texts", f"{row['bytes_per_1000']:,}", ""],
                  [f"{dtype}: export s per 1,000", f"{row['export_s_per_1000']:.3f}", ""],
                  [f"{dtype}: import s per 1,000", f"{row['import_s_per_1000']:.3f}",
                   f"{row['texts_embedded_after_import']} texts embedded after"]]
    steps.append(["nDCG@10 computed / f32 / int8", f"{computed} / {rows['float32']['ndcg@10']} / "
                  f"{rows['int8']['ndcg@10']}", ""])
    report(out.stem, payload, out=out, columns=[("step", ""), ("value", ">"), ("", "")], rows=steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
