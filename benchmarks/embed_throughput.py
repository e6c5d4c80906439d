"""Embedding throughput: `docir embed --flush` versus a bare ONNX Runtime session on the same texts.

    python -m benchmarks.embed_throughput [--docs 100] [--repeat 3]

A deterministic store (benchmarks/generate.py, seed 7) lives in
benchmarks/.cache/embed-store-<N>-seed<S>/. The texts docir embeds for it are listed once,
with docir's own code: for every due document (`VectorStore.dirty_jobs` on a fresh index) the
document text (`docir.documents.model.embedded_text`) and its chunks
(`docir.documents.chunk.chunk_markdown` with the real tokenizer and `window_budget`),
de-duplicated by sha256 as docir's drain does. Then, in rounds (floor first):

    floor          python -c "import sqlite3, json"
    docir          python -m docir embed --flush --root STORE   (DOCIR_WORKER=0; before each run, untimed:
                   the index is deleted and rebuilt with `docir reindex`, so every text is new)
    ort-256        a bare ONNX Runtime process: onnxruntime.InferenceSession on the same model.onnx,
                   the `tokenizers` tokenizer from tokenizer.json, truncation 256, inputs sorted by token
                   length, batches of 32 padded to their longest member, mean pooling + L2 normalisation
    ort-512        the same with truncation 512 (what fastembed applies to this model, see the README)
    fastembed      docir's FastembedEmbedder.embed on the same texts sorted by length, in a bare process
                   (how docir ran this model before docir/embed/onnx_model.py; it still runs models of
                   other pooling so)
    fastembed-256  the same with fastembed's tokenizer re-set to truncate at 256 (diagnostic)

Every side is a whole process (interpreter start, imports, model load, the work); the order of
the sides rotates every round, and the children's CPU time is recorded too. texts/s =
texts / median wall time; the ratio docir / ort-256 is the target (>= 0.8). The vectors docir
stored are compared with ort-256's (and ort-512's) by cosine. Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TypedDict

from benchmarks import _docir_api as docir_api
from benchmarks import _harness as harness

BATCH = 32
TARGET_RATIO = 0.8
SIDES: tuple[tuple[str, str], ...] = (
    ("docir", "docir embed --flush (whole process)"),
    ("ort-256", "bare ONNX Runtime, truncation 256"),
    ("ort-512", "bare ONNX Runtime, truncation 512"),
    ("fastembed", "docir's FastembedEmbedder, bare process"),
    ("fastembed-256", "FastembedEmbedder, truncation set to 256"),
)
LABELS = dict(SIDES)


class TextEntry(TypedDict):
    """One text of the --dump-texts listing, in drain order."""

    sha: str
    kind: str  # "document" or "chunk"
    tokens: int  # untruncated, by the model's tokenizer
    text: str


# --- the child processes --------------------------------------------------------------------------


def dump_texts(root: Path, out: Path) -> None:
    """Every text docir's drain would embed for this (freshly indexed) store, in drain order, de-duplicated."""
    from benchmarks._docir_api import open_session
    from docir.documents.chunk import chunk_markdown, window_budget
    from docir.documents.model import embedded_text as document_text
    from docir.documents.model import text_sha
    from docir.services.vectors import embedding, query_source

    source = docir_api.load_local(None, root)
    if not isinstance(source, query_source.LocalModel):
        raise harness.BenchmarkError(f"no model: semantic layer is {source.status}")
    embedder = source.embedder
    session = open_session(root, refresh=False)
    budget = window_budget(embedder.max_tokens)
    seen: set[str] = set()
    texts: list[TextEntry] = []
    documents = 0

    def add(kind: str, text: str) -> None:
        sha = text_sha(text)
        if sha not in seen:
            seen.add(sha)
            texts.append({"sha": sha, "kind": kind, "tokens": embedder.count_tokens(text), "text": text})

    try:
        for job in session.catalog.vectors.dirty_jobs(embedder.model_id, limit=1 << 30):
            add("document", document_text(job.title, job.description, job.body))
            chunks = chunk_markdown(job.body, title=job.title, count_tokens=embedder.count_tokens, budget=budget)
            shared = embedding.shared_chunks(session.catalog, job.rowid, chunks)  # said by other documents too
            for chunk in chunks:
                if chunk.ordinal not in shared:
                    add("chunk", chunk.text)
            documents += 1
    finally:
        session.close()
    meta = {"model_id": embedder.model_id, "dim": embedder.dim, "max_tokens": embedder.max_tokens,
            "budget": budget, "documents": documents, "model_path": str(_model_path())}
    out.write_text(json.dumps({"meta": meta, "texts": texts}), encoding="utf-8")


