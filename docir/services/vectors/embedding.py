"""The embedding pass: drain dirty documents into document and section vectors.

Texts are hashed first and only texts this model has never embedded go to
the model, sorted by their length in tokens so each batch pads little (a
batch costs as much as its longest member, in tokens: characters per token
vary threefold between prose and hex-heavy code, and sorting by characters
padded 30% of every batch on the EIPs). Every due document's document vector comes first
(the document is then ranked semantically, its sections still due), then the
section vectors, written per document in one transaction with its chunk rows;
either only if the document's text did not change meanwhile.
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
from docir.services.vectors.query_source import DrainStatus

DEBOUNCE_SECONDS = 2.0  # a burst of edits to one document within this window costs one recompute
BATCH_DOCUMENTS = 128  # a wider window to sort texts by length in: less padding per batch
EMBED_SLICE = 256  # texts per model call between stores and progress updates: a few seconds on 2 cores
CHARS_PER_TOKEN_CAP = 16  # a long text's sort key reads this many characters per window token: enough to fill it


@dataclass
class DrainReport:
    documents: int = 0  # documents whose vectors were (re)written
    texts_embedded: int = 0  # texts that went through the model
    texts_reused: int = 0  # texts whose vector was already stored (content-hash reuse)
    reference_chunks: int = 0  # reference chunks given their vector


@dataclass
class DrainProgress:
    """Texts done out of texts due in one drain, as it goes; shown by `embed --flush` and `--status`."""

    texts_done: int = 0  # texts that went through the model in this drain
    texts_due: int = 0  # texts this drain knows it must embed: grows while document vectors are planned
    started: float = 0.0  # time.time() when the drain began
    phase: str = "documents"  # "documents" first, then "sections", then "references"

    def as_dict(self) -> DrainStatus:
        elapsed = max(time.time() - self.started, 1e-6)
        rate = self.texts_done / elapsed
        left = max(self.texts_due - self.texts_done, 0)
        return {"texts_done": self.texts_done, "texts_due": max(self.texts_due, self.texts_done),
                "phase": self.phase, "rate": round(rate, 1), "eta_seconds": round(left / rate) if rate > 0 else None}


@contextmanager
def drain_lock(state_dir: Path) -> Iterator[None]:
    """One drainer per store at a time, across processes and threads.

    Two drains side by side pick the same oldest dirty rows and embed the same
    texts twice; the second one to take this lock finds those texts stored and
    reuses them instead.
    """
    with write_lock(state_dir / "run" / "drain.lock"):  # run/ is git-ignored in every store
        yield


Plan = tuple[str, list[ChunkVector], dict[str, str], dict[str, int]]
"""A document's text sha, its chunks, chunk texts by sha and their tokens by sha (counted while planning)."""


def drain(catalog: Catalog, embedder: Embedder, *, debounce: float | Callable[[], float] = 0.0,
          progress: Callable[[DrainProgress], None] | None = None,
          should_stop: Callable[[], bool] | None = None, report: DrainReport | None = None) -> DrainReport:
    """Embed every due document that has been quiet for `debounce` seconds.

    Every due document's document vector first, then the section vectors: on a big first
    index, ranking is semantic after one text per document instead of after all of them.
    `debounce` may be a function, asked before each batch: the worker drops it to zero when
    a flush asks for everything now. `report`, if given, is added to as each batch lands.
    """
    report = report if report is not None else DrainReport()
    state = DrainProgress(started=time.time())
    budget = window_budget(embedder.max_tokens)
    state.texts_due = catalog.vectors.waiting(embedder.model_id)[0]  # one document text each, at first
    plans: dict[int, Plan] = {}  # sections planned in the first phase, keyed by document

    def stopped() -> bool:
        return should_stop is not None and should_stop()

    def advanced(count: int) -> None:
        state.texts_done += count
        if progress is not None:
            progress(state)

    def counted(texts: dict[str, str], tokens: dict[str, int]) -> None:
        _embed_unknown(catalog, embedder, texts, report, advanced, tokens)

    while not stopped():
        quiet = debounce() if callable(debounce) else debounce
        settled = time.time() - quiet if quiet > 0 else None
        jobs = catalog.vectors.dirty_jobs(embedder.model_id, settled_before=settled, limit=BATCH_DOCUMENTS)
        if jobs:
            # A new edit's document vector goes before any section still due.
            state.phase = "documents"
            _document_vectors(catalog, embedder, jobs, budget, plans, state, counted)
            continue
        jobs = catalog.vectors.section_jobs(embedder.model_id, limit=BATCH_DOCUMENTS)
        if not jobs:
            break
        state.phase = "sections"
        # A job whose text changed while it was embedded stays dirty and comes back next round.
        _section_vectors(catalog, embedder, jobs, budget, plans, state, report, counted)
    state.phase = "references"
    _drain_references(catalog, embedder, report, stopped)
    return report


