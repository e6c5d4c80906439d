"""The organisation store's candidate rankings, each one SQL statement with a LIMIT.

The database ranks; docir fuses (services/retrieval/org_ranking.py turns each list's raw scores
into z-scores over its own candidates, as the local ranking does: adr-78d1238b4ae2). The lists:

- sections: every visible section by ts_rank_cd against the task's terms ORed, with its document's
  title and description, a document taking its best section's place (the local bm25 over heading
  sections);
- pairs: whole documents by ts_rank_cd against the task's adjacent word pairs as phrases ORed (the
  local NEAR ranking; PostgreSQL's phrases are adjacent words, stopwords aside, not a window);
- vectors: the nearest document and section vectors by pgvector's cosine distance, through the
  partial HNSW indexes (tables.py: the ORDER BY casts to vector(DIMENSION) and the WHERE repeats
  the indexes' predicate), each document taking its best before visibility and the LIMIT.

Only repositories whose vectors come from the reader's model are ranked by vector; the caller
passes them. No statement reads more than its LIMIT's rows back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docir.index.fts import query_terms, word_pairs
from docir.org.peer import OrgPeer, visible
from docir.org.records import LexicalRow, VectorRow
from docir.org.tables import TEXT_SEARCH

SECTION_GATE = 200  # documents whose sections are scored; the local ranking's gate (services/retrieval/lexical.py)
# HNSW visits at most ef_search candidates; a filtered, widened search needs more (pgvector's maximum is 1000).
EF_SEARCH_MAX = 1000

# The bytes of a section's lines of its document's body (`s` a section, `d` its document).
_SECTION_BYTES = ("octet_length(array_to_string((string_to_array(d.body, E'\\n'))[s.start_line:s.end_line], "
                  "E'\\n'))")
# The share of the task's terms a document contains (1 for a task of fewer than two terms).
_COVERAGE = ("CASE WHEN cardinality(%(terms)s::text[]) < 2 THEN 1.0 ELSE "
             "(SELECT count(*) FROM unnest(%(terms)s::text[]) AS t(term) "
             "WHERE d.tsv @@ plainto_tsquery(%(config)s::regconfig, t.term))::float8 "
             "/ cardinality(%(terms)s::text[]) END")


def _quoted(words: Sequence[str]) -> str:
    """Words as a websearch_to_tsquery text that ORs them, each quoted: user text is never query syntax."""
    return " or ".join(f'"{word}"' for word in words)


def pairs_of(text: str) -> list[str]:
    """The task's adjacent words as two-word phrases (the pairs of the local NEAR ranking)."""
    return [f"{a} {b}" for a, b in word_pairs(text)]


def lexical_sections(peer: OrgPeer, repos: Sequence[str], text: str, *, include_inactive: bool,
                     limit: int, gate: int = SECTION_GATE) -> list[LexicalRow]:
    """Visible documents by their best section's ts_rank_cd, best first. Sections are scored only in the
    `gate` documents the whole-document rank puts first, as a big local index does (lexical.SECTION_GATE):
    scoring every matching section costs in proportion to the organisation's sections."""
    terms = query_terms(text)
    if not terms or not repos:
        return []
    # A section is found by its document's title and description as well as by its own words (as the local
    # sections are, index/docs_table.py): its tsvector joined to the A and B lexemes of its document's.
    sql = f"""
        WITH q AS (SELECT websearch_to_tsquery(%(config)s::regconfig, %(words)s) AS q),
        docs AS (
            SELECT d.repo, d.id, ts_filter(d.tsv, '{{a,b}}') AS about
            FROM docir.documents d CROSS JOIN q
            WHERE d.tsv @@ q.q AND d.repo = ANY(%(repos)s) AND {visible(include_inactive)}
            ORDER BY ts_rank_cd(d.tsv, q.q) DESC, d.repo, d.id LIMIT %(gate)s
        ), best AS (
            SELECT DISTINCT ON (s.repo, s.doc_id) s.repo, s.doc_id, s.ord, s.heading, s.start_line, s.end_line,
                   ts_rank_cd(s.tsv || docs.about, q.q) AS raw
            FROM docs JOIN docir.sections s ON s.repo = docs.repo AND s.doc_id = docs.id CROSS JOIN q
            WHERE (s.tsv || docs.about) @@ q.q
            ORDER BY s.repo, s.doc_id, raw DESC, s.ord
        )
        SELECT s.repo, s.doc_id, s.raw, s.heading, {_SECTION_BYTES}, {_COVERAGE}
        FROM best s JOIN docir.documents d ON d.repo = s.repo AND d.id = s.doc_id
        ORDER BY s.raw DESC, s.repo, s.doc_id LIMIT %(limit)s"""
    params = {"config": TEXT_SEARCH, "words": _quoted(terms), "terms": terms, "repos": list(repos),
              "limit": limit, "gate": max(gate, limit)}
    rows = peer.run(lambda c: c.execute(sql, params).fetchall())
    return [LexicalRow(repo, doc_id, float(raw), tuple(heading or ()), size, float(coverage))
            for repo, doc_id, raw, heading, size, coverage in rows]


