"""The embedding pass: drain dirty documents into document and section vectors.

Texts are hashed first and only texts this model has never embedded go to
the model, sorted by their length in tokens so each batch pads little (a
batch costs as much as its longest member, in tokens: characters per token
vary threefold between prose and hex-heavy code, and sorting by characters
padded 30% of every batch on the EIPs). Every due document's document vector comes first
(the document is then ranked semantically, its sections still due), then the
section vectors, written per document in one transaction with its chunk rows;
either only if the document's text did not change meanwhile.

Every vector and every document's chunk plan is also kept in the vector vault
(docir/index/vault.py), outside the index: a document whose plan and vectors
are there is restored without the model or the tokenizer. At every slice the
drain checks that the index path still names the file it writes, and stops
with IndexReplaced when it does not: its work is in the vault, and the caller
goes on in the file that is there now.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from docir.documents.chunk import CHUNKING_VERSION, Chunk, chunk_markdown, window_budget
from docir.documents.model import embedded_text, text_sha
from docir.embed.protocol import Embedder
from docir.index.catalog import Catalog
from docir.index.records import ChunkVector, EmbedJob
from docir.index.vault import Vault, VectorPlan
from docir.index.vectors import pack
from docir.services.indexing.locking import write_lock
from docir.services.vectors.reports import DrainStatus
from docir.settings import Settings

DEBOUNCE_SECONDS = 2.0  # a burst of edits to one document within this window costs one recompute
BATCH_DOCUMENTS = 128  # a wider window to sort texts by length in: less padding per batch
EMBED_SLICE = 256  # texts per model call between stores and progress updates: a few seconds on 2 cores
CHARS_PER_TOKEN_CAP = 16  # a long text's sort key reads this many characters per window token: enough to fill it


@dataclass
class DrainReport:
    documents: int = 0  # documents whose vectors were (re)written
    texts_embedded: int = 0  # texts that went through the model
    texts_reused: int = 0  # texts whose vector was already stored (content-hash reuse)
    texts_restored: int = 0  # of those, texts whose vector came back from the vault, not the index


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


SectionPlan = tuple[str, list[ChunkVector], dict[str, str], dict[str, int]]
"""A document's text sha, its chunks, chunk texts by sha and their tokens by sha (counted while planning)."""


def plan_key(model_id: str) -> str:
    """What a kept chunk plan depends on besides the document: the model (and window), and the chunker."""
    return f"{model_id}|chunks-v{CHUNKING_VERSION}"


def drain(catalog: Catalog, embedder: Embedder, settings: Settings, *, debounce: float | Callable[[], float] = 0.0,
          progress: Callable[[DrainProgress], None] | None = None,
          should_stop: Callable[[], bool] | None = None, report: DrainReport | None = None,
          vault: Vault | None = None) -> DrainReport:
    """Embed every due document that has been quiet for `debounce` seconds.

    Every due document's document vector first, then the section vectors: on a big first
    index, ranking is semantic after one text per document instead of after all of them.
    `debounce` may be a function, asked before each batch: the worker drops it to zero when
    a flush asks for everything now. `report`, if given, is added to as each batch lands.
    `vault` defaults to the caller's (`settings`). Raises IndexReplaced (see the module).
    """
    keep = vault if vault is not None else Vault.default(settings)
    try:
        return _drain(catalog, _Kept(embedder, keep), debounce, progress, should_stop,
                      report if report is not None else DrainReport())
    finally:
        if vault is None:
            keep.close()


