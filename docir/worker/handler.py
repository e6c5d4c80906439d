"""What the warm worker does: hold the model, drain the embedding queue, answer requests.

The worker runs the same CLI entry point as a cold process (the command-server
pattern of chg and dmypy), so a warm call costs a socket round trip instead
of imports and a model load. Requests run side by side, each on its own
thread with its own SQLite connection; the client's folder, environment,
streams and terminal are handed to the command as an Invocation. The drain
runs in a background thread with its own connection.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import io
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from docir import cores
from docir.embed.protocol import Embedder, WrappedEmbedder
from docir.errors import EXIT_INTERRUPTED
from docir.index import changes
from docir.index.catalog import Catalog
from docir.index.db import IndexReplaced, open_index
from docir.invocation import Invocation
from docir.services.vectors import embedding, transfer
from docir.services.vectors.model_registry import register_process_model
from docir.services.vectors.query_cache import CachedQueries
from docir.services.vectors.reports import DrainStatus, FlushReport, flush_report
from docir.settings import Settings
from docir.store import Store
from docir.worker import identity, protocol

RunCli = Callable[[list[str], Invocation], int]  # docir.cli.main.main, handed over: nothing here imports the CLI


class _Captured(io.StringIO):
    """A stdout/stderr stand-in that answers isatty() and encoding as the client's stream would (rich draws
    ASCII boxes for a stream that is not UTF-8)."""

    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        super().__init__()
        self._tty = tty
        self._encoding = encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


class WarmWorker:
    """The model, the drain thread that alone computes this store's vectors, and the request handlers.

    A flush (`embed --flush`, `--wait-embeddings`, `lint --deep`, the `flush` request) never drains
    beside the drain thread: it asks the thread for a pass with no debounce and waits for it, so no
    text goes through the model twice.
    """

    def __init__(self, store: Store, settings: Settings, run_cli: RunCli, embedder: Embedder | None,
                 unavailable: str, debounce: float = embedding.DEBOUNCE_SECONDS) -> None:
        self.store = store
        self.settings = settings  # the worker's own: its drain's vault
        self.run_cli = run_cli
        self.embedder = embedder
        self.unavailable = unavailable
        self.debounce = debounce
        self.totals = embedding.DrainReport()  # everything this worker embedded, added to batch by batch
        self._gate = _ModelGate()
        self._wake = threading.Event()
        self._flushes = threading.Condition()
        self._flush_asked = 0  # flushes asked for so far
        self._flush_done = 0  # the flushes a finished pass has answered
        self._flush_error = ""  # why the last pass failed, for the flushes it answers
        self._draining = False
        self._progress: embedding.DrainProgress | None = None
        self._due = 0
        self._drained: changes.Stamp | None = None  # the index as the last finished pass began on it
        self._stopping = False
        self.started = time.time()
        self._queries: CachedQueries | None = None  # repeated queries are embedded once
        if embedder is not None:
            self._due = self._count_due()
            self._queries = CachedQueries(_Locked(embedder, self._gate, query=True))
            register_process_model(self._queries, drains=True,
                                   flush=self.flush_and_wait, drain_status=self.drain_status)
            self._thread = threading.Thread(target=self._drain_loop, name="drain", daemon=True)
            self._thread.start()

    # --- requests -----------------------------------------------------------------------

    def cmd_status(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.embedder is not None:
            self._due = self._count_due()
        return {
            "pid": os.getpid(),
            "version": identity.VERSION,
            "model": self.embedder.model_id if self.embedder else None,
            "semantic": "on" if self.embedder else f"off: {self.unavailable}",
            "due": self._due,
            "documents_embedded": self.totals.documents,
            "texts_embedded": self.totals.texts_embedded,
            "drain": self.drain_status(),
            "uptime": round(time.time() - self.started, 1),
        }

    def cmd_embed(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.embedder is None or self._queries is None:
            return {"error": f"semantic layer off: {self.unavailable}"}
        vectors = self._queries.embed([str(t) for t in request.get("texts", [])])
        return {"model_id": self.embedder.model_id, "dim": int(vectors.shape[1]),
                "vectors": base64.b64encode(np.ascontiguousarray(vectors, dtype="<f4").tobytes()).decode("ascii")}

    def cmd_run(self, request: dict[str, Any]) -> dict[str, Any]:
        before = changes.current(self.store.index_path)
        reply = run_captured(self.run_cli, request, self.settings.env, str(self.store.root))
        # A write may have scheduled vectors; a read committed nothing, and a pass of the drain thread
        # beside the next request only competes with it (index/changes.py).
        if before is None or changes.current(self.store.index_path) != before:
            self._wake.set()
        return reply

    def cmd_flush(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.embedder is None:
            return {"error": f"semantic layer off: {self.unavailable}"}
        cancelled = request.get("_cancelled")
        try:
            return dict(self.flush_and_wait(cancelled.is_set if isinstance(cancelled, threading.Event) else None))
        except RuntimeError as exc:
            return {"error": str(exc)}

    def cmd_stop(self, request: dict[str, Any]) -> dict[str, Any]:
        self._stopping = True
        return {"stopped": True, "pid": os.getpid()}

    def busy(self) -> bool:
        return self._draining or self._due > 0

    def close(self) -> None:
        # Join the drain thread: exiting while it is inside ONNX Runtime aborts the process.
        self._stopping = True
        self._wake.set()
        with self._flushes:
            self._flushes.notify_all()
        if self.embedder is not None:
            self._thread.join(timeout=60)
        changes.forget()  # the last connection to close checkpoints the WAL into the index

    def flush_and_wait(self, gone: Callable[[], bool] | None = None) -> FlushReport:
        """Wake the drain with no debounce and wait until a pass that began after this call ends.

        The report counts what the drain did meanwhile, whoever asked for it. Raises
        RuntimeError if that pass failed or the worker is stopping; returns early, with
        what was done so far, once `gone` says whoever asked has gone.
        """
        with self._flushes:
            self._flush_asked += 1
            mine = self._flush_asked
            before = dataclasses.replace(self.totals)
            self._wake.set()
            while self._flush_done < mine and not (gone is not None and gone()):
                if self._stopping:
                    raise RuntimeError("the worker is stopping; the rest stays queued for the next one")
                self._flushes.wait(timeout=0.2)
            if self._flush_done >= mine and self._flush_error:
                raise RuntimeError(self._flush_error)
        return flush_report(lambda count: int(getattr(self.totals, count)) - int(getattr(before, count)))

    # --- the drain ----------------------------------------------------------------------

    def _count_due(self) -> int:
        assert self.embedder is not None
        if not self.store.index_path.is_file():
            return 0  # opening it would make an empty one, and hide from the server that it is gone
        conn = open_index(self.store.index_path)
        try:
            return Catalog(conn, self.store.index_path).vectors.queue_counts(self.embedder.model_id)[0]
        finally:
            conn.close()

    def _flush_pending(self) -> bool:
        return self._flush_asked > self._flush_done

    def _debounce(self) -> float:
        return 0.0 if self._flush_pending() else self.debounce

    def _drain_loop(self) -> None:
        while not self._stopping:
            with self._flushes:
                answering = self._flush_asked  # a pass answers the flushes asked before it began
            error = ""
            try:
                # Nothing due and no commit since the last pass began: a pass would find nothing to do.
                now = changes.current(self.store.index_path)
                if now is None or now != self._drained or self._due or self._flush_pending():
                    self._drain()
                    self._drained = now
            except Exception as exc:  # keep the worker alive; the rows stay dirty for next time
                error = f"computing vectors failed: {exc!r}"
                os.write(2, f"drain failed: {exc!r}\n".encode())  # fd 2 is the log; sys.stderr is a client's
            with self._flushes:
                self._flush_done = max(self._flush_done, answering)
                self._flush_error = error
                self._flushes.notify_all()
                if self._flush_pending():
                    continue  # a flush asked during this pass: run the next one at once
            self._wake.wait(timeout=0.5)
            self._wake.clear()

    def _drain(self) -> None:
        """Drain into the index that is there; when a rebuild or a move replaces it midway, go on in the
        new one (what was computed is in the vault, so it costs no model time), a few times at most."""
        for _ in range(REPLACED_RETRIES):
            try:
                self._drain_once()
                return
            except IndexReplaced as exc:
                os.write(2, f"{exc}; draining into the index there now\n".encode())
                if not self.store.index_path.is_file():
                    raise RuntimeError(f"{exc}: no index is there now; what was computed is kept in the vector "
                                       "vault, and the next command that builds the index gets it back") from None
        raise RuntimeError(f"the index was replaced {REPLACED_RETRIES} times while vectors were computed; "
                           "run the command again")

    def _drain_once(self) -> None:
        assert self.embedder is not None
        if not self.store.index_path.is_file():
            return  # deleted: the server sees it gone and exits; a command run here rebuilds it first
        conn = open_index(self.store.index_path)
        try:
            catalog = Catalog(conn, self.store.index_path)
            self._draining = True

            def progress(state: embedding.DrainProgress) -> None:  # status shows a long drain as it goes
                self._progress = state

            with embedding.drain_lock(self.store.state_dir):
                notes: list[str] = []
                transfer.import_before_drain(catalog, self.store, self.embedder, self.settings, notes)
                for note in notes:
                    os.write(2, f"{note}\n".encode())  # fd 2 is the log
                embedding.drain(catalog, _Locked(self.embedder, self._gate, query=False), self.settings,
                                debounce=self._debounce,
                                progress=progress, should_stop=lambda: self._stopping, report=self.totals)
            self._due = catalog.vectors.queue_counts(self.embedder.model_id)[0]
        finally:
            self._draining = False
            self._progress = None
            conn.close()

    def drain_status(self) -> DrainStatus | None:
        """The running drain's texts done and due, rate and time left; None while none embeds."""
        state = self._progress
        return None if state is None else state.as_dict()


