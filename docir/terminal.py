"""The caller's terminal sizes: what a forwarded command is drawn for. Stdlib `os` only: the warm
client sends them with every request, and pays for no import to find them."""

from __future__ import annotations

import os

STD_FDS = (0, 1, 2)  # the descriptors whose terminal size rich asks for, in its order


def terminal_sizes() -> tuple[tuple[int, int, int], ...]:
    """(fd, columns, lines) of each of stdin, stdout and stderr that is a terminal (a few ioctls)."""
    found = []
    for fd in STD_FDS:
        try:
            columns, lines = os.get_terminal_size(fd)
        except (OSError, ValueError):
            continue
        found.append((fd, columns, lines))
    return tuple(found)
