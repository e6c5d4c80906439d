"""The index's tables behind named operations, grouped by what they hold; one connection, one transaction."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from docir.index import changes
from docir.index.db import IndexReplaced, file_identity, immediate
from docir.index.docs_table import DocsTable
from docir.index.search import LexicalSearch
from docir.index.vector_store import VectorStore

if TYPE_CHECKING:
    from docir.index.ref_store import RefStore


class Catalog:
    """Holds the connection and the transaction; the statements live in its parts.

    `docs` (documents, skipped files, relations), `search` (FTS matches), `vectors` (the embedding
    queue and vectors) and `refs` (reference corpora) all run on the same connection, so one
    `transaction()` spans whichever of them a change touches.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path | None = None) -> None:
        self.conn = conn
        # Which file the connection writes: a long writer checks the path still names it.
        self.path = path
        self.identity = file_identity(path) if path is not None else None
        self.vectors = VectorStore(conn)
        self.docs = DocsTable(conn, self.vectors)
        self.search = LexicalSearch(conn)
        self._stamp: tuple[int, changes.Stamp] | None = None  # (this connection's total_changes, the stamp)

    @cached_property
    def refs(self) -> RefStore:
        # Built on first use: get, search and query of documents never touch reference chunks, and a
        # cold command need not import their store and rows (cold start, adr-d5e80517405b).
        from docir.index.ref_store import RefStore

        return RefStore(self.conn, self.vectors)

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction (db.immediate)."""
        return immediate(self.conn)

    def check_current(self) -> None:
        """Raise IndexReplaced when the index path names another file than this connection's, or none.

        A rebuild, a `mv` or a restore puts a new file under the same name; work written through the
        old connection would land in a file no one reads again.
        """
        if self.path is not None and file_identity(self.path) != self.identity:
            raise IndexReplaced(f"{self.path} was replaced or removed while this command used it")

    def stamp(self) -> changes.Stamp | None:
        """What a long-lived process's caches of this index are keyed by (changes.stamp); None: read it.

        Read once while this connection changes nothing: a commit by another one meanwhile only makes
        what is read after it newer than its stamp, and the next command reads it again.
        """
        if self.path is None or self.conn.in_transaction:
            return None
        changed = self.conn.total_changes
        if self._stamp is not None and self._stamp[0] == changed:
            return self._stamp[1]
        now = changes.stamp(self.path, self.identity, self.conn)
        self._stamp = None if now is None else (changed, now)
        return now

    def clear_all(self) -> None:
        # The vectors table is a cache keyed by text: kept, so a rebuild re-embeds nothing.
        for table in ("chunk_embeddings", "embeddings", "relations", "sections_fts", "sections", "documents_fts",
                      "documents", "skipped", "ref_fts", "ref_chunks", "ref_files"):
            self.conn.execute(f"DELETE FROM {table}")
        self.vectors.bump_generation()
