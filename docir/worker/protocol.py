"""Length-prefixed JSON frames over a Unix socket (4-byte big-endian length, then UTF-8 JSON)."""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

MAX_FRAME = 256 * 1024 * 1024


class ProtocolError(Exception):
    pass


def send(sock: socket.socket, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    sock.sendall(struct.pack(">I", len(data)) + data)


def receive(sock: socket.socket) -> dict[str, Any]:
    header = _exactly(sock, 4)
    (size,) = struct.unpack(">I", header)
    if size > MAX_FRAME:
        raise ProtocolError(f"frame of {size} bytes is over the limit")
    payload = json.loads(_exactly(sock, size).decode("utf-8"))
    if not isinstance(payload, dict):
        raise ProtocolError("a frame must hold a JSON object")
    return payload


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            raise ProtocolError("connection closed mid-frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