class _ModelGate:
    """Who may run the model next: a waiting query always goes before the drain's next slice.

    A plain lock is not fair: the drain thread releases it and takes it again at once, and a
    query thread waiting for it may lose that race slice after slice (seconds, on a busy machine).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._turns = threading.Condition()
        self._queries = 0  # queries waiting for, or holding, the model

    @contextlib.contextmanager
    def query(self) -> Iterator[None]:
        with self._turns:
            self._queries += 1
        try:
            with self._lock:
                yield
        finally:
            with self._turns:
                self._queries -= 1
                self._turns.notify_all()

    @contextlib.contextmanager
    def background(self) -> Iterator[None]:
        with self._turns:
            self._turns.wait_for(lambda: self._queries == 0, timeout=QUERY_TURN_SECONDS)
        with self._lock:
            yield


QUERY_TURN_SECONDS = 5.0  # the drain waits at most this long for queries to go first, then takes its turn
REPLACED_RETRIES = 3  # drains in a row that may find their index replaced before a flush gives up


class _Locked(WrappedEmbedder):
    """The embedder behind the gate, the drain's texts in small slices, so a query waits for one slice at most."""

    # Per usable core: the embedder runs a slice's texts side by side, a core each (onnx_model.py), so a
    # slice takes about as long on any number of cores, and every core has some of it.
    SUB_BATCH = 8
    SUB_BATCH_CHARS = 1024  # about 250 tokens, the most a text is read for: 0.1 s of a core's model time

    def __init__(self, embedder: Embedder, gate: _ModelGate, *, query: bool) -> None:
        super().__init__(embedder)
        self._gate = gate
        self._query = query
        self._cores = cores.usable()

    def embed(self, texts: Any) -> Any:
        texts = list(texts)
        if self._query:
            with self._gate.query():
                return self._inner.embed(texts)
        parts = []
        for part in _slices(texts, self._cores):
            with self._gate.background():
                parts.append(self._inner.embed(part))
        if not parts:
            return self._inner.embed([])
        return np.vstack(parts)


