"""The fastembed-backed Embedder. Importing fastembed costs ~1 s, so only the worker and flushes do it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from docir.embed.protocol import Vectors
from docir.embed.resolve import ModelChoice
from docir.embed.tokens import TokenCounter


class FastembedEmbedder(TokenCounter):
    def __init__(self, choice: ModelChoice, threads: int | None = None) -> None:
        if choice.name is None or choice.path is None:
            raise ValueError(f"no model to load ({choice.source})")
        from fastembed import TextEmbedding

        super().__init__(choice)  # the id, the window, and counting tokens without truncation
        self._model: Any = TextEmbedding(model_name=choice.name, specific_model_path=str(choice.path),
                                         threads=threads, lazy_load=False)
        self._truncate_at_window()
        self._dim = int(self.embed(["probe"]).shape[1])

    def _truncate_at_window(self) -> None:
        """Make the model read exactly its window. fastembed truncates all-MiniLM-L6-v2 at 512
        tokens, twice the 256 it was trained on: long document texts then cost twice the compute
        (docir embedded 0.62x as fast as a bare ONNX session) for positions the model never learnt."""
        inner = getattr(getattr(self._model, "model", None), "tokenizer", None)
        if inner is not None and hasattr(inner, "enable_truncation"):
            inner.enable_truncation(max_length=self.max_tokens)

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> Vectors:
        if not texts:
            return np.zeros((0, getattr(self, "_dim", 0)), dtype=np.float32)
        vectors = np.asarray(list(self._model.embed(list(texts), batch_size=batch_size)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        normalised: Vectors = (vectors / norms).astype(np.float32, copy=False)
        return normalised
