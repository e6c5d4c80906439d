"""Where a read command gets its query vectors: the warm worker, a model loaded here, or nowhere.

A missing model never fails a read: the source says "off: <reason>" and
ranking goes on lexically.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, TypedDict

from docir.embed.protocol import Embedder, Vectors
from docir.embed.resolve import resolve
from docir.errors import DocirError
from docir.index.db import IndexReplaced
from docir.services.indexing.session import Session
from docir.worker import client, paths

DrainFn = Callable[[Embedder], "FlushReport"]


class QuerySource(Protocol):
    @property
    def status(self) -> str:
        """"on" or "off: <reason>"."""
        ...

    @property
    def model_id(self) -> str | None: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


@dataclass
class LocalModel:
    """A model held in this process (the worker's, or one loaded for a single command)."""

    embedder: Embedder

    @property
    def status(self) -> str:
        return "on"

    @property
    def model_id(self) -> str | None:
        return self.embedder.model_id

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self.embedder.embed(texts)


@dataclass
class NoModel:
    reason: str

    @property
    def status(self) -> str:
        return f"off: {self.reason}"

    @property
    def model_id(self) -> str | None:
        return None

    def embed(self, texts: Sequence[str]) -> Vectors:
        raise RuntimeError("no embedding model")


_PROCESS_MODEL: Embedder | None = None
_PROCESS_DRAINS = False  # True in the worker, whose own thread computes scheduled vectors
# In the worker: ask its drain thread for everything due now, and wait (the only drainer there);
# and how far the drain running now has come.
_PROCESS_FLUSH: Callable[[], FlushReport] | None = None
_PROCESS_DRAIN_STATUS: Callable[[], DrainStatus | None] | None = None


def register_process_model(embedder: Embedder, *, drains: bool = False,
                           flush: Callable[[], FlushReport] | None = None,
                           drain_status: Callable[[], DrainStatus | None] | None = None) -> None:
    """In a long-lived process (the worker, the MCP server): commands use the model it holds."""
    global _PROCESS_MODEL, _PROCESS_DRAINS, _PROCESS_FLUSH, _PROCESS_DRAIN_STATUS
    _PROCESS_MODEL = embedder
    _PROCESS_DRAINS = drains
    _PROCESS_FLUSH = flush
    _PROCESS_DRAIN_STATUS = drain_status


def drain_status(store_root: Path) -> DrainStatus | None:
    """How far the store's running drain has come (texts done, due, rate, time left), if one runs."""
    if _PROCESS_DRAIN_STATUS is not None:
        return _PROCESS_DRAIN_STATUS()
    if not client.enabled() or _worker_model(store_root) is None:
        return None
    reply = client.request(store_root, {"cmd": "status"})
    found = (reply or {}).get("drain")
    return found if isinstance(found, dict) else None  # type: ignore[return-value]


def _worker_model(store_root: Path) -> str | None:
    """The model of a live warm worker for this store, if one runs and has a model."""
    status = paths.read_status(store_root)
    if status is None or not status.get("model") or not paths.pid_alive(int(status.get("pid", 0))):
        return None
    return str(status["model"])


@dataclass
class WorkerModel:
    """The warm worker's model, reached over its socket: milliseconds per query."""

    root: Path
    model: str
    schema_model_path: str | None = None

    @property
    def status(self) -> str:
        return "on"

    @property
    def model_id(self) -> str | None:
        return self.model

    def embed(self, texts: Sequence[str]) -> Vectors:
        reply = client.request(self.root, {"cmd": "embed", "texts": list(texts)}, timeout=2.0)
        if reply is None or "vectors" not in reply:
            # The worker went away between the status check and the call: do it here instead.
            local = load_local(self.schema_model_path, self.root)
            if local.model_id != self.model:
                raise WorkerGone(str((reply or {}).get("error", "the worker did not answer")))
            return local.embed(texts)
        import numpy as np

        data = base64.b64decode(reply["vectors"])
        return np.frombuffer(data, dtype="<f4").reshape(len(texts), int(reply["dim"])).astype(np.float32)


class WorkerGone(Exception):
    pass


def query_source(schema_model_path: str | None, store_root: Path) -> QuerySource:
    """The cheapest way to embed a query here: the process's own model, the warm worker, or a
    model loaded for this one command (starting a worker in the background for the next)."""
    if _PROCESS_MODEL is not None:
        return LocalModel(_PROCESS_MODEL)
    if client.enabled():
        model = _worker_model(store_root)
        if model is not None:
            return WorkerModel(store_root, model, schema_model_path)
        ensure_worker(store_root)
    return load_local(schema_model_path, store_root)


def load_local(schema_model_path: str | None, store_root: Path) -> QuerySource:
    """Load the model into this process (about a second), or say why there is none."""
    choice = resolve(schema_model_path, store_root)
    if not choice.available:
        return NoModel(choice.source.removeprefix("off: "))
    from docir.embed.load import load_embedder

    try:
        return LocalModel(load_embedder(choice))
    except Exception as exc:  # a broken model folder must not break a read
        return NoModel(f"model at {choice.path} failed to load ({exc})")


def ensure_worker(store_root: Path) -> None:
    """Start the store's worker in the background if none runs, so scheduled vectors get made."""
    if _PROCESS_DRAINS or not client.enabled():
        return
    status = paths.read_status(store_root)
    if status is None or not paths.pid_alive(int(status.get("pid", 0))):
        client.spawn(store_root)


def flush(schema_model_path: str | None, store_root: Path, catalog_drain: DrainFn,
          progress: Progress | None = None) -> FlushReport:
    """Compute every due vector now: by the warm worker's drain when one runs, else in this process.

    Either way one drain does the work: inside the worker (which holds the model) `catalog_drain`
    asks its drain thread and waits (drain_due); elsewhere the store's drain lock keeps this
    drain from running beside another.
    """
    if _PROCESS_MODEL is None and client.enabled() and _worker_model(store_root) is not None:
        reply = _flush_in_worker(store_root, progress)
        if reply is not None and "error" not in reply:
            return flush_report(lambda count: int(reply[count]))
    source = LocalModel(_PROCESS_MODEL) if _PROCESS_MODEL is not None else load_local(schema_model_path, store_root)
    if not isinstance(source, LocalModel):
        raise ModelOff(source.status)
    return catalog_drain(source.embedder)


def _flush_in_worker(store_root: Path, progress: Progress | None) -> dict[str, Any] | None:
    """The worker's flush; meanwhile, its drain's progress every couple of seconds, if anyone watches."""
    if progress is None:
        return client.request(store_root, {"cmd": "flush"})
    import threading

    replies: list[dict[str, Any] | None] = []
    asking = threading.Thread(target=lambda: replies.append(client.request(store_root, {"cmd": "flush"})),
                              name="flush", daemon=True)
    asking.start()
    while asking.is_alive():
        asking.join(timeout=PROGRESS_SECONDS)
        found = drain_status(store_root) if asking.is_alive() else None
        if found is not None:
            progress(found)
    return replies[0] if replies else None


class ModelOff(Exception):
    pass


PROGRESS_SECONDS = 2.0  # how often a waiting flush shows the worker's progress


class DrainStatus(TypedDict):
    """A running drain, as `embed --status`, `worker status` and the progress bar show it."""

    texts_done: int  # texts through the model so far in this drain
    texts_due: int  # texts this drain must embed (grows while document vectors are planned)
    phase: str  # "documents", then "sections", then "references"
    rate: float  # texts per second so far
    eta_seconds: int | None  # time left at that rate


Progress = Callable[[DrainStatus], None]


class FlushReport(TypedDict):
    documents: int  # documents whose vectors were written
    texts_embedded: int  # texts that went through the model
    texts_reused: int  # texts whose vector was already stored (in the index or the vault)
    texts_restored: int  # of those, texts whose vector came back from the vector vault


def flush_report(count: Callable[[str], int]) -> FlushReport:
    """A flush's counts, each read by its name: from the worker's reply, a DrainReport or a difference
    of two (the one list of them)."""
    return {"documents": count("documents"), "texts_embedded": count("texts_embedded"),
            "texts_reused": count("texts_reused"), "texts_restored": count("texts_restored")}


def flush_session(session: Session, progress: Progress | None = None) -> FlushReport:
    """Compute every due vector of the session's store now; an error if there is no model."""

    def drain_here(embedder: Embedder) -> FlushReport:
        return drain_due(session, embedder, progress)

    try:
        return flush(session.schema.model_path, session.store.root, drain_here, progress)
    except ModelOff as exc:
        raise DocirError(f"cannot compute vectors: semantic layer is {exc}") from None


def drain_due(session: Session, embedder: Embedder, progress: Progress | None = None) -> FlushReport:
    """Everything due, with a model this process holds: by the worker's drain inside the worker, else here."""
    if _PROCESS_FLUSH is not None:
        try:
            return _PROCESS_FLUSH()
        except RuntimeError as exc:
            raise DocirError(str(exc)) from None
    from docir.services.vectors import embedding, transfer  # numpy: only when vectors are really computed

    shown = None if progress is None else (lambda state: progress(state.as_dict()))
    with embedding.drain_lock(session.store.state_dir):
        transfer.import_before_drain(session.catalog, session.store, embedder, session.warnings)
        report = embedding.drain(session.catalog, embedder, progress=shown)
    return flush_report(lambda count: int(getattr(report, count)))


def after_write(session: Session, wait: bool, warn: Callable[[str], None]) -> None:
    """A write scheduled vectors: wait for them (--wait-embeddings), or let the worker make them."""
    if not wait:
        ensure_worker(session.store.root)
        return
    try:
        flush_session(session)
        session.catalog.check_current()
    except DocirError as exc:
        warn(f"{exc.message}; the document is saved and found lexically")
    except IndexReplaced as exc:  # never raised on: the session would run the write a second time
        warn(f"{exc}; the document is saved; run 'docir embed --flush' for its vectors")
