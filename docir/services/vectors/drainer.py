"""Which process computes a store's vectors: this one when it is the worker, else the store's warm
worker, started in the background when none runs (reached through the caller's WorkerLink)."""

from __future__ import annotations

from pathlib import Path

from docir.services.indexing.caller import Caller
from docir.services.vectors.model_registry import held_model
from docir.services.vectors.reports import DrainStatus


def ensure_worker(caller: Caller, store_root: Path) -> None:
    """Start the store's worker in the background if none runs, so scheduled vectors get made."""
    held = held_model()
    if (held is not None and held.drains) or caller.worker is None:
        return
    caller.worker.start(store_root)


def drain_status(caller: Caller, store_root: Path) -> DrainStatus | None:
    """How far the store's running drain has come (texts done, due, rate, time left), if one runs."""
    held = held_model()
    if held is not None and held.drain_status is not None:
        return held.drain_status()
    worker = caller.worker
    if worker is None or worker.model(store_root) is None:
        return None
    reply = worker.request(store_root, {"cmd": "status"}, STATUS_SECONDS)
    found = (reply or {}).get("drain")
    return found if isinstance(found, dict) else None  # type: ignore[return-value]


STATUS_SECONDS = 0.5  # a worker that has not said "ready" within this long is too busy to ask
