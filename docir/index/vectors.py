"""Vectors as little-endian float32 BLOBs, and brute-force cosine over them.

At a store's scale (hundreds to tens of thousands of vectors) a numpy matrix
product is exact and fast enough; an ANN index would add state to keep in sync.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]


def pack(vector: npt.NDArray[np.floating]) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def unpack(blob: bytes, dim: int) -> Matrix:
    return np.frombuffer(blob, dtype="<f4", count=dim).astype(np.float32, copy=False)


def stack(blobs: list[bytes], dim: int) -> Matrix:
    """Many BLOBs into one (n, dim) matrix without a Python loop over floats."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim).astype(np.float32, copy=False)


def cosine(matrix: Matrix, query: Matrix) -> Matrix:
    """Cosine similarity of every row with `query`; rows and query are unit length already."""
    if matrix.shape[0] == 0:
        return np.zeros(0, dtype=np.float32)
    return matrix @ query.astype(np.float32)
