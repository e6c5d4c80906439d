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


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (m001_documents,)
