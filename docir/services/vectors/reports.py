"""What a drain and a flush report: the counts of a flush, and how far a running drain has come.

Plain types with no imports of their own, so the drain (embedding.py), the flush (flush.py) and the
worker can all name them without importing one another.
"""

from __future__ import annotations

from typing import Callable, TypedDict


class DrainStatus(TypedDict):
    """A running drain, as `embed --status`, `worker status` and the progress bar show it."""

    texts_done: int  # texts through the model so far in this drain
    texts_due: int  # texts this drain must embed (grows while document vectors are planned)
    phase: str  # "documents", then "sections", then "references" (before them, a flush's stage())
    rate: float  # texts per second so far
    eta_seconds: int | None  # time left at that rate


Progress = Callable[[DrainStatus], None]


def stage(phase: str) -> DrainStatus:
    """What a flush reports before its drain has numbers: loading the model, waiting for the worker."""
    return {"texts_done": 0, "texts_due": 0, "phase": phase, "rate": 0.0, "eta_seconds": None}


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
