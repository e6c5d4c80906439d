"""Computing every due vector now (`embed --flush`, `--wait-embeddings`, `lint --deep`), and what a
write does about the vectors it scheduled.

One drain does the work either way: the warm worker's when one runs (asked over its socket, or,
inside the worker, its drain thread), else one in this process under the store's drain lock.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

from docir.embed.protocol import Embedder
from docir.errors import DocirError
from docir.index.db import IndexReplaced
from docir.services.indexing.caller import Caller, WorkerLink
from docir.services.indexing.session import Session
from docir.services.vectors.drainer import drain_status, ensure_worker
from docir.services.vectors.model_registry import held_model
from docir.services.vectors.query_source import LocalModel, load_local
from docir.services.vectors.reports import FlushReport, Progress, flush_report, stage

DrainFn = Callable[[Embedder], FlushReport]
PROGRESS_SECONDS = 2.0  # how often a waiting flush shows the worker's progress
HANDSHAKE_SECONDS = 0.5  # a worker that has not said "ready" within this long is too busy: flush here


class ModelOff(Exception):
    pass


def flush(caller: Caller, schema_model_path: str | None, store_root: Path, catalog_drain: DrainFn,
          progress: Progress | None = None) -> FlushReport:
    """Compute every due vector now: by the warm worker's drain when one runs, else in this process.

    Either way one drain does the work: inside the worker (which holds the model) `catalog_drain`
    asks its drain thread and waits (drain_due); elsewhere the store's drain lock keeps this
    drain from running beside another.
    """
    held, worker = held_model(), caller.worker
    if held is None and worker is not None and worker.model(store_root) is not None:
        if progress is not None:
            progress(stage("asking the warm worker"))
        reply = _flush_in_worker(caller, worker, store_root, progress)
        if reply is not None and "error" not in reply:
            return flush_report(lambda count: int(reply[count]))
    if held is None and progress is not None:
        progress(stage("loading the model"))
    source = LocalModel(held.embedder) if held is not None else load_local(caller, schema_model_path, store_root)
    if not isinstance(source, LocalModel):
        raise ModelOff(source.status)
    return catalog_drain(source.embedder)


def _flush_in_worker(caller: Caller, worker: WorkerLink, store_root: Path,
                     progress: Progress | None) -> dict[str, Any] | None:
    """The worker's flush; meanwhile, its drain's progress every couple of seconds, if anyone watches."""
    if progress is None:
        return worker.request(store_root, {"cmd": "flush"}, HANDSHAKE_SECONDS)
    replies: list[dict[str, Any] | None] = []
    asking = threading.Thread(
        target=lambda: replies.append(worker.request(store_root, {"cmd": "flush"}, HANDSHAKE_SECONDS)),
        name="flush", daemon=True)
    asking.start()
    while asking.is_alive():
        asking.join(timeout=PROGRESS_SECONDS)
        found = drain_status(caller, store_root) if asking.is_alive() else None
        if found is not None:
            progress(found)
    return replies[0] if replies else None


def flush_session(session: Session, progress: Progress | None = None) -> FlushReport:
    """Compute every due vector of the session's store now; an error if there is no model."""

    def drain_here(embedder: Embedder) -> FlushReport:
        return drain_due(session, embedder, progress)

    try:
        return flush(session.caller, session.schema.model_path, session.store.root, drain_here, progress)
    except ModelOff as exc:
        raise DocirError(f"cannot compute vectors: semantic layer is {exc}") from None


def drain_due(session: Session, embedder: Embedder, progress: Progress | None = None) -> FlushReport:
    """Everything due, with a model this process holds: by the worker's drain inside the worker, else here."""
    held = held_model()
    if held is not None and held.flush is not None:
        try:
            return held.flush(session.caller.gone)
        except RuntimeError as exc:
            raise DocirError(str(exc)) from None
    from docir.services.vectors import embedding, transfer  # numpy: only when vectors are really computed

    shown = None if progress is None else (lambda state: progress(state.as_dict()))
    with embedding.drain_lock(session.store.state_dir):
        settings = session.caller.settings
        transfer.import_before_drain(session.catalog, session.store, embedder, settings, session.warnings)
        report = embedding.drain(session.catalog, embedder, settings, progress=shown)
    return flush_report(lambda count: int(getattr(report, count)))


def after_write(session: Session, wait: bool, warn: Callable[[str], None]) -> None:
    """A write scheduled vectors: wait for them (--wait-embeddings), or let the worker make them."""
    if not wait:
        ensure_worker(session.caller, session.store.root)
        return
    try:
        flush_session(session)
        session.catalog.check_current()
    except DocirError as exc:
        warn(f"{exc.message}; the document is saved and found lexically")
    except IndexReplaced as exc:  # never raised on: the session would run the write a second time
        warn(f"{exc}; the document is saved; run 'docir embed --flush' for its vectors")