def _drain(catalog: Catalog, kept: _Kept, debounce: float | Callable[[], float],
           progress: Callable[[DrainProgress], None] | None, should_stop: Callable[[], bool] | None,
           report: DrainReport) -> DrainReport:
    embedder = kept.embedder
    state = DrainProgress(started=time.time())
    budget = window_budget(embedder.max_tokens)
    state.texts_due = catalog.vectors.waiting(embedder.model_id)[0]  # one document text each, at first
    if progress is not None and state.texts_due:
        progress(state)  # what is due, before the first slice takes its seconds
    plans: dict[int, SectionPlan] = {}  # sections planned in the first phase, keyed by document

    def stopped() -> bool:
        return should_stop is not None and should_stop()

    def advanced(count: int) -> None:
        state.texts_done += count
        if progress is not None:
            progress(state)

    def counted(texts: dict[str, str], tokens: dict[str, int]) -> None:
        _embed_unknown(catalog, kept, texts, report, advanced, tokens)

    kept.seed(catalog)
    while not stopped():
        catalog.check_current()
        quiet = debounce() if callable(debounce) else debounce
        settled = time.time() - quiet if quiet > 0 else None
        jobs = catalog.vectors.dirty_jobs(embedder.model_id, settled_before=settled, limit=BATCH_DOCUMENTS)
        if jobs:
            # A new edit's document vector goes before any section still due.
            state.phase = "documents"
            jobs = kept.restore(catalog, jobs, report)
            if jobs:
                _document_vectors(catalog, embedder, jobs, budget, plans, state, counted)
            continue
        jobs = catalog.vectors.section_jobs(embedder.model_id, limit=BATCH_DOCUMENTS)
        if not jobs:
            break
        state.phase = "sections"
        # A job whose text changed while it was embedded stays dirty and comes back next round.
        jobs = kept.restore(catalog, jobs, report)
        if jobs:
            _section_vectors(catalog, kept, jobs, budget, plans, state, report, counted)
    state.phase = "references"
    _drain_references(catalog, kept, report, stopped)
    catalog.check_current()  # the last slice landed in the file that is the index now, or the caller hears
    return report


def restore_due(catalog: Catalog, model_id: str, vault: Vault, due_for: str | None = None) -> DrainReport:
    """Give every due document whose plan and vectors are kept its vectors back, with no model at all.

    `due_for` is the store's model when `model_id` is an earlier build of it (adr-5b1e0c7d2a94):
    then a document due its document vector gets the earlier build's to answer with until the drain
    makes it again, and one that already has the store's model's keeps them.
    """
    report = DrainReport()
    kept = _Restorer(model_id, vault)
    listings = (catalog.vectors.dirty_jobs,) if due_for else (catalog.vectors.dirty_jobs, catalog.vectors.section_jobs)
    for listing in listings:
        # Listed once (SQLite's LIMIT -1: all), then restored a batch at a time: listing again after
        # each batch and skipping what could not be restored sorted and read the queue once per batch.
        jobs = listing(due_for or model_id, limit=-1, texts=False)  # by text hash: no body is read
        for start in range(0, len(jobs), BATCH_DOCUMENTS):
            kept.restore(catalog, jobs[start : start + BATCH_DOCUMENTS], report)
    return report


class _Restorer:
    """Vectors and chunk plans back from the vault into the index, for one model."""

    def __init__(self, model_id: str, vault: Vault) -> None:
        self.model_id = model_id
        self.vault = vault
        self.key = plan_key(model_id)

    def seed(self, catalog: Catalog) -> None:
        """Copy what an index made before the vault held it into the vault, once per index and vault."""
        model_id = self.model_id
        marker = f"vault_seeded:{self.vault.path}:{self.key}"
        if self.vault.path is None or catalog.vectors.setting(marker) is not None or not self.vault.usable():
            return
        for items in catalog.vectors.all_vectors(model_id):
            self.vault.put_vectors(model_id, items)
        self.vault.put_plans(self.key, ((doc_sha, VectorPlan(vector_sha, tuple(chunks)))
                                        for doc_sha, vector_sha, chunks in catalog.vectors.current_plans(model_id)))
        if self.vault.off is None:
            with catalog.transaction():
                catalog.vectors.set_setting(marker, "1")

    def restore(self, catalog: Catalog, jobs: list[EmbedJob], report: DrainReport) -> list[EmbedJob]:
        """Write back every job whose chunk plan and vectors are kept; return the others, for the model."""
        model_id = self.model_id
        plans = self.vault.plans(self.key, (job.text_sha for job in jobs))
        if not plans:
            return jobs
        shared = {job.rowid: shared_chunks(catalog, job.rowid, plans[job.text_sha].chunks)
                  for job in jobs if job.text_sha in plans}
        wanted = {rowid: _vector_shas(plans[sha].vector_sha, plans[sha].chunks, shared[rowid])
                  for rowid, sha in ((job.rowid, job.text_sha) for job in jobs) if sha in plans}
        needed = set().union(*wanted.values())
        held = catalog.vectors.cached(needed, model_id)
        found = self.vault.vectors(model_id, needed - held)
        ready = [job for job in jobs if job.rowid in wanted and wanted[job.rowid] <= held | found.keys()]
        if not ready:
            return jobs
        catalog.check_current()
        with catalog.transaction():
            catalog.vectors.store(model_id, found.items())
            for job in ready:
                plan = plans[job.text_sha]
                written = catalog.vectors.write_embedding(job, model_id, plan.vector_sha, list(plan.chunks),
                                                          shared[job.rowid])
                report.documents += int(written)
        report.texts_reused += len(found)
        report.texts_restored += len(found)
        done = {job.rowid for job in ready}
        return [job for job in jobs if job.rowid not in done]