def _slices(texts: list[str], runs: int) -> Iterator[list[str]]:
    """Consecutive runs of at most SUB_BATCH texts and about SUB_BATCH_CHARS characters for each of `runs`
    cores, a text counted at most SUB_BATCH_CHARS (the model reads no further than its window, so a long
    text costs what one at the window costs)."""
    most, each = _Locked.SUB_BATCH * runs, _Locked.SUB_BATCH_CHARS
    part: list[str] = []
    size = 0
    for text in texts:
        chars = min(len(text), each)
        if part and (len(part) >= most or size + chars > each * runs):
            yield part
            part, size = [], 0
        part.append(text)
        size += chars
    if part:
        yield part


def run_captured(run_cli: RunCli, request: dict[str, Any], own_env: Mapping[str, str],
                 home: str) -> dict[str, Any]:
    """Run one CLI command in this process as if in the caller's terminal; return its output and exit code.

    `request` carries argv, cwd, env (DOCIR_*), stdin, whether stdout/stderr are terminals, their
    encodings and the sizes of the client's terminals. The command is handed them as its Invocation,
    never by changing the process's own folder, environment or streams, so commands run side by side
    on their own threads; nothing below the command line reads the process's own (adr-3c5e7a90b1d4).
    Its environment is the worker's (`own_env`) with the client's forwarded names over it.
    """
    out = _Captured(bool(request.get("stdout_tty")), str(request.get("stdout_encoding") or "utf-8"))
    err = _Captured(bool(request.get("stderr_tty")), str(request.get("stderr_encoding") or "utf-8"))
    sent = {str(k): str(v) for k, v in dict(request.get("env", {})).items() if protocol.is_forwarded(str(k))}
    env = {**{k: v for k, v in own_env.items() if not protocol.is_forwarded(k)}, **sent}
    terminal = tuple((int(fd), int(columns), int(lines)) for fd, columns, lines in request.get("terminal", []))
    cancelled = request.get("_cancelled")
    gone = cancelled if isinstance(cancelled, threading.Event) else threading.Event()
    invocation = Invocation(str(request.get("cwd") or home), env, io.StringIO(str(request.get("stdin", ""))), out, err,
                            terminal=tuple(sorted(terminal)), cancelled=gone)
    if gone.is_set():
        return {"stdout": "", "stderr": "", "exit": EXIT_INTERRUPTED}
    try:
        code = run_cli([str(a) for a in request.get("argv", [])], invocation)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "exit": code}
