"""Vectors into pgvector's text form, as COPY sends them: the index's little-endian float32 BLOBs, each value exact."""

from __future__ import annotations

import sys
from array import array


def to_text(blob: bytes) -> str:
    """pgvector's text input of a little-endian float32 BLOB: '[x1,x2,...]'.

    Each value is the shortest decimal that reads back as the same double, and that double is
    the float32 itself, so pgvector's strtof gets back exactly the value the index holds.
    """
    values = array("f")
    values.frombytes(blob)
    if sys.byteorder == "big":
        values.byteswap()
    return "[" + ",".join(map(repr, values)) + "]"
