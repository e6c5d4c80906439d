"""The vector vault: every vector docir computed, kept outside any index (adr-ff14e9367673).

One SQLite file per user (`$XDG_CACHE_HOME/docir/vectors.db`), shared by every
store, clone and worktree on the machine. It holds two things, both keyed by
what they are, never by where they came from:

- vectors by (model id, sha256 of the exact text embedded); the model id names
  the window, so vectors of another window never meet;
- chunk plans by (plan key, sha256 of a document's embedded text): the chunks
  its body is cut into, so a rebuilt index gets its section rows back without
  tokenizing anything. The plan key names the model and the chunking version.

An index that is deleted, damaged, rebuilt or replaced gets every vector back
from here; only texts never embedded on this machine reach the model. The
vault is a keeper, not a dependency: when it cannot be used (read-only home,
a busy or refusing disk) docir embeds as before and says why in `embed --status`.
Least recently used rows go when it grows past its cap.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docir.index.chunked import in_chunks
from docir.index.db import BUSY_TIMEOUT_MS, identity, immediate, is_damage, set_aside, set_wal
from docir.index.records import ChunkVector
from docir.index.vector_store import dim_of
from docir.settings import DEFAULT_VECTORS_MB, VECTORS, Settings

EVICT_TO = 0.9  # eviction brings the vault down to this share of its cap, so it does not run every batch
TOUCH_SECONDS = 86_400  # a row's use time is refreshed at most once a day: reads stay reads
_APPLICATION_ID = 0x646F6376  # "docv"
_VERSION = 1

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors (model_id TEXT NOT NULL, text_sha TEXT NOT NULL, dim INTEGER NOT NULL,"
    " vector BLOB NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (model_id, text_sha)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS vectors_used ON vectors(used)",
    "CREATE TABLE IF NOT EXISTS plans (plan_key TEXT NOT NULL, doc_sha TEXT NOT NULL, vector_sha TEXT NOT NULL,"
    " chunks TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (plan_key, doc_sha)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS plans_used ON plans(used)",
)


@dataclass(frozen=True)
class VectorPlan:
    """A document's vectors as the drain made them: its document vector and its chunks."""

    vector_sha: str  # sha256 of the document-level text
    chunks: tuple[ChunkVector, ...]

    def shas(self) -> set[str]:
        return {self.vector_sha, *(c.vector_sha for c in self.chunks)}


