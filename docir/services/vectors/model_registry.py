"""The model a long-lived process holds (the worker, the MCP server), registered once at its start.

Every command that process runs embeds with it instead of loading or asking for one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from docir.embed.protocol import Embedder
from docir.services.vectors.reports import DrainStatus, FlushReport


@dataclass(frozen=True)
class HeldModel:
    embedder: Embedder
    drains: bool = False  # True in the worker, whose own thread computes scheduled vectors
    # In the worker: ask its drain thread for everything due now, and wait (the only drainer there);
    # and how far the drain running now has come.
    # `flush(gone)`: back early once `gone()` says the caller has gone.
    flush: Callable[[Callable[[], bool] | None], FlushReport] | None = None
    drain_status: Callable[[], DrainStatus | None] | None = None


_HELD: HeldModel | None = None


def register_process_model(embedder: Embedder, *, drains: bool = False,
                           flush: Callable[[Callable[[], bool] | None], FlushReport] | None = None,
                           drain_status: Callable[[], DrainStatus | None] | None = None) -> None:
    """In a long-lived process (the worker, the MCP server): commands use the model it holds."""
    global _HELD
    _HELD = HeldModel(embedder, drains, flush, drain_status)


def held_model() -> HeldModel | None:
    """The model this process registered, if it did."""
    return _HELD
