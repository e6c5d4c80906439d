"""The embedding queue and the vectors: embeddings, chunk_embeddings and vectors, and their generation count."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection, Iterable, Iterator, Sequence

from docir.index.chunked import in_chunks
from docir.index.records import ChunkVector, EmbedJob, VectorPlan, VectorSet

# embeddings.dirty: 0 all vectors current; 1 the document vector is due (and its sections);
# 2 the document vector is current and only its section vectors are due. A big first drain
# computes every document vector before any section, so ranking is semantic early.
CURRENT, DIRTY, SECTIONS_DUE = 0, 1, 2
# When a document waits, for a model id (the one parameter each takes): its document vector is due
# if it is flagged dirty or was made by another model; only its sections, if flagged so by this one.
_DOCUMENT_DUE = f"(dirty = {DIRTY} OR model_id IS NOT ?)"
_ONLY_SECTIONS_DUE = f"(dirty = {SECTIONS_DUE} AND model_id IS ?)"


def dim_of(blob: bytes) -> int:
    """A stored vector's dimension: vectors are little-endian float32 BLOBs, so their size tells it."""
    return len(blob) // 4


class VectorStore:
    """Which documents are due for vectors, the vectors by text hash, and what points at them."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    # --- what the document rows call on change ----------------------------------------------

    def schedule(self, rowid: int, text_sha: str) -> None:
        """Mark the document dirty only if what is embedded changed; metadata edits keep vectors."""
        self.conn.execute(
            f"INSERT INTO embeddings (doc, dirty, dirty_since, text_sha) VALUES (?, {DIRTY}, ?, ?)"
            f" ON CONFLICT(doc) DO UPDATE SET dirty = {DIRTY}, dirty_since = excluded.dirty_since,"
            " text_sha = excluded.text_sha WHERE embeddings.text_sha != excluded.text_sha",
            (rowid, time.time(), text_sha),
        )

    def forget(self, rowid: int) -> None:
        self.conn.execute("DELETE FROM chunk_embeddings WHERE doc = ?", (rowid,))
        self.conn.execute("DELETE FROM embeddings WHERE doc = ?", (rowid,))
        self.bump_generation()

    def sections_due(self, rowids: Iterable[int]) -> None:
        """These documents' section vectors are due again (their document vector stays): the next drain
        re-plans them, finding every vector it still has by hash."""
        self.conn.executemany(f"UPDATE embeddings SET dirty = {SECTIONS_DUE} WHERE doc = ? AND dirty = {CURRENT}",
                              [(rowid,) for rowid in rowids])

    def bump_generation(self) -> None:
        """Count every change to the vector rows, so a process may cache them until the count moves."""
        self.conn.execute(
            "INSERT INTO settings (key, value) VALUES ('vectors_generation', '1') ON CONFLICT(key) DO UPDATE"
            " SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )

    def setting(self, key: str) -> str | None:
        found = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    def set_setting(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE"
                          " SET value = excluded.value", (key, value))

    def generation(self) -> int:
        found = self.conn.execute("SELECT value FROM settings WHERE key = 'vectors_generation'").fetchone()
        return 0 if found is None else int(found[0] or 0)

    # --- the queue --------------------------------------------------------------------------

    def dirty_jobs(self, model_id: str, *, settled_before: float | None = None, limit: int = 64,
                   texts: bool = True) -> list[EmbedJob]:
        """Documents whose document vector is due: flagged dirty, or made by another model."""
        settled = "" if settled_before is None else " AND e.dirty_since <= ?"
        params: tuple[object, ...] = (model_id,) if settled_before is None else (model_id, settled_before)
        return self._jobs(f"{_DOCUMENT_DUE}{settled}", (*params, limit), texts)

    def section_jobs(self, model_id: str, *, limit: int = 64, texts: bool = True) -> list[EmbedJob]:
        """Documents whose document vector is current and whose section vectors are due."""
        return self._jobs(_ONLY_SECTIONS_DUE, (model_id, limit), texts)

    def _jobs(self, due: str, params: tuple[object, ...], texts: bool) -> list[EmbedJob]:
        # Without `texts` the title, description and body come back empty: what only restores vectors
        # kept by text hash reads no body (a whole store's, on a first import).
        columns = "d.title, d.description, d.body" if texts else "'', '', ''"
        rows = self.conn.execute(
            f"SELECT d.rowid, e.text_sha, {columns} FROM embeddings e JOIN documents d ON d.rowid = e.doc"
            f" WHERE {due} ORDER BY e.dirty_since LIMIT ?",
            params,
        )
        return [EmbedJob(int(r[0]), r[1], r[2], r[3], r[4]) for r in rows]

    def waiting(self, model_id: str | None) -> tuple[int, int]:
        """(documents still due their document vector, documents that have it and wait only for their
        section vectors: ranked by the document vector alone until then); together, queue_counts' due."""
        row = self.conn.execute(
            f"SELECT coalesce(sum{_DOCUMENT_DUE}, 0), coalesce(sum{_ONLY_SECTIONS_DUE}, 0) FROM embeddings",
            (model_id, model_id),
        ).fetchone()
        return int(row[0]), int(row[1])

    def model_ids(self) -> list[str]:
        """The models whose vectors this index holds."""
        rows = self.conn.execute("SELECT DISTINCT model_id FROM embeddings WHERE model_id IS NOT NULL ORDER BY 1")
        return [str(r[0]) for r in rows]

    def queue_counts(self, model_id: str | None) -> tuple[int, int]:
        """(documents whose vectors are due, documents that can have vectors)."""
        total = int(self.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        return sum(self.waiting(model_id)), total

    # --- writing vectors --------------------------------------------------------------------

    def cached(self, shas: Iterable[str], model_id: str) -> set[str]:
        """Which of these texts already have a vector from this model."""
        rows = in_chunks(self.conn, "SELECT text_sha FROM vectors WHERE model_id = ? AND text_sha IN (...)",
                         dict.fromkeys(shas), before=(model_id,))
        return {r[0] for r in rows}

    def store(self, model_id: str, items: Iterable[tuple[str, bytes]]) -> None:
        self.conn.executemany(
            "INSERT OR IGNORE INTO vectors (text_sha, model_id, dim, vector) VALUES (?, ?, ?, ?)",
            [(sha, model_id, dim_of(blob), blob) for sha, blob in items],
        )

    def write_document_vector(self, job: EmbedJob, model_id: str, doc_sha: str) -> bool:
        """Point the document at its new document vector, its sections still due; False if its text changed.

        Its old section rows go: they describe a text that is no longer there.
        """
        current = self.conn.execute("SELECT text_sha FROM embeddings WHERE doc = ?", (job.rowid,)).fetchone()
        if current is None or current[0] != job.text_sha:
            return False
        self.conn.execute("DELETE FROM chunk_embeddings WHERE doc = ?", (job.rowid,))
        self.conn.execute(
            f"UPDATE embeddings SET dirty = {SECTIONS_DUE}, model_id = ?, vector_sha = ? WHERE doc = ?",
            (model_id, doc_sha, job.rowid),
        )
        self.bump_generation()
        return True

    def write_embedding(self, job: EmbedJob, model_id: str, doc_sha: str, chunks: list[ChunkVector],
                        shared: Collection[int] = ()) -> bool:
        """Point the document at its new vectors; False (left dirty) if its text changed meanwhile.

        Every chunk of the plan gets its row; those whose ordinal is in `shared` (their section's body
        is said word for word by another document, adr-5d1c0a7e94b2) have no vector and are not ranked.
        """
        current = self.conn.execute(
            "SELECT text_sha, dirty_since FROM embeddings WHERE doc = ?", (job.rowid,)
        ).fetchone()
        if current is None or current[0] != job.text_sha:
            return False
        self.conn.execute("DELETE FROM chunk_embeddings WHERE doc = ?", (job.rowid,))
        self.conn.executemany(
            "INSERT INTO chunk_embeddings (doc, ordinal, heading, section, continuation, start, end, vector_sha,"
            " shared) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(job.rowid, c.ordinal, c.heading, c.section, int(c.continuation), c.start, c.end, c.vector_sha,
              int(c.ordinal in shared)) for c in chunks],
        )
        self.conn.execute(
            f"UPDATE embeddings SET dirty = {CURRENT}, model_id = ?, vector_sha = ? WHERE doc = ?",
            (model_id, doc_sha, job.rowid),
        )
        self.bump_generation()
        return True

    # --- reading vectors --------------------------------------------------------------------

    def vectors_of(self, model_id: str, shas: Iterable[str]) -> dict[str, bytes]:
        """The vector of each of these texts stored for this model."""
        rows = in_chunks(self.conn, "SELECT text_sha, vector FROM vectors WHERE model_id = ? AND text_sha IN (...)",
                         dict.fromkeys(shas), before=(model_id,))
        return {str(r[0]): bytes(r[1]) for r in rows}

    def all_vectors(self, model_id: str, batch: int = 4096) -> Iterator[list[tuple[str, bytes]]]:
        """Every stored vector of this model, in batches of (text sha, vector)."""
        cursor = self.conn.execute("SELECT text_sha, vector FROM vectors WHERE model_id = ?", (model_id,))
        while rows := cursor.fetchmany(batch):
            yield [(str(r[0]), bytes(r[1])) for r in rows]

    def current_plans(self, model_id: str) -> Iterator[tuple[str, str, list[ChunkVector]]]:
        """(text sha, document vector sha, chunks) of every document whose vectors are all current."""
        docs = self.conn.execute(
            f"SELECT doc, text_sha, vector_sha FROM embeddings WHERE dirty = {CURRENT} AND model_id = ?",
            (model_id,)).fetchall()
        chunks: dict[int, list[ChunkVector]] = {}
        for r in self.conn.execute(
                "SELECT c.doc, c.ordinal, c.heading, c.section, c.continuation, c.start, c.end, c.vector_sha"
                f" FROM chunk_embeddings c JOIN embeddings e ON e.doc = c.doc WHERE e.dirty = {CURRENT}"
                " AND e.model_id = ? ORDER BY c.doc, c.ordinal", (model_id,)):
            chunks.setdefault(int(r[0]), []).append(
                ChunkVector(int(r[1]), r[2], r[3], bool(r[4]), int(r[5]), int(r[6]), r[7]))
        for doc, sha, vector_sha in docs:
            if vector_sha:
                yield str(sha), str(vector_sha), chunks.get(int(doc), [])

    def vector_plans(self) -> dict[int, VectorPlan]:
        """Every embeddable document's vectors by text hash, whatever their model: what a publish compares.

        A document's chunks are listed only when all its vectors are current; archived documents have
        no row here (they get no vectors).
        """
        plans = {int(r[0]): VectorPlan(int(r[0]), r[1], int(r[2]) == CURRENT and r[1] is not None,
                                       r[3] if int(r[2]) != DIRTY and r[1] is not None else None, (), frozenset())
                 for r in self.conn.execute("SELECT doc, model_id, dirty, vector_sha FROM embeddings")}
        chunks: dict[int, list[ChunkVector]] = {}
        shared: dict[int, set[int]] = {}
        for r in self.conn.execute(
                "SELECT c.doc, c.ordinal, c.heading, c.section, c.continuation, c.start, c.end, c.vector_sha, c.shared"
                f" FROM chunk_embeddings c JOIN embeddings e ON e.doc = c.doc WHERE e.dirty = {CURRENT}"
                " ORDER BY c.doc, c.ordinal"):
            doc = int(r[0])
            chunk = ChunkVector(int(r[1]), r[2], r[3], bool(r[4]), int(r[5]), int(r[6]), r[7])
            chunks.setdefault(doc, []).append(chunk)
            if r[8]:
                shared.setdefault(doc, set()).add(int(r[1]))
        for doc, found in chunks.items():
            if doc in plans and plans[doc].complete:
                plans[doc] = plans[doc]._replace(chunks=tuple(found), shared=frozenset(shared.get(doc, ())))
        return plans

    def vector_set(self, model_ids: Sequence[str]) -> VectorSet:
        """Every document and chunk vector made by one of `model_ids` (each document's own), as one matrix."""
        from docir.index.vectors import stack  # numpy, only where vectors are used
        marks = ", ".join("?" * len(model_ids))
        rows = self.conn.execute(
            "SELECT e.doc, -1, v.vector, v.dim FROM embeddings e JOIN vectors v"
            f" ON v.text_sha = e.vector_sha AND v.model_id = e.model_id WHERE e.model_id IN ({marks})"
            " UNION ALL "
            "SELECT c.doc, c.ordinal, v.vector, v.dim FROM chunk_embeddings c JOIN embeddings e ON e.doc = c.doc"
            " JOIN vectors v ON v.text_sha = c.vector_sha AND v.model_id = e.model_id"
            f" WHERE e.model_id IN ({marks}) AND c.shared = 0",
            (*model_ids, *model_ids),
        ).fetchall()
        dim = int(rows[0][3]) if rows else 0
        return VectorSet([int(r[0]) for r in rows], [int(r[1]) for r in rows], stack([r[2] for r in rows], dim))

    def chunk_rows(self, rowid: int) -> dict[int, ChunkVector]:
        rows = self.conn.execute(
            "SELECT ordinal, heading, section, continuation, start, end, vector_sha"
            " FROM chunk_embeddings WHERE doc = ?",
            (rowid,),
        )
        return {int(r[0]): ChunkVector(int(r[0]), r[1], r[2], bool(r[3]), int(r[4]), int(r[5]), r[6]) for r in rows}

    def document_vectors(self, model_ids: Sequence[str]) -> tuple[list[int], list[bytes]]:
        """Document vectors only (never sections), each made by one of `model_ids`: what near-duplicate
        checks compare."""
        rows = self.conn.execute(
            "SELECT e.doc, v.vector FROM embeddings e JOIN vectors v ON v.text_sha = e.vector_sha"
            f" AND v.model_id = e.model_id WHERE e.model_id IN ({', '.join('?' * len(model_ids))})",
            tuple(model_ids),
        ).fetchall()
        return [int(r[0]) for r in rows], [bytes(r[1]) for r in rows]
