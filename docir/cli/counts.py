"""Counts in the words a reader says them in: `1 match`, `3 matches`, never `match(es)`."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """`n` and the noun, singular for one; the plural is `many`, else the noun with -s or -es."""
    if n == 1:
        return f"1 {one}"
    return f"{n:,} {many or (one + 'es' if one.endswith(('s', 'ch', 'sh', 'x')) else one + 's')}"
