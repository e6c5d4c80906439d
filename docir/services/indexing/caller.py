"""What the caller of a service hands it: its settings, the way to the store's warm worker, and whether
it has gone.

A command runs for someone: a process of its own, or the warm worker on a client's behalf. Whatever
of the caller a service needs comes in here, made once at the command line's edge (docir/cli/edge.py)
or by the worker, never read from the process below it (adr-3c5e7a90b1d4): no service reads the
environment, asks the worker's modules or looks at a thread's client.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: every command makes its caller, and a cold one pays for each import
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, Protocol

    from docir.settings import Settings
else:
    Protocol = object


class WorkerLink(Protocol):
    """The store's warm worker, as a caller reaches it (docir/worker/link.py)."""

    def model(self, root: Path) -> str | None:
        """The model of the live warm worker of the store at `root`, if one runs and holds a model."""
        ...

    def start(self, root: Path) -> None:
        """Start the store's worker in the background if none runs, and return at once."""
        ...

    def request(self, root: Path, payload: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """One request and its reply; None when no worker answers."""
        ...


class Caller:
    """A plain class, not a NamedTuple: making the class cost a cold command a millisecond."""

    __slots__ = ("settings", "worker", "gone")

    def __init__(self, settings: Settings, worker: WorkerLink | None = None,
                 gone: Callable[[], bool] | None = None) -> None:
        self.settings = settings
        self.worker = worker  # None: no warm worker is asked or started (DOCIR_WORKER=0, a test)
        self.gone = gone  # whether the caller has gone (the worker's client hung up): what it asked must not land

    def without_worker(self) -> Caller:
        """The same caller, asking no warm worker (the worker itself)."""
        return Caller(self.settings, None, self.gone)
