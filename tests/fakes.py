"""A deterministic Embedder for tests where semantics are not the point (triggers, queue, reuse)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class CountingEmbedder:
    """Hash-seeded unit vectors; counts every text that reaches the "model"."""

    def __init__(self, model_id: str = "fake@test", dim: int = 16, max_tokens: int = 256) -> None:
        self.model_id = model_id
        self.dim = dim
        self.max_tokens = max_tokens
        self.texts: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows.append(vector / np.linalg.norm(vector))
        return np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
