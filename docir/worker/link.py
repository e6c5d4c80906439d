"""The store's warm worker as a service reaches it: the WorkerLink the command line hands its services
(docir/services/indexing/caller.py), so no service imports this package."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docir.worker import client, paths


class ClientLink:
    """Asks the worker over its socket, reads its status file, and starts it in the background."""

    def model(self, root: Path) -> str | None:
        status = paths.read_status(root)
        if status is None or not status.get("model") or not paths.pid_alive(int(status.get("pid", 0))):
            return None
        return str(status["model"])

    def start(self, root: Path) -> None:
        status = paths.read_status(root)
        if status is None or not paths.pid_alive(int(status.get("pid", 0))):
            client.spawn(root)

    def request(self, root: Path, payload: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        return client.request(root, payload, timeout=timeout)
