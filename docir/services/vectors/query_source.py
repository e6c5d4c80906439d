"""Where a read command gets its query vectors: the process's own model, the warm worker, a model
loaded here, or nowhere.

A missing model never fails a read: the source says "off: <reason>" and
ranking goes on lexically.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from docir import background
from docir.embed.protocol import Embedder, Vectors
from docir.embed.resolve import ModelChoice, resolve
from docir.services.indexing.caller import Caller, WorkerLink
from docir.services.vectors.model_registry import held_model


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


@dataclass
class WorkerModel:
    """The warm worker's model, reached over its socket: no model load in this process."""

    root: Path
    model: str
    worker: WorkerLink
    caller: Caller
    schema_model_path: str | None = None

    @property
    def status(self) -> str:
        return "on"

    @property
    def model_id(self) -> str | None:
        return self.model

    def embed(self, texts: Sequence[str]) -> Vectors:
        reply = self.worker.request(self.root, {"cmd": "embed", "texts": list(texts)}, 2.0)
        if reply is None or "vectors" not in reply:
            # The worker went away between the status check and the call: do it here instead.
            local = load_local(self.caller, self.schema_model_path, self.root)
            if local.model_id != self.model:
                raise WorkerGone(str((reply or {}).get("error", "the worker did not answer")))
            return local.embed(texts)
        import numpy as np

        data = base64.b64decode(reply["vectors"])
        return np.frombuffer(data, dtype="<f4").reshape(len(texts), int(reply["dim"])).astype(np.float32)


class WorkerGone(Exception):
    pass


class ModelFailed(Exception):
    """A model a command loads beside its reading (LoadingModel) did not load; its status says why."""


class LoadingModel:
    """A one-shot command's model, loading on a thread of its own while the command reads its index
    (adr-b2e4ea87c5b3).

    Loading takes most of a cold `context` (the runtime, the session, the tokenizer) and lets go of
    the GIL for most of it, so the index is opened, walked and ranked by its words meanwhile. The id
    is the choice's, known at once; `embed` and `status` wait for the load. A load that fails is no
    error of the command: `embed` raises ModelFailed, which the ranking takes for no vectors, and the
    status says "off: why", as NoModel's does.
    """

    def __init__(self, choice: ModelChoice) -> None:
        self._choice = choice
        _UNFINISHED.begin()
        self._loaded = background.start(_UNFINISHED.load, choice, limit=None)

    @property
    def status(self) -> str:
        loaded = self._loaded()
        return f"off: {loaded}" if isinstance(loaded, str) else "on"

    @property
    def model_id(self) -> str | None:
        return self._choice.model_id

    def embed(self, texts: Sequence[str]) -> Vectors:
        loaded = self._loaded()
        if isinstance(loaded, str):
            raise ModelFailed(loaded)
        return loaded.embed(texts)


class _Unfinished:
    """The loads still running in this process. A command that ends before it embeds waits for them at
    exit: the runtime must not be torn down under a session it is still building. Only a count is kept,
    never a loaded model: a long-lived process that runs many one-shot commands (a test session, a
    script calling `main`) lets each command's model go with the command."""

    def __init__(self) -> None:
        self._running = 0
        self._changed = threading.Condition()
        self._waiting = False

    def begin(self) -> None:
        with self._changed:
            self._running += 1
            if not self._waiting:
                import atexit

                atexit.register(self.wait)
                self._waiting = True

    def load(self, choice: ModelChoice) -> Embedder | str:
        try:
            return _load(choice)
        finally:
            with self._changed:
                self._running -= 1
                self._changed.notify_all()

    def wait(self) -> None:
        with self._changed:
            while self._running:
                self._changed.wait()


_UNFINISHED = _Unfinished()


def _load(choice: ModelChoice) -> Embedder | str:
    """The model, or why it did not load (a broken model folder must not break a read)."""
    from docir.embed.load import load_embedder

    try:
        return load_embedder(choice)
    except Exception as exc:
        return f"model at {choice.path} failed to load ({exc})"


def query_source(caller: Caller, schema_model_path: str | None, store_root: Path, *,
                 beside: bool = False) -> QuerySource:
    """The cheapest way to embed a query here: the process's own model, the warm worker, or a
    model loaded for this one command (starting a worker in the background for the next); see
    load_local for `beside`."""
    held = held_model()
    if held is not None:
        return LocalModel(held.embedder)
    worker = caller.worker
    if worker is not None:
        model = worker.model(store_root)
        if model is not None:
            return WorkerModel(store_root, model, worker, caller, schema_model_path)
        worker.start(store_root)
    return load_local(caller, schema_model_path, store_root, beside=beside)


def load_local(caller: Caller, schema_model_path: str | None, store_root: Path, *,
               beside: bool = False) -> QuerySource:
    """Load the model into this process (about a second), or say why there is none. With `beside`, it
    loads while the command goes on (LoadingModel): for a command that only embeds its queries, where
    `lint --deep` drains what is due with the model in hand."""
    choice = resolve(caller.settings, schema_model_path, store_root)
    if not choice.available:
        return NoModel(choice.source.removeprefix("off: "))
    if beside:
        return LoadingModel(choice)
    loaded = _load(choice)
    return NoModel(loaded) if isinstance(loaded, str) else LocalModel(loaded)