class Vault:
    """The vault file, opened on first use. Every failure turns it off for this process, with the reason
    in `off`; a caller never fails because of it."""

    def __init__(self, path: Path | None, cap: int | None = None) -> None:
        self.path = path
        self.cap = cap if cap is not None else DEFAULT_VECTORS_MB * 1024 * 1024
        self.off: str | None = None if path is not None else f"turned off ({VECTORS}=off)"
        self._conn: sqlite3.Connection | None = None

    @classmethod
    def default(cls, settings: Settings) -> Vault:
        """The caller's vault: DOCIR_VECTORS, else the user's cache folder (docir/settings.py)."""
        return cls(settings.vault, settings.vault_cap)

    # --- vectors ------------------------------------------------------------------------

    def vectors(self, model_id: str, shas: Iterable[str]) -> dict[str, bytes]:
        """The vector of each of these texts the vault holds for this model."""
        rows = self._lookup("vectors", ("model_id", "text_sha"), "vector", model_id, shas)
        return {str(r[0]): bytes(r[1]) for r in rows}

    def put_vectors(self, model_id: str, items: Iterable[tuple[str, bytes]]) -> None:
        now = int(time.time())
        self._write("INSERT OR IGNORE INTO vectors (model_id, text_sha, dim, vector, used) VALUES (?, ?, ?, ?, ?)",
                    [(model_id, sha, dim_of(blob), blob, now) for sha, blob in items], evict=True)

    # --- plans --------------------------------------------------------------------------

    def plans(self, plan_key: str, doc_shas: Iterable[str]) -> dict[str, VectorPlan]:
        rows = self._lookup("plans", ("plan_key", "doc_sha"), "vector_sha, chunks", plan_key, doc_shas)
        return {str(r[0]): VectorPlan(str(r[1]), decode_chunks(str(r[2]))) for r in rows}

    def _lookup(self, table: str, keys: tuple[str, str], columns: str, key: str,
                shas: Iterable[str]) -> list[sqlite3.Row]:
        """Rows (sha, *columns, used) of `table` for this key and these shas; their use time refreshed."""
        wanted = list(dict.fromkeys(shas))
        conn = self._open() if wanted else None
        if conn is None:
            return []
        key_column, sha_column = keys
        try:
            rows = list(in_chunks(conn, f"SELECT {sha_column}, {columns}, used FROM {table}"
                                        f" WHERE {key_column} = ? AND {sha_column} IN (...)", wanted, before=(key,)))
            self._touch(conn, table, key_column, sha_column, key, rows)
        except sqlite3.Error as exc:
            self._failed(exc)
            return []
        return rows

    def put_plans(self, plan_key: str, items: Iterable[tuple[str, VectorPlan]]) -> None:
        now = int(time.time())
        self._write("INSERT OR REPLACE INTO plans (plan_key, doc_sha, vector_sha, chunks, used) VALUES (?, ?, ?, ?, ?)",
                    [(plan_key, doc_sha, plan.vector_sha, encode_chunks(plan.chunks), now) for doc_sha, plan in items])

    def _write(self, sql: str, rows: list[tuple[object, ...]], *, evict: bool = False) -> None:
        """Rows in one transaction, then eviction past the cap; a failure turns the vault off, never raises."""
        conn = self._open() if rows else None
        if conn is None:
            return
        try:
            with immediate(conn):
                conn.executemany(sql, rows)
            if evict:
                self._evict(conn)
        except sqlite3.Error as exc:
            self._failed(exc)

    # --- what it holds ------------------------------------------------------------------

    def usable(self) -> bool:
        return self._open() is not None

    def summary(self) -> dict[str, object]:
        """Path, vectors, bytes and cap, for `embed --status`; or why it is off. Creates nothing."""
        if self.path is not None and self.off is None and not self.path.exists():
            ancestor = next(p for p in self.path.parents if p.exists())
            if ancestor.is_dir() and os.access(ancestor, os.W_OK):
                return {"path": str(self.path), "vectors": 0, "mb": 0.0, "cap_mb": round(self.cap / 1048576)}
            return {"path": str(self.path), "off": f"cannot create it: {ancestor} is not a folder docir may write"}
        conn = self._open()
        if conn is None:
            return {"path": str(self.path) if self.path else None, "off": self.off}
        try:
            count = int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
            used = _used_bytes(conn)
        except sqlite3.Error as exc:
            self._failed(exc)
            return {"path": str(self.path), "off": self.off}
        return {"path": str(self.path), "vectors": count, "mb": round(used / 1048576, 1),
                "cap_mb": round(self.cap / 1048576)}

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # --- the file -----------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection | None:
        if self._conn is not None or self.off is not None or self.path is None:
            return self._conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = _connect(self.path)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                self._failed(exc)
                return None
            set_aside(self.path)  # damaged on SQLite's word: kept aside, never deleted
            try:
                self._conn = _connect(self.path)
            except sqlite3.Error as again:
                self._failed(again)
                return None
        except OSError as exc:
            self.off = f"cannot use {self.path.parent}: {exc.strerror or exc}"
            return None
        return self._conn

    def _failed(self, exc: sqlite3.Error) -> None:
        self.off = f"{self.path}: {exc}"
        self.close()

    def _touch(self, conn: sqlite3.Connection, table: str, key: str, sha: str, value: str,
               rows: list[sqlite3.Row]) -> None:
        now = int(time.time())
        stale = [str(r[0]) for r in rows if int(r[-1]) < now - TOUCH_SECONDS]
        if stale:
            with immediate(conn):
                list(in_chunks(conn, f"UPDATE {table} SET used = ? WHERE {key} = ? AND {sha} IN (...)",
                               stale, before=(now, value)))

    def _evict(self, conn: sqlite3.Connection) -> None:
        """Least recently used rows go until the vault is under EVICT_TO of its cap."""
        used = _used_bytes(conn)
        while used > self.cap:
            rows = int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
            if rows == 0:
                return
            excess = max((used - int(self.cap * EVICT_TO)) * rows // used, 1)  # rows, at the mean row size
            with immediate(conn):
                conn.execute("DELETE FROM vectors WHERE (model_id, text_sha) IN"
                             " (SELECT model_id, text_sha FROM vectors ORDER BY used LIMIT ?)", (excess,))
                oldest = conn.execute("SELECT min(used) FROM vectors").fetchone()[0]
                # A plan older than every vector left has lost what it points at.
                conn.execute("DELETE FROM plans WHERE used < ?", (int(oldest) if oldest is not None else 1 << 62,))
            used = _used_bytes(conn)


def _used_bytes(conn: sqlite3.Connection) -> int:
    pages, free, size = conn.execute(
        "SELECT p.page_count, f.freelist_count, s.page_size"
        " FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s").fetchone()
    return (int(pages) - int(free)) * int(size)


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        app_id, version = identity(conn)
        if (app_id, version) != (_APPLICATION_ID, _VERSION):
            if app_id not in (0, _APPLICATION_ID) or version > _VERSION:
                raise sqlite3.DatabaseError(f"{path.name} is not a docir vector vault of version {_VERSION}")
            set_wal(conn)
            with immediate(conn):
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {_VERSION}")
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn
    except BaseException:
        conn.close()
        raise


def encode_chunks(chunks: Iterable[ChunkVector]) -> str:
    return json.dumps([[c.ordinal, c.heading, c.section, int(c.continuation), c.start, c.end, c.vector_sha]
                       for c in chunks], separators=(",", ":"), ensure_ascii=False)


def decode_chunks(text: str) -> tuple[ChunkVector, ...]:
    return tuple(ChunkVector(int(o), str(h), str(s), bool(c), int(a), int(b), str(v))
                 for o, h, s, c, a, b, v in json.loads(text))
