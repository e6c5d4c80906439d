"""Every SQL statement docir runs against the documents, FTS and relation tables."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from docir.index.fts import BM25_WEIGHTS, index_text
from docir.index.records import (
    ChunkVector,
    DocRow,
    EmbedJob,
    FileState,
    Filters,
    Hit,
    Listing,
    RefChunkRow,
    RefFileRow,
    SkippedFile,
    StoredRefChunk,
    VectorSet,
)

_LISTING_COLUMNS = "rowid, path, id, type, title, description, status, tags, related, owner, verified, archived, size"


class Catalog:
    """The index's tables behind named operations; holds one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT: writers queue on SQLite's lock (busy timeout) instead of failing."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # --- what the sync compares against -------------------------------------------------

    def file_states(self) -> dict[str, FileState]:
        rows = self.conn.execute("SELECT path, size, mtime_ns, sha256 FROM documents")
        return {r[0]: FileState(r[0], r[1], r[2], r[3]) for r in rows}

    def skipped_files(self) -> dict[str, SkippedFile]:
        rows = self.conn.execute("SELECT path, size, mtime_ns, reason FROM skipped")
        return {r[0]: SkippedFile(r[0], r[1], r[2], r[3]) for r in rows}

    # --- writes -----------------------------------------------------------------------

    def upsert(self, row: DocRow) -> int:
        """Insert or replace the document at row.path with its FTS and relation rows; return its rowid."""
        values = (
            row.id, row.type, row.title, row.description, row.status,
            json.dumps(list(row.tags)), json.dumps([list(e) for e in row.related]),
            row.owner, row.verified, row.meta_json, row.body, json.dumps(list(row.headings)),
            row.sha256, row.size, row.mtime_ns, int(row.archived), row.text_sha,
        )
        existing = self.conn.execute("SELECT rowid FROM documents WHERE path = ?", (row.path,)).fetchone()
        if existing is None:
            cur = self.conn.execute(
                "INSERT INTO documents (id, type, title, description, status, tags, related, owner, verified,"
                " meta, body, headings, sha256, size, mtime_ns, archived, text_sha, path)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, row.path),
            )
            rowid = int(cur.lastrowid or 0)
        else:
            rowid = int(existing[0])
            self.conn.execute(
                "UPDATE documents SET id = ?, type = ?, title = ?, description = ?, status = ?, tags = ?,"
                " related = ?, owner = ?, verified = ?, meta = ?, body = ?, headings = ?, sha256 = ?,"
                " size = ?, mtime_ns = ?, archived = ?, text_sha = ? WHERE rowid = ?",
                (*values, rowid),
            )
        self._refresh_searchable(rowid, row)
        return rowid

    def move(self, old_path: str, state: FileState, archived: bool) -> int:
        """Record that the file at old_path now lives at state.path, its content unchanged."""
        found = self.conn.execute("SELECT rowid, archived FROM documents WHERE path = ?", (old_path,)).fetchone()
        rowid, was_archived = int(found[0]), bool(found[1])
        self.conn.execute(
            "UPDATE documents SET path = ?, size = ?, mtime_ns = ?, archived = ? WHERE rowid = ?",
            (state.path, state.size, state.mtime_ns, int(archived), rowid),
        )
        if archived != was_archived:
            self._refresh_searchable(rowid, self._row(rowid))
        return rowid

    def touch(self, state: FileState) -> None:
        """The file's stat changed but not its content: remember the new stat only."""
        self.conn.execute(
            "UPDATE documents SET size = ?, mtime_ns = ? WHERE path = ?",
            (state.size, state.mtime_ns, state.path),
        )

    def remove(self, path: str) -> int | None:
        """Delete the document at `path` with its FTS and relation rows (same transaction)."""
        found = self.conn.execute("SELECT rowid FROM documents WHERE path = ?", (path,)).fetchone()
        if found is None:
            return None
        rowid = int(found[0])
        self.conn.execute("DELETE FROM documents_fts WHERE rowid = ?", (rowid,))
        self.conn.execute("DELETE FROM relations WHERE doc = ?", (rowid,))
        self._forget_vectors(rowid)
        self.conn.execute("DELETE FROM documents WHERE rowid = ?", (rowid,))
        return rowid

    def set_skipped(self, skipped: SkippedFile) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO skipped (path, size, mtime_ns, reason) VALUES (?, ?, ?, ?)",
            (skipped.path, skipped.size, skipped.mtime_ns, skipped.reason),
        )

    def clear_skipped(self, path: str) -> None:
        self.conn.execute("DELETE FROM skipped WHERE path = ?", (path,))

    def clear_all(self) -> None:
        # The vectors table is a cache keyed by text: kept, so a rebuild re-embeds nothing.
        for table in ("chunk_embeddings", "embeddings", "relations", "documents_fts", "documents", "skipped",
                      "ref_fts", "ref_chunks", "ref_files"):
            self.conn.execute(f"DELETE FROM {table}")
        self._bump_vectors()

    def _refresh_searchable(self, rowid: int, row: DocRow) -> None:
        # Archived documents keep their row (get still finds them) but leave FTS, vectors and the graph.
        self.conn.execute("DELETE FROM documents_fts WHERE rowid = ?", (rowid,))
        self.conn.execute("DELETE FROM relations WHERE doc = ?", (rowid,))
        if row.archived:
            self._forget_vectors(rowid)
            return
        self._schedule_embedding(rowid, row.text_sha)
        self.conn.execute(
            "INSERT INTO documents_fts (rowid, title, description, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)",
            (rowid, index_text(row.title), index_text(row.description), index_text(" ".join(row.tags)),
             index_text("\n".join(row.headings)), index_text(row.body)),
        )
        self.conn.executemany(
            "INSERT INTO relations (doc, src, kind, dst) VALUES (?, ?, ?, ?)",
            [(rowid, row.id, kind, target) for kind, target in row.related],
        )

    def _row(self, rowid: int) -> DocRow:
        r = self.conn.execute("SELECT * FROM documents WHERE rowid = ?", (rowid,)).fetchone()
        return DocRow(
            path=r["path"], id=r["id"], type=r["type"], title=r["title"], description=r["description"],
            status=r["status"], tags=tuple(json.loads(r["tags"])),
            related=tuple((k, t) for k, t in json.loads(r["related"])), owner=r["owner"],
            verified=r["verified"], meta_json=r["meta"], body=r["body"],
            headings=tuple(json.loads(r["headings"])), sha256=r["sha256"], size=r["size"],
            mtime_ns=r["mtime_ns"], archived=bool(r["archived"]), text_sha=r["text_sha"],
        )

    # --- embeddings ---------------------------------------------------------------------

    def _schedule_embedding(self, rowid: int, text_sha: str) -> None:
        """Mark the document dirty only if what is embedded changed; metadata edits keep vectors."""
        self.conn.execute(
            "INSERT INTO embeddings (doc, dirty, dirty_since, text_sha) VALUES (?, 1, ?, ?)"
            " ON CONFLICT(doc) DO UPDATE SET dirty = 1, dirty_since = excluded.dirty_since,"
            " text_sha = excluded.text_sha WHERE embeddings.text_sha != excluded.text_sha",
            (rowid, time.time(), text_sha),
        )

    def _forget_vectors(self, rowid: int) -> None:
        self.conn.execute("DELETE FROM chunk_embeddings WHERE doc = ?", (rowid,))
        self.conn.execute("DELETE FROM embeddings WHERE doc = ?", (rowid,))
        self._bump_vectors()

    def _bump_vectors(self) -> None:
        """Count every change to the vector rows, so a process may cache them until the count moves."""
        self.conn.execute(
            "INSERT INTO settings (key, value) VALUES ('vectors_generation', '1') ON CONFLICT(key) DO UPDATE"
            " SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )

    def vectors_generation(self) -> int:
        return int(self.get_setting("vectors_generation") or 0)

    def dirty_jobs(self, model_id: str, *, settled_before: float | None = None, limit: int = 64) -> list[EmbedJob]:
        """Documents whose vectors are due: flagged dirty, or made by another model."""
        settled = "" if settled_before is None else " AND e.dirty_since <= ?"
        params: tuple[object, ...] = (model_id,) if settled_before is None else (model_id, settled_before)
        rows = self.conn.execute(
            "SELECT d.rowid, e.text_sha, d.title, d.description, d.body FROM embeddings e"
            " JOIN documents d ON d.rowid = e.doc"
            f" WHERE (e.dirty = 1 OR e.model_id IS NOT ?){settled} ORDER BY e.dirty_since LIMIT ?",
            (*params, limit),
        )
        return [EmbedJob(int(r[0]), r[1], r[2], r[3], r[4]) for r in rows]

    def model_ids(self) -> list[str]:
        """The models whose vectors this index holds."""
        rows = self.conn.execute("SELECT DISTINCT model_id FROM embeddings WHERE model_id IS NOT NULL ORDER BY 1")
        return [str(r[0]) for r in rows]

    def queue_counts(self, model_id: str | None) -> tuple[int, int]:
        """(documents whose vectors are due, documents that can have vectors)."""
        total = int(self.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        due = int(self.conn.execute(
            "SELECT count(*) FROM embeddings WHERE dirty = 1 OR model_id IS NOT ?", (model_id,)
        ).fetchone()[0])
        return due, total

    def next_settle_time(self, model_id: str) -> float | None:
        """When the oldest due document was last changed (the debounce clock), or None."""
        found = self.conn.execute(
            "SELECT min(dirty_since) FROM embeddings WHERE dirty = 1 OR model_id IS NOT ?", (model_id,)
        ).fetchone()
        return None if found is None or found[0] is None else float(found[0])

    def cached_vectors(self, shas: Iterable[str], model_id: str) -> set[str]:
        """Which of these texts already have a vector from this model."""
        wanted = list(dict.fromkeys(shas))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = self.conn.execute(
                f"SELECT text_sha FROM vectors WHERE model_id = ? AND text_sha IN ({','.join('?' * len(chunk))})",
                (model_id, *chunk),
            )
            found.update(r[0] for r in rows)
        return found

    def store_vectors(self, model_id: str, dim: int, items: Iterable[tuple[str, bytes]]) -> None:
        self.conn.executemany(
            "INSERT OR IGNORE INTO vectors (text_sha, model_id, dim, vector) VALUES (?, ?, ?, ?)",
            [(sha, model_id, dim, blob) for sha, blob in items],
        )

    def write_embedding(self, job: EmbedJob, model_id: str, doc_sha: str, chunks: list[ChunkVector]) -> bool:
        """Point the document at its new vectors; False (left dirty) if its text changed meanwhile."""
        current = self.conn.execute("SELECT text_sha, dirty_since FROM embeddings WHERE doc = ?",
                                    (job.rowid,)).fetchone()
        if current is None or current[0] != job.text_sha:
            return False
        self.conn.execute("DELETE FROM chunk_embeddings WHERE doc = ?", (job.rowid,))
        self.conn.executemany(
            "INSERT INTO chunk_embeddings (doc, ordinal, heading, section, continuation, start, end, vector_sha)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(job.rowid, c.ordinal, c.heading, c.section, int(c.continuation), c.start, c.end, c.vector_sha)
             for c in chunks],
        )
        self.conn.execute(
            "UPDATE embeddings SET dirty = 0, model_id = ?, vector_sha = ? WHERE doc = ?",
            (model_id, doc_sha, job.rowid),
        )
        self._bump_vectors()
        return True

    def vector_set(self, model_id: str) -> VectorSet:
        """Every document and chunk vector made by `model_id`, as one matrix."""
        from docir.index.vectors import stack  # numpy, only where vectors are used
        rows = self.conn.execute(
            "SELECT e.doc, -1, v.vector, v.dim FROM embeddings e JOIN vectors v"
            " ON v.text_sha = e.vector_sha AND v.model_id = e.model_id WHERE e.model_id = ?"
            " UNION ALL "
            "SELECT c.doc, c.ordinal, v.vector, v.dim FROM chunk_embeddings c JOIN embeddings e ON e.doc = c.doc"
            " JOIN vectors v ON v.text_sha = c.vector_sha AND v.model_id = e.model_id WHERE e.model_id = ?",
            (model_id, model_id),
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

    def document_vector(self, rowid: int, model_id: str) -> bytes | None:
        found = self.conn.execute(
            "SELECT v.vector FROM embeddings e JOIN vectors v ON v.text_sha = e.vector_sha AND v.model_id = e.model_id"
            " WHERE e.doc = ? AND e.model_id = ?",
            (rowid, model_id),
        ).fetchone()
        return None if found is None else bytes(found[0])

    def document_vectors(self, model_id: str) -> tuple[list[int], list[bytes]]:
        """Document vectors only (never sections): what near-duplicate checks compare."""
        rows = self.conn.execute(
            "SELECT e.doc, v.vector FROM embeddings e JOIN vectors v"
            " ON v.text_sha = e.vector_sha AND v.model_id = e.model_id WHERE e.model_id = ?",
            (model_id,),
        ).fetchall()
        return [int(r[0]) for r in rows], [bytes(r[1]) for r in rows]

    def body_of(self, rowid: int) -> str:
        found = self.conn.execute("SELECT body FROM documents WHERE rowid = ?", (rowid,)).fetchone()
        return "" if found is None else str(found[0])

    # --- reference corpora ----------------------------------------------------------------

    def ref_files(self, ref: str | None = None) -> dict[str, tuple[str, str]]:
        """source_uri -> (corpus name, sha256) of ingested reference files."""
        where, params = ("WHERE ref = ?", (ref,)) if ref is not None else ("", ())
        rows = self.conn.execute(f"SELECT source_uri, ref, sha256 FROM ref_files {where}", params)
        return {r[0]: (r[1], r[2]) for r in rows}

    def replace_ref_file(self, file: RefFileRow, chunks: list[RefChunkRow]) -> None:
        """Put a reference file's chunks in place of whatever it had (with their FTS rows)."""
        self.remove_ref_file(file.source_uri)
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

    def remove_ref_file(self, source_uri: str) -> None:
        found = self.conn.execute("SELECT rowid FROM ref_files WHERE source_uri = ?", (source_uri,)).fetchone()
        if found is None:
            return
        self.conn.execute("DELETE FROM ref_fts WHERE rowid IN (SELECT rowid FROM ref_chunks WHERE file = ?)",
                          (found[0],))
        self.conn.execute("DELETE FROM ref_chunks WHERE file = ?", (found[0],))
        self.conn.execute("DELETE FROM ref_files WHERE rowid = ?", (found[0],))
        self._bump_vectors()

    def ref_counts(self) -> dict[str, tuple[int, int]]:
        """corpus name -> (files, chunks)."""
        rows = self.conn.execute(
            "SELECT f.ref, count(DISTINCT f.rowid), count(c.rowid) FROM ref_files f"
            " LEFT JOIN ref_chunks c ON c.file = f.rowid GROUP BY f.ref"
        )
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    def ref_jobs(self, model_id: str, limit: int = 256) -> list[tuple[int, str, str]]:
        """(rowid, text_sha, text) of reference chunks whose vector from `model_id` is not recorded."""
        rows = self.conn.execute(
            "SELECT rowid, text_sha, text FROM ref_chunks WHERE model_id IS NOT ? LIMIT ?", (model_id, limit)
        )
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def mark_refs_embedded(self, done: list[tuple[int, str]], model_id: str) -> None:
        """Record the vectors of (rowid, text_sha); a chunk re-ingested meanwhile keeps waiting."""
        self.conn.executemany("UPDATE ref_chunks SET model_id = ? WHERE rowid = ? AND text_sha = ?",
                              [(model_id, rowid, sha) for rowid, sha in done])
        self._bump_vectors()

    def ref_queue(self, model_id: str | None) -> int:
        return int(self.conn.execute("SELECT count(*) FROM ref_chunks WHERE model_id IS NOT ?",
                                     (model_id,)).fetchone()[0])

    def ref_lexical_hits(self, match: str, limit: int) -> list[Hit]:
        rows = self.conn.execute(
            "SELECT rowid, bm25(ref_fts, 3.0, 1.0) AS score FROM ref_fts WHERE ref_fts MATCH ? ORDER BY score LIMIT ?",
            (match, limit),
        )
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def ref_vector_set(self, model_id: str) -> VectorSet:
        """Every embedded reference chunk's vector (ordinals carry the chunk rowid)."""
        from docir.index.vectors import stack

        rows = self.conn.execute(
            "SELECT c.rowid, v.vector, v.dim FROM ref_chunks c JOIN vectors v"
            " ON v.text_sha = c.text_sha AND v.model_id = c.model_id WHERE c.model_id = ?",
            (model_id,),
        ).fetchall()
        dim = int(rows[0][2]) if rows else 0
        return VectorSet([int(r[0]) for r in rows], [int(r[0]) for r in rows], stack([r[1] for r in rows], dim))

    def ref_chunks(self, rowids: Iterable[int] = (), ids: Iterable[str] = ()) -> list[StoredRefChunk]:
        """Reference chunks by row number or by id."""
        found: list[StoredRefChunk] = []
        for column, values in (("c.rowid", list(rowids)), ("c.id", list(ids))):
            for start in range(0, len(values), 500):
                chunk = values[start : start + 500]
                rows = self.conn.execute(
                    "SELECT c.rowid, f.ref, f.source_uri, f.sha256, c.id, c.ordinal, c.heading_path, c.text,"
                    " c.continuation, c.start, c.end, c.text_sha FROM ref_chunks c JOIN ref_files f ON f.rowid = c.file"
                    f" WHERE {column} IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                found.extend(_stored_ref(r) for r in rows)
        return found

    def ref_section(self, source_uri: str, heading_path: tuple[str, ...]) -> list[StoredRefChunk]:
        """Every piece of one section, in order: split sections are shown whole again."""
        rows = self.conn.execute(
            "SELECT c.rowid, f.ref, f.source_uri, f.sha256, c.id, c.ordinal, c.heading_path, c.text,"
            " c.continuation, c.start, c.end, c.text_sha FROM ref_chunks c JOIN ref_files f ON f.rowid = c.file"
            " WHERE f.source_uri = ? AND c.heading_path = ? ORDER BY c.ordinal",
            (source_uri, json.dumps(list(heading_path))),
        )
        return [_stored_ref(r) for r in rows]

    # --- reads ------------------------------------------------------------------------

    def documents_by_id(self, doc_id: str) -> list[tuple[int, DocRow]]:
        """Every row carrying `doc_id` (more than one means a duplicate id), ordered by path."""
        rows = self.conn.execute("SELECT rowid FROM documents WHERE id = ? ORDER BY path", (doc_id,))
        return [(int(r[0]), self._row(int(r[0]))) for r in rows.fetchall()]

    def document_at(self, path: str) -> tuple[int, DocRow] | None:
        found = self.conn.execute("SELECT rowid FROM documents WHERE path = ?", (path,)).fetchone()
        return None if found is None else (int(found[0]), self._row(int(found[0])))

    def listings(self, filters: Filters = Filters()) -> Iterator[Listing]:
        """Documents matching the structured filters, in path order, read lazily."""
        clauses: list[str] = []
        params: list[object] = []
        if filters.types:
            clauses.append(f"type IN ({','.join('?' * len(filters.types))})")
            params.extend(filters.types)
        if filters.statuses:
            clauses.append(f"status IN ({','.join('?' * len(filters.statuses))})")
            params.extend(filters.statuses)
        for tag in filters.tags:
            clauses.append("EXISTS (SELECT 1 FROM json_each(documents.tags) WHERE value = ?)")
            params.append(tag)
        if filters.owner is not None:
            clauses.append("owner = ?")
            params.append(filters.owner)
        if filters.related_to is not None:
            clauses.append(
                "(rowid IN (SELECT doc FROM relations WHERE dst = ?)"
                " OR id IN (SELECT dst FROM relations WHERE src = ?))"
            )
            params.extend([filters.related_to, filters.related_to])
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        cursor = self.conn.execute(f"SELECT {_LISTING_COLUMNS} FROM documents{where} ORDER BY path", params)
        for r in cursor:
            yield _listing(r)

    def listings_by_rowid(self, rowids: Iterable[int]) -> dict[int, Listing]:
        ids = list(rowids)
        found: dict[int, Listing] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = self.conn.execute(
                f"SELECT {_LISTING_COLUMNS} FROM documents WHERE rowid IN ({','.join('?' * len(chunk))})", chunk
            )
            for r in rows:
                found[int(r[0])] = _listing(r)
        return found

    def listings_by_ids(self, doc_ids: Iterable[str]) -> dict[str, Listing]:
        """The first (by path) row of each id."""
        ids = list(dict.fromkeys(doc_ids))
        found: dict[str, Listing] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = self.conn.execute(
                f"SELECT {_LISTING_COLUMNS} FROM documents WHERE id IN ({','.join('?' * len(chunk))}) ORDER BY path",
                chunk,
            )
            for r in rows:
                found.setdefault(r[2], _listing(r))
        return found

    def lexical_hits(self, match: str, limit: int = -1) -> list[Hit]:
        """FTS matches, best first (bm25 with column weights; lower is better); all when limit < 0."""
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        rows = self.conn.execute(
            f"SELECT rowid, bm25(documents_fts, {weights}) AS score FROM documents_fts"
            " WHERE documents_fts MATCH ? ORDER BY score LIMIT ?",
            (match, limit),
        )
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def term_rowids(self, terms: list[str], among: list[int], table: str = "documents_fts") -> list[set[int]]:
        """For each term, which of the rows `among` match it (as FTS matches: stemmed, any column)."""
        if table not in ("documents_fts", "ref_fts"):
            raise ValueError(table)
        wanted = set(among)
        # Matching a term alone and intersecting here is faster than a `rowid IN (...)` constraint,
        # which FTS5 checks row by row after matching anyway.
        return [
            wanted.intersection(r[0] for r in self.conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?",
                                                                ('"' + term.replace('"', '""') + '"',)))
            for term in terms
        ]

    def visibility_rows(self, rowids: Iterable[int]) -> dict[int, tuple[str, str, bool]]:
        """rowid -> (type, status, archived): all a ranking needs to apply the visibility predicate."""
        ids = list(rowids)
        found: dict[int, tuple[str, str, bool]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = self.conn.execute(
                f"SELECT rowid, type, status, archived FROM documents WHERE rowid IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            found.update((int(r[0]), (r[1], r[2], bool(r[3]))) for r in rows)
        return found

    def term_matches(self, rowid: int, term: str) -> bool:
        """Whether one query term (as FTS matches it: stemmed, any column) occurs in the document."""
        found = self.conn.execute(
            "SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?",
            ('"' + term.replace('"', '""') + '"', rowid),
        ).fetchone()
        return found is not None

    def edges_from(self, doc_id: str) -> list[tuple[str, str]]:
        """Outgoing (kind, target) edges of the document(s) with this id."""
        rows = self.conn.execute("SELECT kind, dst FROM relations WHERE src = ? ORDER BY rowid", (doc_id,))
        return [(r[0], r[1]) for r in rows]

    def edges_to(self, doc_id: str, kinds: Iterable[str]) -> list[tuple[str, str]]:
        """Incoming (kind, source) edges of the given kinds."""
        kinds = list(kinds)
        if not kinds:
            return []
        rows = self.conn.execute(
            f"SELECT kind, src FROM relations WHERE dst = ? AND kind IN ({','.join('?' * len(kinds))}) ORDER BY rowid",
            (doc_id, *kinds),
        )
        return [(r[0], r[1]) for r in rows]

    def duplicate_ids(self) -> dict[str, list[str]]:
        rows = self.conn.execute(
            "SELECT id, group_concat(path, char(10)) FROM documents GROUP BY id HAVING count(*) > 1"
        )
        return {r[0]: sorted(r[1].split("\n")) for r in rows}

    def get_setting(self, key: str) -> str | None:
        found = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    def set_setting(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM documents").fetchone()[0])


def _stored_ref(r: sqlite3.Row) -> StoredRefChunk:
    chunk = RefChunkRow(r[4], int(r[5]), tuple(json.loads(r[6])), r[7], bool(r[8]), int(r[9]), int(r[10]), r[11])
    return StoredRefChunk(int(r[0]), r[1], r[2], r[3], chunk)


def _listing(r: sqlite3.Row) -> Listing:
    return Listing(
        rowid=int(r[0]), path=r[1], id=r[2], type=r[3], title=r[4], description=r[5], status=r[6],
        tags=tuple(json.loads(r[7])), related=tuple((k, t) for k, t in json.loads(r[8])),
        owner=r[9], verified=r[10], archived=bool(r[11]), size=int(r[12]),
    )
