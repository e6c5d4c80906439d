"""One statement per chunk of values: `IN (...)` lists kept under SQLite's limit on `?` variables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

CHUNK = 500  # well under the 999 variables older SQLite builds allow, leaving room for other parameters
_LIST = "IN (...)"


def in_chunks(conn: sqlite3.Connection, sql: str, values: Iterable[object], *, before: tuple[object, ...] = (),
              chunk: int = CHUNK) -> Iterator[sqlite3.Row]:
    """The rows of `sql` for every value, its one `IN (...)` filled with a chunk of `values` at a time.

    `before` holds the parameters of any `?` ahead of the list. Order holds within a chunk only.
    """
    if sql.count(_LIST) != 1:
        raise ValueError(f"expected one {_LIST} in: {sql}")
    wanted = list(values)
    for start in range(0, len(wanted), chunk):
        part = wanted[start : start + chunk]
        yield from conn.execute(sql.replace(_LIST, f"IN ({','.join('?' * len(part))})"), (*before, *part))
