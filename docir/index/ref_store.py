"""Reference corpora: ref_files, ref_chunks and ref_fts, never document rows."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from docir.index.chunked import in_chunks
from docir.index.fts import index_text
from docir.index.records import VectorSet
from docir.index.ref_records import RefChunkRow, RefFileRow, StoredRefChunk
from docir.index.vector_store import VectorStore

_CHUNK_SELECT = (
    "SELECT c.rowid, f.ref, f.source_uri, f.sha256, c.id, c.ordinal, c.heading_path, c.text,"
    " c.continuation, c.start, c.end, c.text_sha FROM ref_chunks c JOIN ref_files f ON f.rowid = c.file"
)


class RefStore:
    """Ingested reference files, their chunks with FTS rows, and which chunks have vectors."""

    def __init__(self, conn: sqlite3.Connection, vectors: VectorStore) -> None:
        self.conn = conn
        self._vectors = vectors

    def files(self, ref: str | None = None) -> dict[str, tuple[str, str]]:
        """source_uri -> (corpus name, sha256) of ingested reference files."""
        where, params = ("WHERE ref = ?", (ref,)) if ref is not None else ("", ())
        rows = self.conn.execute(f"SELECT source_uri, ref, sha256 FROM ref_files {where}", params)
        return {r[0]: (r[1], r[2]) for r in rows}

    def replace_file(self, file: RefFileRow, chunks: list[RefChunkRow]) -> None:
        """Put a reference file's chunks in place of whatever it had (with their FTS rows)."""
        self.remove_file(file.source_uri)
        cur = self.conn.execute(
            "INSERT INTO ref_files (ref, source_uri, relpath, sha256) VALUES (?, ?, ?, ?)",
            (file.ref, file.source_uri, file.relpath, file.sha256),
        )
        file_rowid = int(cur.lastrowid or 0)
        for chunk in chunks:
            cur = self.conn.execute(
                "INSERT INTO ref_chunks (file, id, ordinal, heading_path, text, continuation, start, end, text_sha)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (file_rowid, chunk.id, chunk.ordinal, json.dumps(list(chunk.heading_path)), chunk.text,
                 int(chunk.continuation), chunk.start, chunk.end, chunk.text_sha),
            )
            self.conn.execute(
                "INSERT INTO ref_fts (rowid, heading, body) VALUES (?, ?, ?)",
                (int(cur.lastrowid or 0), index_text(" ".join(chunk.heading_path)), index_text(chunk.text)),
            )

    def remove_file(self, source_uri: str) -> None:
        found = self.conn.execute("SELECT rowid FROM ref_files WHERE source_uri = ?", (source_uri,)).fetchone()
        if found is None:
            return
        self.conn.execute(
            "DELETE FROM ref_fts WHERE rowid IN (SELECT rowid FROM ref_chunks WHERE file = ?)", (found[0],)
        )
        self.conn.execute("DELETE FROM ref_chunks WHERE file = ?", (found[0],))
        self.conn.execute("DELETE FROM ref_files WHERE rowid = ?", (found[0],))
        self._vectors.bump_generation()

    def counts(self) -> dict[str, tuple[int, int]]:
        """corpus name -> (files, chunks)."""
        rows = self.conn.execute(
            "SELECT f.ref, count(DISTINCT f.rowid), count(c.rowid) FROM ref_files f"
            " LEFT JOIN ref_chunks c ON c.file = f.rowid GROUP BY f.ref"
        )
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    # --- vectors --------------------------------------------------------------------------

    def jobs(self, model_id: str, limit: int = 256) -> list[tuple[int, str, str]]:
        """(rowid, text_sha, text) of reference chunks whose vector from `model_id` is not recorded."""
        rows = self.conn.execute(
            "SELECT rowid, text_sha, text FROM ref_chunks WHERE model_id IS NOT ? LIMIT ?", (model_id, limit)
        )
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def embedded_shas(self, model_id: str) -> set[str]:
        """The texts of reference chunks that have their vector from `model_id`."""
        return {str(r[0]) for r in self.conn.execute("SELECT DISTINCT text_sha FROM ref_chunks WHERE model_id = ?",
                                                     (model_id,))}

    def mark_embedded(self, done: list[tuple[int, str]], model_id: str) -> None:
        """Record the vectors of (rowid, text_sha); a chunk re-ingested meanwhile keeps waiting."""
        self.conn.executemany("UPDATE ref_chunks SET model_id = ? WHERE rowid = ? AND text_sha = ?",
                              [(model_id, rowid, sha) for rowid, sha in done])
        self._vectors.bump_generation()

    def vector_set(self, model_ids: Sequence[str]) -> VectorSet:
        """Every reference chunk's vector made by one of `model_ids` (ordinals carry the chunk rowid)."""
        from docir.index.vectors import stack

        rows = self.conn.execute(
            "SELECT c.rowid, v.vector, v.dim FROM ref_chunks c JOIN vectors v ON v.text_sha = c.text_sha"
            f" AND v.model_id = c.model_id WHERE c.model_id IN ({', '.join('?' * len(model_ids))})",
            tuple(model_ids),
        ).fetchall()
        dim = int(rows[0][2]) if rows else 0
        return VectorSet([int(r[0]) for r in rows], [int(r[0]) for r in rows], stack([r[1] for r in rows], dim))

    # --- reads ------------------------------------------------------------------------------

    def chunks(self, rowids: Iterable[int] = (), ids: Iterable[str] = ()) -> list[StoredRefChunk]:
        """Reference chunks by row number or by id."""
        found: list[StoredRefChunk] = []
        for column, values in (("c.rowid", list(rowids)), ("c.id", list(ids))):
            rows = in_chunks(self.conn, f"{_CHUNK_SELECT} WHERE {column} IN (...)", values)
            found.extend(_stored_ref(r) for r in rows)
        return found

    def section(self, source_uri: str, heading_path: tuple[str, ...]) -> list[StoredRefChunk]:
        """Every piece of one section, in order: split sections are shown whole again."""
        rows = self.conn.execute(
            f"{_CHUNK_SELECT} WHERE f.source_uri = ? AND c.heading_path = ? ORDER BY c.ordinal",
            (source_uri, json.dumps(list(heading_path))),
        )
        return [_stored_ref(r) for r in rows]


def _stored_ref(r: sqlite3.Row) -> StoredRefChunk:
    chunk = RefChunkRow(r[4], int(r[5]), tuple(json.loads(r[6])), r[7], bool(r[8]), int(r[9]), int(r[10]), r[11])
    return StoredRefChunk(int(r[0]), r[1], r[2], r[3], chunk)