def _model_path() -> Path:
    choice = docir_api.resolve(None)
    if choice.path is None:
        raise harness.BenchmarkError(f"no model: {choice.source}")
    return Path(choice.path)


def ort_child(texts_file: Path, vectors_out: Path, max_length: int, batch: int) -> dict[str, float]:
    """The bare ONNX Runtime side: timings of each stage, vectors saved in the texts' order."""
    t0 = time.perf_counter()
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    t_import = time.perf_counter()
    data = json.loads(texts_file.read_text(encoding="utf-8"))
    texts = [t["text"] for t in data["texts"]]
    folder = Path(data["meta"]["model_path"])
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_length)  # tokenizer.json ships truncation 128 and fixed padding 128
    tokenizer.no_padding()
    t_load = time.perf_counter()
    encodings = tokenizer.encode_batch(texts)
    lengths = [len(e.ids) for e in encodings]
    order = sorted(range(len(texts)), key=lambda i: lengths[i])
    t_tokenize = time.perf_counter()
    vectors = np.zeros((len(texts), 0), dtype=np.float32)
    for start in range(0, len(order), batch):
        picks = order[start : start + batch]
        width = max(lengths[i] for i in picks)
        ids = np.zeros((len(picks), width), dtype=np.int64)
        mask = np.zeros((len(picks), width), dtype=np.int64)
        for row, i in enumerate(picks):
            ids[row, : lengths[i]] = encodings[i].ids
            mask[row, : lengths[i]] = 1
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        if vectors.shape[1] == 0:
            vectors = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
        vectors[picks] = pooled
    t_infer = time.perf_counter()
    np.save(vectors_out, vectors)
    return {"import_s": t_import - t0, "load_s": t_load - t_import, "tokenize_s": t_tokenize - t_load,
            "infer_s": t_infer - t_tokenize, "texts": len(texts), "tokens": sum(lengths),
            "padded_tokens": sum(max(lengths[i] for i in order[s : s + batch]) * len(order[s : s + batch])
                                 for s in range(0, len(order), batch))}


def fastembed_child(texts_file: Path, batch: int, max_length: int | None = None) -> dict[str, float]:
    """docir's own embedder on the same texts sorted by length: the model cost without docir's drain.

    With `max_length`, fastembed's tokenizer is re-set to truncate there (a diagnostic: docir as it
    would run if it told fastembed the window it budgets for)."""
    t0 = time.perf_counter()
    from docir.embed.fastembed_model import FastembedEmbedder

    t_import = time.perf_counter()
    data = json.loads(texts_file.read_text(encoding="utf-8"))
    texts = sorted((t["text"] for t in data["texts"]), key=len)
    embedder = FastembedEmbedder(docir_api.resolve(None))
    if max_length is not None:
        tokenizer = embedder._model.model.tokenizer  # fastembed internals: TextEmbedding -> model -> tokenizer
        tokenizer.enable_truncation(max_length)
    t_load = time.perf_counter()
    embedder.embed(texts, batch_size=batch)
    t_infer = time.perf_counter()
    return {"import_s": t_import - t0, "load_s": t_load - t_import, "infer_s": t_infer - t_load, "texts": len(texts)}


# --- the parent -----------------------------------------------------------------------------------


def docir(root: Path, *args: str) -> tuple[float, dict[str, Any]]:
    ran = harness.run(harness.docir_argv(*args, "--root", str(root)), what=f"docir {' '.join(args)}")
    return ran.ms, ran.json()


def fresh_index(root: Path) -> float:
    """Delete the index and rebuild it from the files (no vectors): the next embed starts from nothing."""
    for path in (root / ".docir").glob("index.db*"):
        path.unlink()
    elapsed, report = docir(root, "reindex")
    if not report.get("added"):
        raise harness.BenchmarkError(f"rebuilding the index added nothing: {report}")
    return elapsed


def prepare_store(cache: Path, size: int, seed: int) -> tuple[Path, dict[str, object]]:
    root = cache / f"embed-store-{size}-seed{seed}"
    key = harness.store_key()
    if harness.cached_marker(root, key, size, seed) is not None:
        return root, {"generated": False}
    ids, seconds = harness.fresh_store(root, size, seed)
    harness.write_marker(root, key, size, seed, ids)
    return root, {"generated": True, "generate_s": seconds}