def _plan(job: EmbedJob, embedder: Embedder, budget: int) -> Plan:
    chunks, texts, tokens = [], {}, {}
    counts: dict[str, int] = {}  # every text chunking measured: a chunk's own count is among them

    def count(text: str) -> int:
        if text not in counts:
            counts[text] = embedder.count_tokens(text)
        return counts[text]

    for chunk in chunk_markdown(job.body, title=job.title, count_tokens=count, budget=budget):
        sha = text_sha(chunk.text)
        texts[sha] = chunk.text
        tokens[sha] = count(chunk.text)
        heading = " > ".join(chunk.heading_path)
        section = chunk.heading_path[-1] if chunk.heading_path else ""
        chunks.append(ChunkVector(chunk.ordinal, heading, section, chunk.continuation, chunk.start, chunk.end, sha))
    return job.text_sha, chunks, texts, tokens


def _document_vectors(catalog: Catalog, embedder: Embedder, jobs: list[EmbedJob], budget: int,
                      plans: dict[int, Plan], state: DrainProgress,
                      embed: Callable[[dict[str, str], dict[str, int]], None]) -> None:
    """Each job's document vector; its sections are planned now, so texts due is known early."""
    texts: dict[str, str] = {}
    shas = []
    for job in jobs:
        doc_text = embedded_text(job.title, job.description, job.body)
        doc_sha = text_sha(doc_text)
        texts[doc_sha] = doc_text
        shas.append(doc_sha)
        plans[job.rowid] = _plan(job, embedder, budget)
    section_texts = {sha: text for rowid in (j.rowid for j in jobs) for sha, text in plans[rowid][2].items()}
    known = catalog.vectors.cached(section_texts, embedder.model_id)
    state.texts_due += sum(1 for sha in section_texts if sha not in known and sha not in texts)
    state.texts_due -= len(catalog.vectors.cached(texts, embedder.model_id))  # reused: no model time
    embed(texts, {})  # document texts are mostly longer than the window: their sort key is counted on a prefix
    with catalog.transaction():
        for job, doc_sha in zip(jobs, shas, strict=True):
            catalog.vectors.write_document_vector(job, embedder.model_id, doc_sha)


def _section_vectors(catalog: Catalog, embedder: Embedder, jobs: list[EmbedJob], budget: int,
                     plans: dict[int, Plan], state: DrainProgress, report: DrainReport,
                     embed: Callable[[dict[str, str], dict[str, int]], None]) -> None:
    texts: dict[str, str] = {}
    tokens: dict[str, int] = {}
    planned: list[tuple[EmbedJob, str, list[ChunkVector]]] = []
    fresh: dict[str, str] = {}
    for job in jobs:
        plan = plans.pop(job.rowid, None)
        if plan is None or plan[0] != job.text_sha:
            plan = _plan(job, embedder, budget)  # planned by an earlier drain, or its text changed since
            fresh.update(plan[2])
        texts.update(plan[2])
        tokens.update(plan[3])
        doc_sha = text_sha(embedded_text(job.title, job.description, job.body))
        planned.append((job, doc_sha, plan[1]))
    if fresh:
        state.texts_due += len(fresh) - len(catalog.vectors.cached(fresh, embedder.model_id))
    embed(texts, tokens)
    with catalog.transaction():
        for job, doc_sha, chunks in planned:
            if catalog.vectors.write_embedding(job, embedder.model_id, doc_sha, chunks):
                report.documents += 1


def _drain_references(catalog: Catalog, embedder: Embedder, report: DrainReport,
                      stopped: Callable[[], bool]) -> None:
    """Reference chunks: their text is stored whole, so only unknown texts reach the model."""
    while not stopped():
        jobs = catalog.refs.jobs(embedder.model_id)
        if not jobs:
            return
        _embed_unknown(catalog, embedder, {sha: text for _, sha, text in jobs}, report)
        with catalog.transaction():
            catalog.refs.mark_embedded([(rowid, sha) for rowid, sha, _ in jobs], embedder.model_id)
        report.reference_chunks += len(jobs)


def _embed_unknown(catalog: Catalog, embedder: Embedder, texts: dict[str, str], report: DrainReport,
                   done: Callable[[int], None] | None = None, tokens: dict[str, int] | None = None) -> None:
    """Embed only the texts (by sha256) this model has never embedded, fewest tokens first, and store them.

    `tokens` holds the counts already known (from chunk planning); the rest are counted here.
    In slices of EMBED_SLICE texts, each stored as it comes: progress moves every few seconds,
    and a drain stopped or killed midway keeps what it computed.
    """
    known = catalog.vectors.cached(texts, embedder.model_id)
    counts = tokens or {}
    keys = {sha: _tokens_read(embedder, texts[sha], counts.get(sha)) for sha in texts if sha not in known}
    missing = sorted(keys, key=keys.__getitem__)
    report.texts_reused += len(texts) - len(missing)
    for start in range(0, len(missing), EMBED_SLICE):
        part = missing[start : start + EMBED_SLICE]
        vectors = embedder.embed([texts[sha] for sha in part])
        report.texts_embedded += len(part)
        with catalog.transaction():
            catalog.vectors.store(embedder.model_id, embedder.dim, zip(part, (pack(v) for v in vectors), strict=True))
        if done is not None:
            done(len(part))


def _tokens_read(embedder: Embedder, text: str, counted: int | None) -> int:
    """How many tokens the model reads of `text`: the window at most, so a long text is counted on a prefix."""
    window = embedder.max_tokens
    if counted is None:
        counted = embedder.count_tokens(text[: window * CHARS_PER_TOKEN_CAP])
    return min(counted, window)
