"""Which process computes a store's vectors: this one when it is the worker, else the store's warm
worker, started in the background when none runs."""

from __future__ import annotations

from pathlib import Path

from docir.services.vectors.model_registry import held_model
from docir.services.vectors.reports import DrainStatus
from docir.worker import client, paths


def warm_worker_model(store_root: Path) -> str | None:
    """The model of a live warm worker for this store, if one runs and has a model."""
    status = paths.read_status(store_root)
    if status is None or not status.get("model") or not paths.pid_alive(int(status.get("pid", 0))):
        return None
    return str(status["model"])


def ensure_worker(store_root: Path) -> None:
    """Start the store's worker in the background if none runs, so scheduled vectors get made."""
    held = held_model()
    if (held is not None and held.drains) or not client.enabled():
        return
    status = paths.read_status(store_root)
    if status is None or not paths.pid_alive(int(status.get("pid", 0))):
        client.spawn(store_root)


def drain_status(store_root: Path) -> DrainStatus | None:
    """How far the store's running drain has come (texts done, due, rate, time left), if one runs."""
    held = held_model()
    if held is not None and held.drain_status is not None:
        return held.drain_status()
    if not client.enabled() or warm_worker_model(store_root) is None:
        return None
    reply = client.request(store_root, {"cmd": "status"})
    found = (reply or {}).get("drain")
    return found if isinstance(found, dict) else None  # type: ignore[return-value]