def stored_vectors(root: Path, model_id: str) -> dict[str, bytes]:
    conn = sqlite3.connect(f"file:{root / '.docir' / 'index.db'}?mode=ro", uri=True)
    try:
        return {sha: bytes(blob) for sha, blob in
                conn.execute("SELECT text_sha, vector FROM vectors WHERE model_id = ?", (model_id,))}
    finally:
        conn.close()


def compare(texts: list[TextEntry], docir_vectors: dict[str, bytes], ort_file: Path,
            max_tokens: int) -> dict[str, object]:
    """Cosine of docir's stored vector and the bare session's, per text; summarised by kind and length."""
    import numpy as np

    ort_vectors = np.load(ort_file)
    rows = []
    missing = 0
    for index, text in enumerate(texts):
        blob = docir_vectors.get(str(text["sha"]))
        if blob is None:
            missing += 1
            continue
        mine = np.frombuffer(blob, dtype="<f4")
        cos = float(mine @ ort_vectors[index] / (np.linalg.norm(mine) * np.linalg.norm(ort_vectors[index])))
        rows.append((text, cos))

    def summary(selected: list[tuple[TextEntry, float]]) -> dict[str, object]:
        values = [c for _, c in selected]
        if not values:
            return {"texts": 0}
        return {"texts": len(values), "min_cosine": round(min(values), 6),
                "median_cosine": round(statistics.median(values), 6),
                "below_0.999": sum(1 for v in values if v <= 0.999)}

    fits = [(t, c) for t, c in rows if int(t["tokens"]) <= max_tokens]
    longer = [(t, c) for t, c in rows if int(t["tokens"]) > max_tokens]
    picks = sorted(rows, key=lambda r: int(r[0]["tokens"]))
    sample = ([picks[0], picks[len(picks) // 4], picks[len(picks) // 2], picks[(3 * len(picks)) // 4], picks[-1]]
              if picks else [])
    return {
        "missing_in_docir": missing,
        "all": summary(rows),
        "chunks": summary([r for r in rows if r[0]["kind"] == "chunk"]),
        "documents": summary([r for r in rows if r[0]["kind"] == "document"]),
        f"within_{max_tokens}_tokens": summary(fits),
        f"longer_than_{max_tokens}_tokens": summary(longer),
        "sample": [{"kind": t["kind"], "tokens": t["tokens"], "cosine": round(c, 6),
                    "text_start": str(t["text"])[:60]} for t, c in sample],
    }


def main(argv: list[str] | None = None) -> int:
    parser = harness.arguments("embed_throughput", __doc__, seed=True)
    parser.add_argument("--docs", type=int, default=100, help="documents in the generated store (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each side (default 3)")
    parser.add_argument("--sides", default=",".join(s for s, _ in SIDES),
                        help="which sides to run (default all: docir,ort-256,ort-512,fastembed,fastembed-256)")
    parser.add_argument("--cache", type=Path, default=harness.CACHE, help="where the generated store is kept")
    # internal: the child processes
    parser.add_argument("--dump-texts", nargs=2, type=Path, metavar=("ROOT", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--ort", nargs=3, metavar=("TEXTS", "VECTORS", "MAXLEN"), help=argparse.SUPPRESS)
    parser.add_argument("--fastembed", nargs=2, metavar=("TEXTS", "MAXLEN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dump_texts:
        dump_texts(args.dump_texts[0].resolve(), args.dump_texts[1])
        return 0
    if args.ort:
        print(json.dumps(ort_child(Path(args.ort[0]), Path(args.ort[1]), int(args.ort[2]), BATCH)))
        return 0
    if args.fastembed:
        max_length = None if args.fastembed[1] == "default" else int(args.fastembed[1])
        print(json.dumps(fastembed_child(Path(args.fastembed[0]), BATCH, max_length)))
        return 0
    sides = [s for s in args.sides.split(",") if s]
    if args.docs < 1 or args.repeat < 1 or not sides or any(s not in LABELS for s in sides) or "docir" not in sides \
            or "ort-256" not in sides:
        parser.error("--docs and --repeat must be positive; --sides must include docir and ort-256")

    started = time.perf_counter()
    machine = harness.machine_info()
    work = Path(tempfile.mkdtemp(prefix="docir-embed-bench-"))
    try:
        root, setup = prepare_store(args.cache.resolve(), args.docs, args.seed)
        print(f"embed_throughput: store {root} {setup}", file=sys.stderr)
        setup["fresh_reindex_ms"] = round(fresh_index(root))
        texts_file = work / "texts.json"
        harness.run(harness.module_argv("embed_throughput", "--dump-texts", str(root), str(texts_file)),
                    what="listing the texts", cwd=harness.REPO)
        listing = json.loads(texts_file.read_text(encoding="utf-8"))
        meta = listing["meta"]
        texts: list[TextEntry] = listing["texts"]
        n_texts = len(texts)
        max_tokens = int(meta["max_tokens"])
        print(f"embed_throughput: {n_texts} texts from {meta['documents']} documents "
              f"({sum(1 for t in texts if t['tokens'] > max_tokens)} longer than {max_tokens} tokens)", file=sys.stderr)

        details: dict[str, list[dict[str, Any]]] = {s: [] for s in sides}
        reindex_ms: list[float] = []
        warnings: list[str] = []
        comparisons: dict[str, Any] = {}
        docir_vectors: dict[str, bytes] = {}
        rounds = harness.Rounds("embed_throughput", args.repeat, 0)
        for round_no in rounds:
            # Rotate the order every round, so no side always runs at the same point of the round.
            shift = round_no % len(sides)
            for side in sides[shift:] + sides[:shift]:
                if side == "docir":
                    if round_no > 0:
                        reindex_ms.append(fresh_index(root))
                    ran = harness.run(harness.docir_argv("embed", "--flush", "--root", str(root)),
                                      what="docir embed --flush")
                    flushed = ran.json()
                    details[side].append({k: flushed.get(k) for k in ("documents", "texts_embedded", "texts_reused",
                                                                        "due", "total", "model")})
                    if flushed.get("texts_embedded") != n_texts and not any("texts_embedded" in w for w in warnings):
                        warnings.append(f"docir embedded {flushed.get('texts_embedded')} texts, "
                                        f"the listing has {n_texts}")
                    if round_no == 0:
                        docir_vectors = stored_vectors(root, str(meta["model_id"]))
                elif side.startswith("ort-"):
                    length = side.removeprefix("ort-")
                    vec_file = work / f"ort-{length}.npy"
                    ran = harness.run(harness.module_argv("embed_throughput", "--ort", str(texts_file), str(vec_file),
                                                          length), what=f"bare ONNX Runtime ({side})", cwd=harness.REPO)
                    details[side].append(ran.json())
                    if round_no == 0 and docir_vectors:
                        comparisons[side] = compare(texts, docir_vectors, vec_file, max_tokens)
                else:
                    length = side.removeprefix("fastembed").removeprefix("-") or "default"
                    ran = harness.run(harness.module_argv("embed_throughput", "--fastembed", str(texts_file), length),
                                      what=side, cwd=harness.REPO)
                    details[side].append(ran.json())
                rounds.record(side, ran)
    except harness.BenchmarkError as exc:
        print(f"embed_throughput: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)

    samples = rounds.samples
    results = []
    medians = {s: samples.median(s) for s in sides}
    cpu = {s: statistics.median(samples.cpu[s]) / 1000 for s in sides}
    for side in sides:
        row: dict[str, Any] = {
            "side": side, "label": LABELS[side], "texts": n_texts,
            "median_s": round(medians[side] / 1000, 2), "min_s": round(min(samples.wall[side]) / 1000, 2),
            "max_s": round(max(samples.wall[side]) / 1000, 2),
            "texts_per_s": round(n_texts / (medians[side] / 1000), 1),
            "ratio_to_ort_256": round(medians["ort-256"] / medians[side], 3),
            "samples_s": [round(v / 1000, 2) for v in samples.wall[side]],
            "cpu_median_s": round(cpu[side], 2),
            "cpu_ratio_to_ort_256": round(cpu["ort-256"] / cpu[side], 3),
            "cpu_samples_s": [round(v / 1000, 2) for v in samples.cpu[side]],
            "runs": details[side],
        }
        stages = [d for d in details[side] if "infer_s" in d]
        if stages:
            infer = statistics.median(float(d["infer_s"]) for d in stages)
            row["infer_median_s"] = round(infer, 2)
            row["infer_texts_per_s"] = round(n_texts / infer, 1)
            row["stage_medians_s"] = {k: round(statistics.median(float(d[k]) for d in stages), 3)
                                      for k in ("import_s", "load_s", "tokenize_s", "infer_s") if k in stages[0]}
        results.append(row)
    ratio = medians["ort-256"] / medians["docir"]
    cos_ok = None
    check = comparisons.get("ort-256")
    if isinstance(check, dict):
        cos_ok = check["all"].get("below_0.999") == 0 and not check.get("missing_in_docir")
    targets = [
        {"name": f"docir embed --flush at least {TARGET_RATIO:g}x the bare ONNX Runtime throughput",
         "limit_ratio": TARGET_RATIO, "value_ratio": round(ratio, 3),
         "status": "PASS" if ratio >= TARGET_RATIO else "FAIL",
         "detail": f"{n_texts / (medians['docir'] / 1000):.1f} vs {n_texts / (medians['ort-256'] / 1000):.1f} texts/s "
                   f"= {ratio:.2f} (limit {TARGET_RATIO:g})"},
        {"name": "docir and the bare session (truncation 256) give the same vectors (cosine > 0.999 for every text)",
         "status": "SKIP" if cos_ok is None else ("PASS" if cos_ok else "FAIL"),
         "detail": "not compared" if not isinstance(check, dict) else
                   f"{check['all'].get('below_0.999')} of {check['all'].get('texts')} texts at or below 0.999, "
                   f"min {check['all'].get('min_cosine')}"},
    ]
    payload: dict[str, Any] = {
        "machine": machine,
        "config": {"docs": args.docs, "repeat": args.repeat, "seed": args.seed, "batch": BATCH, "sides": sides,
                   "pycache_prefix": str(harness.PYCACHE), "store": str(root)},
        "setup": {**setup, "reindex_before_docir_ms": [round(v) for v in reindex_ms]},
        "texts": {"count": n_texts, "documents": meta["documents"], "model_id": meta["model_id"],
                  "model_path": meta["model_path"], "max_tokens": max_tokens, "chunk_budget": meta["budget"],
                  "document_texts": sum(1 for t in texts if t["kind"] == "document"),
                  "chunk_texts": sum(1 for t in texts if t["kind"] == "chunk"),
                  f"longer_than_{max_tokens}_tokens": sum(1 for t in texts if t["tokens"] > max_tokens),
                  "longer_than_512_tokens": sum(1 for t in texts if t["tokens"] > 512),
                  "tokens_total_untruncated": sum(int(t["tokens"]) for t in texts)},
        "floor_ms": samples.row("floor")["median_ms"], "floor_samples_ms": samples.row("floor")["samples_ms"],
        "results": results,
        "vector_check": comparisons,
        "targets": targets,
        "warnings": warnings,
        "duration_s": round(time.perf_counter() - started, 1),
    }
    show(payload, samples.row("floor"), args.out)
    return 0


def show(payload: dict[str, Any], floor: dict[str, Any], out: Path | None) -> None:
    config, info = payload["config"], payload["texts"]
    longer = info[f"longer_than_{info['max_tokens']}_tokens"]
    title = [f"docir embedding throughput: python {payload['machine']['python']}, {payload['machine']['cpu_count']} "
             f"CPUs, {config['docs']} documents -> {info['count']} texts ({info['document_texts']} document texts, "
             f"{info['chunk_texts']} chunks; {longer} longer than {info['max_tokens']} tokens), model "
             f"{info['model_id']}, {config['repeat']} runs per side, medians", harness.floor_line(floor)]
    rows = [[r["label"], r["median_s"], r["texts_per_s"], r["ratio_to_ort_256"], r.get("infer_texts_per_s"),
             r["cpu_median_s"], r["cpu_ratio_to_ort_256"]] for r in payload["results"]]
    notes = []
    if payload["vector_check"]:
        notes += ["", "vectors: cosine of docir's stored vector with the bare session's, per text"]
    for side, check in payload["vector_check"].items():
        for part in ("chunks", "documents", *(k for k in check if k.startswith(("within_", "longer_than_")))):
            s = check[part]
            if s.get("texts"):
                notes.append(f"  {side:<8} {part:<26} {s['texts']:>5} texts  min {s['min_cosine']:.6f}  "
                             f"median {s['median_cosine']:.6f}  <=0.999: {s['below_0.999']}")
    harness.report("embed_throughput", payload, title=title, rows=rows, notes=notes, out=out,
           columns=[("side", ""), ("median s", ".2f"), ("texts/s", ".1f"), ("vs ort-256", ".2f"),
                    ("infer-only texts/s", ".1f"), ("CPU s", ".1f"), ("CPU vs ort-256", ".2f")])


if __name__ == "__main__":
    sys.exit(main())