def lexical_pairs(peer: OrgPeer, repos: Sequence[str], text: str, *, include_inactive: bool,
                  limit: int) -> list[LexicalRow]:
    """Visible documents by ts_rank_cd of the task's adjacent word pairs as phrases, best first."""
    pairs = pairs_of(text)
    if not pairs or not repos:
        return []
    sql = f"""
        WITH q AS (SELECT websearch_to_tsquery(%(config)s::regconfig, %(words)s) AS q)
        SELECT d.repo, d.id, ts_rank_cd(d.tsv, q.q) AS raw, {_COVERAGE}
        FROM docir.documents d CROSS JOIN q
        WHERE d.tsv @@ q.q AND d.repo = ANY(%(repos)s) AND {visible(include_inactive)}
        ORDER BY raw DESC, d.repo, d.id LIMIT %(limit)s"""
    params = {"config": TEXT_SEARCH, "words": _quoted(pairs), "terms": query_terms(text),
              "repos": list(repos), "limit": limit}
    rows = peer.run(lambda c: c.execute(sql, params).fetchall())
    return [LexicalRow(repo, doc_id, float(raw), None, None, float(coverage)) for repo, doc_id, raw, coverage in rows]


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form of a vector; sent as text, so the reader needs no pgvector adapter."""
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def nearest(peer: OrgPeer, repos: Sequence[str], vector: Sequence[float], *, include_inactive: bool, limit: int,
            widen: int = 8) -> list[VectorRow]:
    """Visible documents by their best cosine (document or section vector), best first.

    The HNSW scans take the `limit * widen` nearest vectors of each table, then each document keeps
    its best and the visible ones are cut to `limit` (the local ranking's order of steps)."""
    if not repos:
        return []
    dim = len(vector)  # tables.DIMENSION for docir's model: another one is compared without an index
    wide = limit * widen
    distance = f"{{alias}}.vector::vector({dim}) <=> %(v)s::vector({dim})"
    sql = f"""
        WITH near_sections AS (
            SELECT s.repo, s.doc_id AS id, s.ord, s.heading, s.start_line, s.end_line,
                   {distance.format(alias="s")} AS distance
            FROM docir.sections s
            WHERE vector_dims(s.vector) = {dim} AND s.repo = ANY(%(repos)s)
            ORDER BY {distance.format(alias="s")} LIMIT %(wide)s
        ), near_documents AS (
            SELECT d.repo, d.id, -1 AS ord, NULL::text[] AS heading, NULL::integer AS start_line,
                   NULL::integer AS end_line, {distance.format(alias="d")} AS distance
            FROM docir.documents d
            WHERE vector_dims(d.vector) = {dim} AND d.repo = ANY(%(repos)s)
            ORDER BY {distance.format(alias="d")} LIMIT %(wide)s
        ), best AS (
            SELECT DISTINCT ON (c.repo, c.id) c.*
            FROM (SELECT * FROM near_sections UNION ALL SELECT * FROM near_documents) c
            ORDER BY c.repo, c.id, c.distance, c.ord
        )
        SELECT s.repo, s.id, 1 - s.distance, s.ord, s.heading,
               CASE WHEN s.ord < 0 THEN NULL ELSE {_SECTION_BYTES} END
        FROM best s JOIN docir.documents d ON d.repo = s.repo AND d.id = s.id
        WHERE {visible(include_inactive)}
        ORDER BY s.distance, s.repo, s.id LIMIT %(limit)s"""
    params = {"v": vector_literal(vector), "repos": list(repos), "wide": wide, "limit": limit}

    def read(conn: Any) -> list[Any]:
        # Filtered HNSW scans go on until enough rows pass the filter (pgvector 0.8's iterative scans).
        conn.execute(f"SET LOCAL hnsw.ef_search = {min(EF_SEARCH_MAX, max(40, wide))}")
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        return list(conn.execute(sql, params).fetchall())

    rows = peer.run(read)
    return [VectorRow(repo, doc_id, float(sim), int(ordinal), tuple(heading) if heading else None, size)
            for repo, doc_id, sim, ordinal, heading, size in rows]


def similarities(peer: OrgPeer, repos: Sequence[str], ids: Sequence[str],
                 vector: Sequence[float]) -> dict[tuple[str, str], float]:
    """The cosine of each named document's vector with `vector`: how near a linked document is."""
    if not repos or not ids:
        return {}
    dim = len(vector)
    sql = (f"SELECT d.repo, d.id, 1 - (d.vector::vector({dim}) <=> %(v)s::vector({dim})) FROM docir.documents d "
           f"WHERE vector_dims(d.vector) = {dim} AND d.repo = ANY(%(repos)s) AND d.id = ANY(%(ids)s)")
    params = {"v": vector_literal(vector), "repos": list(repos), "ids": list(ids)}
    return {(repo, doc_id): float(sim) for repo, doc_id, sim in peer.run(lambda c: c.execute(sql, params).fetchall())}