class _Kept(_Restorer):
    """The drain's embedder and vault together: what is embedded is kept, what is kept is not embedded."""

    def __init__(self, embedder: Embedder, vault: Vault) -> None:
        super().__init__(embedder.model_id, vault)
        self.embedder = embedder


def shared_chunks(catalog: Catalog, rowid: int, chunks: Iterable[ChunkVector | Chunk]) -> set[int]:
    """The ordinals of the chunks that get no vector: their section's body is said word for word by
    another document of the store (adr-5d1c0a7e94b2). Plans keep them, in the index and the vault
    alike, so a plan stays what the document alone makes; this is asked each time rows are written."""
    spans = catalog.docs.shared_spans(rowid)
    return {c.ordinal for c in chunks if any(start <= c.start < end for start, end in spans)} if spans else set()


def _chunk_shas(chunks: Iterable[ChunkVector], shared: set[int]) -> set[str]:
    """The texts of a document's chunks that get a vector: all but the shared ones."""
    return {c.vector_sha for c in chunks if c.ordinal not in shared}


def _vector_shas(doc_sha: str, chunks: Iterable[ChunkVector], shared: set[int]) -> set[str]:
    """The texts a document's vectors are made of: its own and its chunks', less the shared ones."""
    return {doc_sha} | _chunk_shas(chunks, shared)


def _plan(job: EmbedJob, embedder: Embedder, budget: int) -> SectionPlan:
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
                      plans: dict[int, SectionPlan], state: DrainProgress,
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
    section_texts = {sha: plans[job.rowid][2][sha] for job in jobs for sha in _chunk_shas(
        plans[job.rowid][1], shared_chunks(catalog, job.rowid, plans[job.rowid][1]))}
    known = catalog.vectors.cached(section_texts, embedder.model_id)
    state.texts_due += sum(1 for sha in section_texts if sha not in known and sha not in texts)
    state.texts_due -= len(catalog.vectors.cached(texts, embedder.model_id))  # reused: no model time
    embed(texts, {})  # document texts are mostly longer than the window: their sort key is counted on a prefix
    with catalog.transaction():
        for job, doc_sha in zip(jobs, shas, strict=True):
            catalog.vectors.write_document_vector(job, embedder.model_id, doc_sha)


