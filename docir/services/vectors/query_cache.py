"""The warm worker's recent query vectors: agents ask the same task again and again.

Keyed by model id and the exact list of texts, so a repeated query gets exactly the
vectors it got the first time (a batch is embedded as it was asked, never pieced together
from other batches). Concurrent askers of the same texts wait for one computation.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from docir.embed.protocol import Embedder, Vectors, WrappedEmbedder

QUERIES_KEPT = 256  # a few hundred vectors of 384 floats: well under a megabyte


class CachedQueries(WrappedEmbedder):
    """An Embedder for queries that remembers its last answers; document texts never come here."""

    def __init__(self, inner: Embedder, size: int = QUERIES_KEPT) -> None:
        super().__init__(inner)
        self._size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, tuple[str, ...]], Vectors] = OrderedDict()
        self._computing: dict[tuple[str, tuple[str, ...]], threading.Event] = {}

    def embed(self, texts: Sequence[str]) -> Vectors:
        key = (self._inner.model_id, tuple(texts))
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                return kept.copy()  # a copy: a caller changing its vectors must not change the next one's
            computing = self._computing.get(key)
            mine = computing is None
            if computing is None:
                computing = self._computing[key] = threading.Event()
        if not mine:
            computing.wait()
            with self._lock:
                kept = self._kept.get(key)
            if kept is not None:
                return kept.copy()
            return self._inner.embed(list(texts))  # the first asker failed: try once more, ourselves
        try:
            vectors = self._inner.embed(list(texts))
            with self._lock:
                self._kept[key] = vectors.copy()
                while len(self._kept) > self._size:
                    self._kept.popitem(last=False)
            return vectors
        finally:
            with self._lock:
                del self._computing[key]
            computing.set()
