"""Words as the local index tokenizes them: FTS5's own tokenizer (migrations.FTS_TOKENIZER), read back.

The local index's lean queries ask which of a task's words bm25 weighs (search.weightless), and the
organisation store publishes and searches these tokens (org/lexemes.py): both must split and stem a
word exactly as the FTS tables did, so both ask FTS5 itself, through one in-memory table.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import defaultdict
from collections.abc import Sequence

from docir.index.migrations import FTS_TOKENIZER

COLUMNS = 5  # the most columns a tokenized row has (a document's)


class Tokenizer:
    """FTS5's tokenizer over an in-memory table: the exact tokens the local index stores."""

    def __init__(self) -> None:
        # One table per process, used by one thread at a time (the worker answers commands on threads).
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        names = ", ".join(f"c{i}" for i in range(COLUMNS))
        self._conn.execute(f'CREATE VIRTUAL TABLE t USING fts5({names}, tokenize = "{FTS_TOKENIZER}")')
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")

    def tokens(self, rows: Sequence[Sequence[str]]) -> list[list[list[str]]]:
        """Each row's columns' tokens, in order."""
        out: list[list[list[str]]] = [[[] for _ in range(COLUMNS)] for _ in rows]
        if not rows:
            return out
        with self._lock, self._conn:
            self._conn.executemany(
                f"INSERT INTO t (rowid, {', '.join(f'c{i}' for i in range(COLUMNS))}) VALUES (?{', ?' * COLUMNS})",
                [(n + 1, *row, *([""] * (COLUMNS - len(row)))) for n, row in enumerate(rows)])
            found: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
            for doc, column, offset, term in self._conn.execute("SELECT doc, col, offset, term FROM v"):
                found[(int(doc) - 1, int(str(column)[1:]))].append((int(offset), str(term)))
            self._conn.execute("DELETE FROM t")
        for (row, column), tokens in found.items():
            out[row][column] = [term for _, term in sorted(tokens)]
        return out

    def close(self) -> None:
        self._conn.close()


_shared: Tokenizer | None = None


def shared() -> Tokenizer:
    """This process's tokenizer (a reader tokenizes its task's terms with it)."""
    global _shared
    if _shared is None:
        _shared = Tokenizer()
    return _shared
