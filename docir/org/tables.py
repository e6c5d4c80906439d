"""The organisation database's tables, and the migrations that make them.

Everything lives in the schema `docir`, so the database can hold other things too. `meta` holds
`schema_version`: every connection reads it and refuses a database older or newer than
MIGRATIONS (one line, exit 2). A migration is appended, never edited: a database at version N
runs MIGRATIONS[N:] in one transaction.

One row per document of each repository, keyed (repo, id): ids are unique across an
organisation's repositories (they are random, adr-style), so a link names its target by id alone
and a successor may live in another repository. `active` is the status's activity under the
publishing repository's own schema, computed at publish: the reader's visibility predicate is
`active AND NOT archived`, one column, whatever the schemas.

Vectors: pgvector's `vector` without a dimension, so one database holds any model; each
repository records its model id, and the HNSW indexes are partial expression indexes for the
one dimension docir's offline model gives (384). A reader compares only vectors whose repository
used the reader's model (`repos.model_id`). A repository published in bulk has an index of its own
for its sections' vectors (migration 3, own_index_sql), named in `repos.vector_index`.
"""

from __future__ import annotations

DIMENSION = 384  # all-MiniLM-L6-v2, the model docir ships with; another model is searched without HNSW



def _draw(repo: str, doc_id: str) -> str:
    """A document's draw (migration 3) as SQL over its repository's and id's columns."""
    return f"('x' || substr(md5({repo} || ' ' || {doc_id}), 1, 12))::bit(48)::bigint::float8 / 281474976710656.0"


def own_index_sql(name: str, repo: str) -> str:
    """The HNSW index of one repository's section vectors (`repo` a quoted literal): a partial index
    whose predicate a reader's statement repeats word for word (ranking_sql.nearest_statement)."""
    return (f'CREATE INDEX "{name}" ON docir.sections USING hnsw ((vector::vector({DIMENSION})) vector_cosine_ops) '
            f"WHERE vector_dims(vector) = {DIMENSION} AND own_index AND repo = {repo}")


def quoted(text: str) -> str:
    """A SQL string literal (standard_conforming_strings, PostgreSQL's default since 9.1)."""
    return "'" + text.replace("'", "''") + "'"


