"""The narrow seam between docir and any embedding model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

# numpy's import would be a large share of a cold command's time: one that never embeds must not pay it
# (adr-d5e80517405b).
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]
else:
    Vectors = Any


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors; `model_id` names what produced them."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """The model's window: text past it is silently ignored, so chunks must fit."""
        ...

    def count_tokens(self, text: str) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


class WrappedEmbedder:
    """An embedder in front of another: the same model, so the same id, size, window and tokens;
    a subclass changes only how `embed` reaches it (a lock, a cache)."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def max_tokens(self) -> int:
        return self._inner.max_tokens

    def count_tokens(self, text: str) -> int:
        return self._inner.count_tokens(text)
