"""Vectors into pgvector's binary form: the index's little-endian float32 BLOBs, sent without a text detour."""

from __future__ import annotations

import struct
from array import array
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg


class PgVector:
    """A vector as the local index stores it (little-endian float32), to be sent as pgvector's `vector`."""

    __slots__ = ("blob",)

    def __init__(self, blob: bytes) -> None:
        self.blob = blob


def to_binary(blob: bytes) -> bytes:
    """pgvector's binary input: dimension and a reserved word (int16 each), then float32, all big-endian."""
    values = array("f")
    values.frombytes(blob)
    values.byteswap()  # the bytes were little-endian whatever this machine is: swapped, they are big-endian
    return struct.pack(">HH", len(values), 0) + values.tobytes()


def register(conn: psycopg.Connection[Any]) -> None:
    """Let `conn` send PgVector parameters (with %b) as pgvector's `vector`; the extension must exist."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    info = TypeInfo.fetch(conn, "vector")
    if info is None:
        raise RuntimeError("the vector type is not visible on this connection's search_path")
    vector_oid = info.oid

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj: Any) -> bytes:
            return to_binary(obj.blob)

    conn.adapters.register_dumper(PgVector, VectorDumper)
