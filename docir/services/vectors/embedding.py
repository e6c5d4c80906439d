"""The embedding pass: drain dirty documents into document and section vectors.

Texts are hashed first and only texts this model has never embedded go to
the model, sorted by length so each batch pads little (a batch costs as much
as its longest member). Vectors are written per document in one transaction
with its chunk rows, and only if its text did not change meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from docir.documents.chunk import chunk_markdown, window_budget
from docir.documents.model import embedded_text, text_sha
from docir.embed.protocol import Embedder
from docir.index.catalog import Catalog
from docir.index.records import ChunkVector, EmbedJob
from docir.index.vectors import pack
from docir.services.indexing.locking import write_lock

DEBOUNCE_SECONDS = 2.0  # a burst of edits to one document within this window costs one recompute
BATCH_DOCUMENTS = 128  # a wider window to sort texts by length in: less padding per batch


@dataclass
class DrainReport:
    documents: int = 0  # documents whose vectors were (re)written
    texts_embedded: int = 0  # texts that went through the model
    texts_reused: int = 0  # texts whose vector was already stored (content-hash reuse)
    reference_chunks: int = 0  # reference chunks given their vector


@contextmanager
def drain_lock(state_dir: Path) -> Iterator[None]:
    """One drainer per store at a time, across processes and threads.

    Two drains side by side pick the same oldest dirty rows and embed the same
    texts twice; the second one to take this lock finds those texts stored and
    reuses them instead.
    """
    with write_lock(state_dir / "run" / "drain.lock"):  # run/ is git-ignored in every store
        yield


def drain(catalog: Catalog, embedder: Embedder, *, debounce: float | Callable[[], float] = 0.0,
          progress: Callable[[int, int], None] | None = None,
          should_stop: Callable[[], bool] | None = None, report: DrainReport | None = None) -> DrainReport:
    """Embed every due document that has been quiet for `debounce` seconds.

    `debounce` may be a function, asked before each batch: the worker drops it to zero when
    a flush asks for everything now. `report`, if given, is added to as each batch lands.
    """
    report = report if report is not None else DrainReport()
    base = report.documents
    budget = window_budget(embedder.max_tokens)
    due_total, _ = catalog.vectors.queue_counts(embedder.model_id)
    while True:
        if should_stop is not None and should_stop():
            break
        quiet = debounce() if callable(debounce) else debounce
        settled = time.time() - quiet if quiet > 0 else None
        jobs = catalog.vectors.dirty_jobs(embedder.model_id, settled_before=settled, limit=BATCH_DOCUMENTS)
        if not jobs:
            break
        # A job whose text changed while it was embedded stays dirty and comes back next round.
        _embed_batch(catalog, embedder, jobs, budget, report)
        if progress is not None:
            done = report.documents - base
            progress(done, max(due_total, done))
    _drain_references(catalog, embedder, report, should_stop)
    return report


def _drain_references(catalog: Catalog, embedder: Embedder, report: DrainReport,
                      should_stop: Callable[[], bool] | None) -> None:
    """Reference chunks: their text is stored whole, so only unknown texts reach the model."""
    while not (should_stop is not None and should_stop()):
        jobs = catalog.refs.jobs(embedder.model_id)
        if not jobs:
            return
        _embed_unknown(catalog, embedder, {sha: text for _, sha, text in jobs}, report)
        with catalog.transaction():
            catalog.refs.mark_embedded([(rowid, sha) for rowid, sha, _ in jobs], embedder.model_id)
        report.reference_chunks += len(jobs)


def _embed_batch(catalog: Catalog, embedder: Embedder, jobs: list[EmbedJob], budget: int, report: DrainReport) -> None:
    plans: list[tuple[EmbedJob, str, list[ChunkVector]]] = []
    texts: dict[str, str] = {}
    for job in jobs:
        doc_text = embedded_text(job.title, job.description, job.body)
        doc_sha = text_sha(doc_text)
        texts[doc_sha] = doc_text
        chunks = []
        for chunk in chunk_markdown(job.body, title=job.title, count_tokens=embedder.count_tokens, budget=budget):
            sha = text_sha(chunk.text)
            texts[sha] = chunk.text
            heading = " > ".join(chunk.heading_path)
            section = chunk.heading_path[-1] if chunk.heading_path else ""
            chunks.append(ChunkVector(chunk.ordinal, heading, section, chunk.continuation, chunk.start, chunk.end, sha))
        plans.append((job, doc_sha, chunks))
    _embed_unknown(catalog, embedder, texts, report)
    with catalog.transaction():
        for job, doc_sha, chunks in plans:
            if catalog.vectors.write_embedding(job, embedder.model_id, doc_sha, chunks):
                report.documents += 1


def _embed_unknown(catalog: Catalog, embedder: Embedder, texts: dict[str, str], report: DrainReport) -> None:
    """Embed only the texts (by sha256) this model has never embedded, shortest first, and store them."""
    known = catalog.vectors.cached(texts, embedder.model_id)
    missing = sorted((sha for sha in texts if sha not in known), key=lambda sha: len(texts[sha]))
    report.texts_reused += len(texts) - len(missing)
    if not missing:
        return
    vectors = embedder.embed([texts[sha] for sha in missing])
    report.texts_embedded += len(missing)
    with catalog.transaction():
        catalog.vectors.store(embedder.model_id, embedder.dim, zip(missing, (pack(v) for v in vectors), strict=True))
