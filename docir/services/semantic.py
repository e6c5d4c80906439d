"""Where a read command gets its query vectors: the warm worker, a model loaded here, or nowhere.

A missing model never fails a read: the source says "off: <reason>" and
ranking goes on lexically.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from docir.embed.protocol import Embedder, Vectors
from docir.embed.resolve import resolve


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


def load_local(schema_model_path: str | None, store_root: Path) -> QuerySource:
    """Load the model into this process (about a second), or say why there is none."""
    choice = resolve(schema_model_path, store_root)
    if not choice.available:
        return NoModel(choice.source.removeprefix("off: "))
    from docir.embed.fastembed_model import FastembedEmbedder

    try:
        return LocalModel(FastembedEmbedder(choice))
    except Exception as exc:  # a broken model folder must not break a read
        return NoModel(f"model at {choice.path} failed to load ({exc})")
