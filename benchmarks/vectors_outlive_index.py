"""An hour of embedding is never lost: the EIPs' vectors come back from the vault and from a vector file.

    python benchmarks/vectors_outlive_index.py [--src ../shared/benchdata/eips]

Every step runs docir as its own process with DOCIR_WORKER=0 (no worker: each number is one
command's own work) and DOCIR_VECTORS at a vault of this benchmark's (benchmarks/.cache/vault-eips/).

  setup            the EIP store is built (benchmarks/quality/eips.py), indexed and fully embedded
                   once; a later run finds its vectors in the vault and embeds nothing.
  deleted index    .docir/index.db is deleted; then `embed --flush` and `context`: seconds until the
                   first fully fused answer (no document pending). Target: under 10 s.
  second clone     docs/ and docs-schema.yaml copied to a new folder, the same vault: texts embedded
                   (target 0) and seconds to the first fully fused answer.
  export, import   `embed --export` (float32 and --int8), then `embed --import` into a clone with an
                   empty vault: seconds and bytes per 1,000 texts, and texts embedded after the import.
  quality          nDCG@10 of the 90 graded EIP queries (benchmarks/quality/eips_queries.yaml) with the
                   computed vectors, with imported float32 and with imported int8; float32 must equal.

Prints a table, writes benchmarks/results/vectors_outlive_index.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "quality"))

import eips  # noqa: E402  (benchmarks/ is not a package)
import run as quality  # noqa: E402
from speed import write_json  # noqa: E402

CACHE = HERE / ".cache"
QUERY = "how does a contract signal which token interfaces it supports"


def env(vault: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("DOCIR_")}
    return {**out, "DOCIR_WORKER": "0", "DOCIR_VECTORS": str(vault)}


def docir(root: Path, vault: Path, *args: str) -> tuple[float, dict[str, Any]]:
    began = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "docir", *args, "--json", "--root", str(root)],
                          capture_output=True, text=True, env=env(vault), stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(f"docir {' '.join(args)} failed: {proc.stderr.strip()}")
    return elapsed, json.loads(proc.stdout)


def first_fused(root: Path, vault: Path) -> tuple[float, int]:
    """Seconds of `embed --flush` then `context` (checked fused), and the texts the flush embedded."""
    flush_s, flushed = docir(root, vault, "embed", "--flush")
    context_s, answer = docir(root, vault, "context", QUERY)
    if answer.get("semantic") != "on" or answer.get("pending", 0):
        raise SystemExit(f"context was not fully fused: semantic {answer.get('semantic')}, "
                         f"pending {answer.get('pending')}")
    return flush_s + context_s, int(flushed["texts_embedded"])


def clone_of(store: Path, target: Path) -> Path:
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copytree(store / "docs", target / "docs")
    shutil.copy2(store / "docs-schema.yaml", target / "docs-schema.yaml")
    return target


def ndcg(root: Path, vault: Path) -> float:
    """Mean nDCG@10 of the graded EIP queries on this store, fused ranking, in process."""
    os.environ.update({"DOCIR_WORKER": "0", "DOCIR_VECTORS": str(vault)})
    session, source = quality.open_indexed(root)
    try:
        runs = quality.run_queries(session, source, quality.load_eips_queries(), modes=("fused",))
    finally:
        session.close()
    return round(sum(r.metrics["fused"]["ndcg@10"] for r in runs) / len(runs), 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=eips.DEFAULT_SRC)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "vectors_outlive_index.json")
    args = parser.parse_args()
    if not args.src.is_dir():
        parser.error(f"{args.src} is not a folder of EIPs")
    work = CACHE / "vault-eips"
    vault = work / "vectors.db"
    store = eips.build_store(args.src, work / "store")
    print(f"setup: {store} (embedding everything once; later runs reuse the vault)", flush=True)
    setup_s, setup = docir(store, vault, "embed", "--flush")
    computed = ndcg(store, vault)

    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}/.docir/index.db{suffix}").unlink(missing_ok=True)
    deleted_s, deleted_texts = first_fused(store, vault)

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
                       "texts_embedded_after_import": after["texts_embedded"], "ndcg@10": ndcg(clone, fresh_vault)}

    payload = {
        "config": {"src": str(args.src), "query": QUERY},
        "setup": {"seconds": round(setup_s, 1), "texts_embedded": setup["texts_embedded"]},
        "deleted_index": {"seconds_to_first_fused": round(deleted_s, 2), "texts_embedded": deleted_texts,
                          "target_seconds": 10},
        "second_clone": {"seconds_to_first_fused": round(second_s, 2), "texts_embedded": second_texts},
        "transfer": rows,
        "ndcg@10": {"computed": computed, "imported_float32": rows["float32"]["ndcg@10"],
                    "imported_int8": rows["int8"]["ndcg@10"]},
    }
    write_json(args.out, payload)
    print(f"\n{'step':<34} {'value':>12}")
    print(f"{'setup: texts embedded':<34} {setup['texts_embedded']:>12,}")
    print(f"{'deleted index: s to fused':<34} {deleted_s:>12.2f}   (target < 10; {deleted_texts} texts embedded)")
    print(f"{'second clone: s to fused':<34} {second_s:>12.2f}   ({second_texts} texts embedded; target 0)")
    for dtype, row in rows.items():
        print(f"{dtype + ': bytes per 1,000 texts':<34} {row['bytes_per_1000']:>12,}")
        print(f"{dtype + ': export s per 1,000':<34} {row['export_s_per_1000']:>12.3f}")
        print(f"{dtype + ': import s per 1,000':<34} {row['import_s_per_1000']:>12.3f}   "
              f"({row['texts_embedded_after_import']} texts embedded after)")
    print(f"{'nDCG@10 computed / f32 / int8':<34} {computed:>12} / {rows['float32']['ndcg@10']} / "
          f"{rows['int8']['ndcg@10']}")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