MIGRATIONS: tuple[str, ...] = (
    # 1: the first tables
    f"""
    CREATE SCHEMA IF NOT EXISTS docir;
    CREATE TABLE docir.meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE docir.repos (
        name text PRIMARY KEY,               -- from the git remote, or --as
        remote text NOT NULL,                -- the normalised remote URL; '' when published with --as and none
        model_id text,                       -- the embedding model of its vectors; NULL: none computed
        dimension integer,
        model_window integer,                -- tokens per embedded text
        chunking text,                       -- how sections were cut, so two publishes compare
        schema jsonb NOT NULL,               -- the repository's docs-schema, as parsed
        revision text,                       -- the commit published
        published_at timestamptz NOT NULL DEFAULT now(),
        documents integer NOT NULL DEFAULT 0
    );
    CREATE TABLE docir.documents (
        repo text NOT NULL REFERENCES docir.repos(name) ON DELETE CASCADE,
        id text NOT NULL,
        path text NOT NULL,                  -- relative to the repository's store root
        type text NOT NULL,
        title text NOT NULL,
        description text NOT NULL,
        status text,
        active boolean NOT NULL,             -- the status's activity under the repository's schema
        archived boolean NOT NULL,
        tags text[] NOT NULL,
        owner text,
        verified text,
        related jsonb NOT NULL,              -- [[kind, target id], ...] as the local index keeps them
        applies_to text[] NOT NULL,
        meta jsonb NOT NULL,                 -- the whole frontmatter
        body text NOT NULL,                  -- what `docir get` returns
        sha256 text NOT NULL,                -- of the file: an unchanged document is not rewritten
        fingerprint text NOT NULL,           -- of all the row holds (file, path, active, vectors): publish compares it
        tsv tsvector NOT NULL,               -- migration 2: lex, FTS5's tokens (org/lexemes.py)
        vector vector,                       -- the document vector; NULL when not computed yet
        PRIMARY KEY (repo, id)
    );
    CREATE INDEX documents_id ON docir.documents (id);
    CREATE INDEX documents_tsv ON docir.documents USING gin (tsv);
    CREATE INDEX documents_vector ON docir.documents
        USING hnsw ((vector::vector({DIMENSION})) vector_cosine_ops) WHERE vector_dims(vector) = {DIMENSION};
    CREATE TABLE docir.sections (
        repo text NOT NULL,
        doc_id text NOT NULL,
        ord integer NOT NULL,                -- the section's place in its document
        heading text[] NOT NULL,             -- its heading path
        start_line integer NOT NULL,         -- 1-based lines of the body, end included
        end_line integer NOT NULL,
        tsv tsvector NOT NULL,               -- migration 2: lex, for the first piece of each heading section
        vector vector,                       -- NULL: not computed, or its text is said by another document
        PRIMARY KEY (repo, doc_id, ord),
        FOREIGN KEY (repo, doc_id) REFERENCES docir.documents(repo, id) ON DELETE CASCADE
    );
    CREATE INDEX sections_tsv ON docir.sections USING gin (tsv);
    CREATE INDEX sections_vector ON docir.sections
        USING hnsw ((vector::vector({DIMENSION})) vector_cosine_ops) WHERE vector_dims(vector) = {DIMENSION};
    CREATE TABLE docir.links (
        repo text NOT NULL,
        doc_id text NOT NULL,
        kind text NOT NULL,                  -- supersedes, depends-on, ... as the schema names them
        target text NOT NULL,                -- a document id, in any repository
        PRIMARY KEY (repo, doc_id, kind, target),
        FOREIGN KEY (repo, doc_id) REFERENCES docir.documents(repo, id) ON DELETE CASCADE
    );
    CREATE INDEX links_target ON docir.links (target);
    """,
    # 2: words as the local index has them (org/lexemes.py, adr-8a976b997594): FTS5's tokens in place
    # of PostgreSQL's english stems, each row's length in tokens, and the totals bm25 averages over;
    # `terms` counts each repository's searched documents and sections holding each word, so a
    # reader's idf reads a few index rows per word instead of every row holding it.
    # Rows published before keep no words until their repository publishes again (its ROW_FORMAT
    # moved, so every document is rewritten); until then they are found by their vectors alone.
    """
    ALTER TABLE docir.documents DROP COLUMN tsv;
    ALTER TABLE docir.documents ADD COLUMN lex tsvector, ADD COLUMN lex_tokens integer;
    CREATE INDEX documents_lex ON docir.documents USING gin (lex);
    ALTER TABLE docir.sections DROP COLUMN tsv;
    ALTER TABLE docir.sections ADD COLUMN lex tsvector, ADD COLUMN lex_tokens integer;
    CREATE INDEX sections_lex ON docir.sections USING gin (lex);
    ALTER TABLE docir.repos
        ADD COLUMN row_format integer NOT NULL DEFAULT 1,
        ADD COLUMN lex_documents integer NOT NULL DEFAULT 0,
        ADD COLUMN lex_document_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN lex_sections integer NOT NULL DEFAULT 0,
        ADD COLUMN lex_section_tokens bigint NOT NULL DEFAULT 0;
    CREATE TABLE docir.terms (
        repo text NOT NULL REFERENCES docir.repos(name) ON DELETE CASCADE,
        lexeme text NOT NULL,
        documents integer NOT NULL,          -- its searched documents holding the word
        sections integer NOT NULL,           -- its searched heading sections holding the word
        PRIMARY KEY (lexeme, repo)
    );
    CREATE INDEX terms_repo ON docir.terms (repo);
    """,
    # 3: a document's draw, a number in [0, 1) its repository and id fix (the first 48 bits of their
    # md5), which its sections share: the documents drawn below a threshold are a uniform sample,
    # the same one for every reader, that a big store's background is measured on
    # (ranking_sql.background_statement, adr-25795d32a61a).
    f"""
    ALTER TABLE docir.documents ADD COLUMN draw float8 GENERATED ALWAYS AS ({_draw("repo", "id")}) STORED;
    ALTER TABLE docir.sections ADD COLUMN draw float8 GENERATED ALWAYS AS ({_draw("repo", "doc_id")}) STORED;
    CREATE INDEX documents_draw ON docir.documents (draw);
    CREATE INDEX sections_draw ON docir.sections (draw);
    """
    # And a repository published in bulk keeps its section vectors in an HNSW index of its own,
    # built at once over its rows (`repos.vector_index`, its rows `own_index`), which the shared
    # index leaves out: taking tens of thousands of vectors one insert at a time was most of a big
    # first publish (adr-6c44f1cb3e41).
    f"""
    ALTER TABLE docir.repos ADD COLUMN vector_index text;
    ALTER TABLE docir.sections ADD COLUMN own_index boolean NOT NULL DEFAULT false;
    DROP INDEX docir.sections_vector;
    CREATE INDEX sections_vector ON docir.sections
        USING hnsw ((vector::vector({DIMENSION})) vector_cosine_ops)
        WHERE vector_dims(vector) = {DIMENSION} AND NOT own_index;
    """,
    # 4: each word's counts in the key that finds the word (INCLUDE), so a reader's idfs
    # (ranking_sql.weights_statement) read a few pages of the index per word, not a heap row of every
    # repository holding it: 44 ms a task at 4,000 repositories, 1.6 ms with the counts in the index.
    """
    ALTER TABLE docir.terms DROP CONSTRAINT terms_pkey,
        ADD CONSTRAINT terms_pkey PRIMARY KEY (lexeme, repo) INCLUDE (documents, sections);
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)
# A reader reads tables of this version or later: version 4 only gave an index the counts a reader
# reads, so tables no publish has migrated yet answer the same, more slowly.
OLDEST_READABLE = 3