def _section_vectors(catalog: Catalog, kept: _Kept, jobs: list[EmbedJob], budget: int,
                     plans: dict[int, SectionPlan], state: DrainProgress, report: DrainReport,
                     embed: Callable[[dict[str, str], dict[str, int]], None]) -> None:
    embedder = kept.embedder
    texts: dict[str, str] = {}
    tokens: dict[str, int] = {}
    planned: list[tuple[EmbedJob, str, list[ChunkVector], set[int]]] = []
    fresh: dict[str, str] = {}
    for job in jobs:
        earlier = plans.pop(job.rowid, None)
        # Planned by an earlier drain (not in `plans`), or its text changed since: planned again.
        plan = earlier if earlier is not None and earlier[0] == job.text_sha else _plan(job, embedder, budget)
        replanned = plan is not earlier
        shared = shared_chunks(catalog, job.rowid, plan[1])
        due = {sha: plan[2][sha] for sha in _chunk_shas(plan[1], shared)}
        if replanned:
            fresh.update(due)
        texts.update(due)
        tokens.update(plan[3])
        doc_sha = text_sha(embedded_text(job.title, job.description, job.body))
        planned.append((job, doc_sha, plan[1], shared))
    if fresh:
        state.texts_due += len(fresh) - len(catalog.vectors.cached(fresh, embedder.model_id))
    embed(texts, tokens)
    catalog.check_current()
    written = []
    with catalog.transaction():
        for job, doc_sha, chunks, shared in planned:
            if catalog.vectors.write_embedding(job, embedder.model_id, doc_sha, chunks, shared):
                report.documents += 1
                written.append((job, doc_sha, chunks))
    kept.vault.put_plans(kept.key, [(job.text_sha, VectorPlan(doc_sha, tuple(chunks)))
                                    for job, doc_sha, chunks in written])


def _drain_references(catalog: Catalog, kept: _Kept, report: DrainReport,
                      stopped: Callable[[], bool]) -> None:
    """Reference chunks: their text is stored whole, so only unknown texts reach the model."""
    while not stopped():
        jobs = catalog.refs.jobs(kept.embedder.model_id)
        if not jobs:
            return
        _embed_unknown(catalog, kept, {sha: text for _, sha, text in jobs}, report)
        catalog.check_current()
        with catalog.transaction():
            catalog.refs.mark_embedded([(rowid, sha) for rowid, sha, _ in jobs], kept.embedder.model_id)


def _embed_unknown(catalog: Catalog, kept: _Kept, texts: dict[str, str], report: DrainReport,
                   done: Callable[[int], None] | None = None, tokens: dict[str, int] | None = None) -> None:
    """Embed only the texts (by sha256) this model has never embedded, fewest tokens first, and store them.

    A text the index lacks but the vault holds is copied from the vault. `tokens` holds the counts
    already known (from chunk planning); the rest are counted here. In slices of EMBED_SLICE texts,
    each kept in the vault and stored in the index as it comes: progress moves every few seconds,
    and a drain stopped, killed or cut off from its index midway keeps what it computed.
    """
    embedder = kept.embedder
    model_id = embedder.model_id
    known = catalog.vectors.cached(texts, model_id)
    found = kept.vault.vectors(model_id, (sha for sha in texts if sha not in known))
    if found:
        catalog.check_current()
        with catalog.transaction():
            catalog.vectors.store(model_id, found.items())
        report.texts_restored += len(found)
    counts = tokens or {}
    keys = {sha: _tokens_read(embedder, texts[sha], counts.get(sha)) for sha in texts
            if sha not in known and sha not in found}
    missing = sorted(keys, key=keys.__getitem__)
    report.texts_reused += len(texts) - len(missing)
    for start in range(0, len(missing), EMBED_SLICE):
        part = missing[start : start + EMBED_SLICE]
        vectors = embedder.embed([texts[sha] for sha in part])
        report.texts_embedded += len(part)
        items = list(zip(part, (pack(v) for v in vectors), strict=True))
        kept.vault.put_vectors(model_id, items)  # first: this survives whatever the index meets
        catalog.check_current()
        with catalog.transaction():
            catalog.vectors.store(model_id, items)
        if done is not None:
            done(len(part))


def _tokens_read(embedder: Embedder, text: str, counted: int | None) -> int:
    """How many tokens the model reads of `text`: the window at most, so a long text is counted on a prefix."""
    window = embedder.max_tokens
    if counted is None:
        counted = embedder.count_tokens(text[: window * CHARS_PER_TOKEN_CAP])
    return min(counted, window)
