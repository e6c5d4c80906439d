"""Length-prefixed JSON frames over a Unix socket (4-byte big-endian length, then UTF-8 JSON)."""

from __future__ import annotations

import json
import struct

from docir import terminal

# Not typing's: importing typing costs the warm client a sixth of the interpreter's own start.
TYPE_CHECKING = False
if TYPE_CHECKING:  # the sockets are the caller's: the cold client path never imports socket
    from _socket import socket  # socket.py's socket too: the client's is the C module's (client.py)
    from collections.abc import Mapping
    from typing import Any

MAX_FRAME = 256 * 1024 * 1024
# The caller's environment a forwarded command may depend on: docir's settings and the terminal's, every
# name rich reads to size and colour its output (rich/console.py), so the worker prints what the caller would.
TERMINAL_ENV = ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TERM", "COLORTERM", "TTY_COMPATIBLE",
                "TTY_INTERACTIVE")
def terminal_sizes() -> list[list[int]]:
    """[fd, columns, lines] of each of stdin, stdout and stderr that is a terminal, as the request carries them."""
    return [list(size) for size in terminal.terminal_sizes()]


def is_forwarded(name: str) -> bool:
    return name.startswith("DOCIR_") or name in TERMINAL_ENV


def forwarded_env(environ: Mapping[str, str]) -> dict[str, str]:
    """What the client sends with a command: the worker answers these names from it, for that command
    alone, while it runs (worker/handler.py, run_captured)."""
    return {k: v for k, v in environ.items() if is_forwarded(k)}


class ProtocolError(Exception):
    pass


def send(sock: socket, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    sock.sendall(struct.pack(">I", len(data)) + data)


def receive(sock: socket) -> dict[str, Any]:
    header = _exactly(sock, 4)
    (size,) = struct.unpack(">I", header)
    if size > MAX_FRAME:
        raise ProtocolError(f"frame of {size} bytes is over the limit")
    payload = json.loads(_exactly(sock, size).decode("utf-8"))
    if not isinstance(payload, dict):
        raise ProtocolError("a frame must hold a JSON object")
    return payload


def _exactly(sock: socket, size: int) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            raise ProtocolError("connection closed mid-frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
