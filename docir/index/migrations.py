"""Ordered, named migrations. The index's `user_version` is how many have run.

Never edit a migration that has shipped; add the next one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

# Column order matters to bm25(): title, description, tags, headings, body.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '-_'"


def _run(conn: sqlite3.Connection, script: str) -> None:
    # Statement by statement: executescript() would COMMIT the migration's transaction.
    # (So no ";" may appear inside a comment or string of a migration.)
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def m001_documents(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        f"""
        CREATE TABLE documents (
            rowid       INTEGER PRIMARY KEY,
            path        TEXT NOT NULL UNIQUE,
            id          TEXT NOT NULL,
            type        TEXT NOT NULL,
            title       TEXT NOT NULL,
            description TEXT NOT NULL,
            status      TEXT NOT NULL,
            tags        TEXT NOT NULL,      -- JSON array
            related     TEXT NOT NULL,      -- JSON [[kind, target], ...]
            owner       TEXT,
            verified    TEXT,               -- ISO date
            meta        TEXT NOT NULL,      -- the whole frontmatter, JSON
            body        TEXT NOT NULL,
            headings    TEXT NOT NULL,      -- JSON array
            sha256      TEXT NOT NULL,
            size        INTEGER NOT NULL,
            mtime_ns    INTEGER NOT NULL,
            archived    INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX documents_id ON documents(id);
        CREATE INDEX documents_sha ON documents(sha256);

        CREATE TABLE relations (
            doc  INTEGER NOT NULL REFERENCES documents(rowid) ON DELETE CASCADE,
            src  TEXT NOT NULL,
            kind TEXT NOT NULL,
            dst  TEXT NOT NULL
        );
        CREATE INDEX relations_doc ON relations(doc);
        CREATE INDEX relations_src ON relations(src, kind);
        CREATE INDEX relations_dst ON relations(dst, kind);

        CREATE VIRTUAL TABLE documents_fts USING fts5(
            title, description, tags, headings, body,
            tokenize = "{FTS_TOKENIZER}"
        );

        CREATE TABLE skipped (
            path     TEXT PRIMARY KEY,
            size     INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            reason   TEXT NOT NULL
        );

        CREATE TABLE settings (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """
    )



def m002_vectors(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        -- sha256 of what is embedded (title, description, body): a change schedules new vectors.
        ALTER TABLE documents ADD COLUMN text_sha TEXT NOT NULL DEFAULT '';

        -- One row per document: its place in the embedding queue and its document vector.
        CREATE TABLE embeddings (
            doc         INTEGER PRIMARY KEY REFERENCES documents(rowid) ON DELETE CASCADE,
            dirty       INTEGER NOT NULL DEFAULT 1,
            dirty_since REAL NOT NULL DEFAULT 0,   -- unix time of the latest change (debounce)
            text_sha    TEXT NOT NULL,             -- sha256 of title + description + body
            model_id    TEXT,                      -- model of the vectors below (another model reads as dirty)
            vector_sha  TEXT                       -- key into vectors
        );
        CREATE INDEX embeddings_dirty ON embeddings(dirty);

        -- One row per section chunk, rewritten wholesale with the document's vector.
        CREATE TABLE chunk_embeddings (
            doc          INTEGER NOT NULL REFERENCES documents(rowid) ON DELETE CASCADE,
            ordinal      INTEGER NOT NULL,
            heading      TEXT NOT NULL,            -- heading path joined with ' > '
            section      TEXT NOT NULL,            -- the section's own heading, for get --section
            continuation INTEGER NOT NULL,
            start        INTEGER NOT NULL,         -- the chunk's span in the body, for --explain
            end          INTEGER NOT NULL,
            vector_sha   TEXT NOT NULL,
            PRIMARY KEY (doc, ordinal)
        );

        -- Vectors keyed by the sha256 of the exact text embedded and the model:
        -- identical text is never embedded twice, across edits, moves and branch switches.
        CREATE TABLE vectors (
            text_sha TEXT NOT NULL,
            model_id TEXT NOT NULL,
            dim      INTEGER NOT NULL,
            vector   BLOB NOT NULL,               -- little-endian float32
            PRIMARY KEY (text_sha, model_id)
        )
        """,
    )


def m003_reference_corpora(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        f"""
        -- Files of registered reference corpora: read-only upstream documentation.
        CREATE TABLE ref_files (
            rowid      INTEGER PRIMARY KEY,
            ref        TEXT NOT NULL,               -- the corpus name in .docir/refs.yaml
            source_uri TEXT NOT NULL UNIQUE,        -- absolute path: the identity across re-ingest
            relpath    TEXT NOT NULL,
            sha256     TEXT NOT NULL
        );
        CREATE INDEX ref_files_ref ON ref_files(ref);

        -- One row per heading chunk. Vectors live in `vectors`, keyed by text_sha and model.
        CREATE TABLE ref_chunks (
            rowid        INTEGER PRIMARY KEY,
            file         INTEGER NOT NULL REFERENCES ref_files(rowid) ON DELETE CASCADE,
            id           TEXT NOT NULL UNIQUE,      -- ref-<12 hex>
            ordinal      INTEGER NOT NULL,
            heading_path TEXT NOT NULL,             -- JSON array, the file name first
            text         TEXT NOT NULL,             -- breadcrumb line, then the section text
            continuation INTEGER NOT NULL,
            start        INTEGER NOT NULL,
            end          INTEGER NOT NULL,
            text_sha     TEXT NOT NULL,
            model_id     TEXT                       -- the model whose vector it has (another model: due)
        );
        CREATE INDEX ref_chunks_file ON ref_chunks(file);

        CREATE VIRTUAL TABLE ref_fts USING fts5(heading, body, tokenize = "{FTS_TOKENIZER}")
        """,
    )


def m004_file_state_index(conn: sqlite3.Connection) -> None:
    # Every command compares the files' stat with these four columns. Bodies are stored inline,
    # so without a covering index that comparison reads every page of the documents table.
    conn.execute("CREATE INDEX documents_file_state ON documents(path, size, mtime_ns, sha256)")


def m005_sections(conn: sqlite3.Connection) -> None:
    # Each heading section is searched on its own: in a long document the one section that answers
    # is a small part of the whole, and whole-document bm25 dilutes it (adr-78d1238b4ae2).
    _run(
        conn,
        f"""
        CREATE TABLE sections (
            rowid   INTEGER PRIMARY KEY,
            doc     INTEGER NOT NULL REFERENCES documents(rowid) ON DELETE CASCADE,
            path    TEXT NOT NULL,      -- JSON array: the headings above it and its own
            start   INTEGER NOT NULL,
            end     INTEGER NOT NULL
        );
        CREATE INDEX sections_doc ON sections(doc);

        CREATE VIRTUAL TABLE sections_fts USING fts5(title, about, heading, body, tokenize = "{FTS_TOKENIZER}");

        UPDATE documents SET size = -1, sha256 = ''
        """,
    )
    # The last statement makes the next stat walk re-read every file, which fills the new tables;
    # text_sha is kept, so no vector is recomputed.


def m006_section_owner_column(conn: sqlite3.Connection) -> None:
    # Each section's FTS row names its document's rowid in a column of its own, so the section
    # query can be limited to the documents the whole-document bm25 ranks first: where most
    # sections share the task's words, scoring all of them is most of a warm context
    # (issue-63fe87fef103). Rows are copied, not re-read from the files.
    _run(
        conn,
        f"""
        CREATE VIRTUAL TABLE sections_fts_new USING fts5(title, about, heading, body, doc,
                                                         tokenize = "{FTS_TOKENIZER}");
        INSERT INTO sections_fts_new (rowid, title, about, heading, body, doc)
            SELECT f.rowid, f.title, f.about, f.heading, f.body, s.doc
            FROM sections_fts f JOIN sections s ON s.rowid = f.rowid;
        DROP TABLE sections_fts;
        ALTER TABLE sections_fts_new RENAME TO sections_fts
        """,
    )


def m007_what_a_reader_sees(conn: sqlite3.Connection) -> None:
    # HTML comments are not searched, embedded or chunked, and a section holding nothing else is no
    # section (adr-b3bfbc7a2dfb). `shown` is the body with them blanked, offsets kept, where it has
    # any. Every file is re-read to fill it, and every document is re-chunked: a section vector
    # whose text did not change is reused by its hash, so only texts that lost a comment are embedded,
    # and the old section rows serve until their replacements are written (dirty 2: sections due).
    _run(
        conn,
        """
        ALTER TABLE documents ADD COLUMN shown TEXT;
        UPDATE documents SET size = -1, sha256 = '';
        UPDATE embeddings SET dirty = 2 WHERE dirty = 0
        """,
    )


def m008_shared_section_bodies(conn: sqlite3.Connection) -> None:
    # A section whose body another document says word for word gets no vector, and a heading with no
    # text of its own under another heading makes no chunk (adr-5d1c0a7e94b2). `body_key` is what a
    # section says (documents/chunk.py body_key); `shared` marks a chunk row planned but given no
    # vector. `hidden` is how many bytes of a body are HTML comments, said beside `size` (adr-b3bfbc7a2dfb).
    # Every file is re-read to fill both and every document re-planned; the vectors of
    # texts that did not change are reused by their hash, so nothing reaches the model.
    _run(
        conn,
        """
        ALTER TABLE sections ADD COLUMN body_key TEXT;
        CREATE INDEX sections_body_key ON sections(body_key);
        ALTER TABLE chunk_embeddings ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE documents ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
        UPDATE documents SET size = -1, sha256 = '';
        UPDATE embeddings SET dirty = 2 WHERE dirty = 0
        """,
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    m001_documents, m002_vectors, m003_reference_corpora, m004_file_state_index, m005_sections,
    m006_section_owner_column, m007_what_a_reader_sees, m008_shared_section_bodies)
