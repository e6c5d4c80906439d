"""The organisation store's candidate rankings, each one SQL statement with a LIMIT.

The database ranks; docir fuses (services/retrieval/org_ranking.py turns each list's raw scores
into z-scores over its own candidates, as the local ranking does: adr-78d1238b4ae2). The lists:

- sections: every visible section by FTS5's bm25 without length normalisation (each task term's idf
  over the sections read times its saturated count, summed) with its document's title and
  description, a document taking its best section's place (the local bm25 over heading sections);
- pairs: whole documents where the task's adjacent word pairs stand within NEAR_DISTANCE words of each
  other, either first, scored by the pairs' words' idf over documents times their ts_rank (the local
  NEAR ranking);
- vectors: the nearest document and section vectors by pgvector's cosine distance, through the
  partial HNSW indexes (tables.py: the ORDER BY casts to vector(DIMENSION) and the WHERE repeats
  the indexes' predicate), each document taking its best before visibility and the LIMIT.

Only repositories whose vectors come from the reader's model are ranked by vector; the caller
passes them. No statement reads more than its LIMIT's rows back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docir.index.fts import NEAR_DISTANCE, query_terms, word_pairs
from docir.org.peer import OrgPeer, visible
from docir.org.records import LexicalRow, VectorRow
from docir.org.tables import TEXT_SEARCH

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


# Each task term's tsquery and its weight: FTS5's bm25 idf, ln((N - n + 0.5) / (n + 0.5)) floored at
# 1e-6 as FTS5 floors it, n the rows of `table` in the repositories read that hold the term (one
# GIN-indexed count per term) and N all of them: sections for the sections list, documents for the
# pairs, as the local bm25 counts them. ts_rank_cd has no idf: without it a task's common words
# outweigh its rare ones (adr-8a976b997594).
def _weights(table: str) -> str:
    return f"""
    words AS (
        SELECT t.term, plainto_tsquery(%(config)s::regconfig, t.term) AS tq,
               tsvector_to_array(to_tsvector(%(config)s::regconfig, t.term)) AS lexemes
        FROM unnest(%(terms)s::text[]) AS t(term)
    ), total AS (
        SELECT count(*)::float8 AS n FROM docir.{table} WHERE repo = ANY(%(repos)s)
    ), weights AS (
        SELECT w.term, w.tq, w.lexemes, greatest(ln((total.n - df.n + 0.5) / (df.n + 0.5)), 1e-6) AS idf
        FROM words w CROSS JOIN total CROSS JOIN LATERAL (
            SELECT count(*)::float8 AS n FROM docir.{table} x WHERE x.tsv @@ w.tq AND x.repo = ANY(%(repos)s)
        ) df
        WHERE numnode(w.tq) > 0
    )"""


# FTS5's bm25 k1 (SQLite's, which the local ranking uses). Its b, the length normalisation, is 0 here:
# measured on the EIPs (adr-8a976b997594), b 0.75 over the sections' lengths scored 0.7329 nDCG@10
# against 0.7449 for none, and its average length cost a scan of every section read.
BM25_K1 = 1.2


def _bm25(tsv: str) -> str:
    """FTS5's bm25 of a tsvector without length normalisation (every column weighed 1): the sum over
    the task's terms of idf x tf (k1 + 1) / (tf + k1), tf the count of the term's lexemes' positions."""
    return f"""(SELECT coalesce(sum(w.idf * f.tf * {BM25_K1 + 1} / (f.tf + {BM25_K1})), 0)
              FROM weights w CROSS JOIN LATERAL (
                  SELECT sum(cardinality(u.positions))::float8 AS tf FROM unnest({tsv}) u
                  WHERE u.lexeme = ANY(w.lexemes)) f
              WHERE f.tf > 0)"""


# ts_rank's weights of the D, C, B and A lexemes: every part counts alike, as in the local sections'
# bm25 (fts.SECTION_BM25_WEIGHTS); no length normalisation. Measured on the EIPs (benchmarks/history.md):
# PostgreSQL's default weights, normalising by log length, or a document's title, description and body
# weighed 10, 5, 1 as fts.BM25_WEIGHTS does, each cost the lists 0.01 to 0.2 nDCG@10.
RANK_WEIGHTS = "{1, 1, 1, 1}"
NORMALIZATION = 0


def _rank(tsv: str, tq: str, weights: str) -> str:
    return f"ts_rank('{weights}'::float4[], {tsv}, {tq}, {NORMALIZATION})"


def _weighted(tsv: str, weights: str = RANK_WEIGHTS) -> str:
    """A bm25-like score of a tsvector: the sum over the task's terms of idf x ts_rank of that term alone
    (ts_rank of one term is its frequency, saturating)."""
    return f"(SELECT coalesce(sum(w.idf * {_rank(tsv, 'w.tq', weights)}), 0) FROM weights w)"


def _quoted(words: Sequence[str]) -> str:
    """Words as a websearch_to_tsquery text that ORs them, each quoted: user text is never query syntax."""
    return " or ".join(f'"{word}"' for word in words)


def lexical_sections(peer: OrgPeer, repos: Sequence[str], text: str, *, include_inactive: bool,
                     limit: int, gate: int) -> list[LexicalRow]:
    """Visible documents by their best section's bm25 (_bm25), best first. Sections are scored only in the
    `gate` documents idf x ts_rank (_weighted) puts first over whole documents, as a big local index does
    (the caller passes lexical.SECTION_GATE): scoring every matching section costs in proportion to the
    organisation's sections.
    On the EIPs (584 documents) a gate of 200 and none give the same list."""
    terms = query_terms(text)
    if not terms or not repos:
        return []
    # A section is found by its document's title and description as well as by its own words (as the local
    # sections are, index/docs_table.py): its tsvector joined to the A and B lexemes of its document's.
    sql = f"""
        WITH q AS (SELECT websearch_to_tsquery(%(config)s::regconfig, %(words)s) AS q), {_weights("sections")},
        docs AS (
            SELECT d.repo, d.id, ts_filter(d.tsv, '{{a,b}}') AS about
            FROM docir.documents d CROSS JOIN q
            WHERE d.tsv @@ q.q AND d.repo = ANY(%(repos)s) AND {visible(include_inactive)}
            ORDER BY {_weighted("d.tsv")} DESC, d.repo, d.id LIMIT %(gate)s
        ), found AS MATERIALIZED (
            SELECT s.repo, s.doc_id, s.ord, s.heading, s.start_line, s.end_line, s.tsv || docs.about AS tsv
            FROM docs JOIN docir.sections s ON s.repo = docs.repo AND s.doc_id = docs.id CROSS JOIN q
            WHERE (s.tsv || docs.about) @@ q.q
        ), best AS (
            SELECT DISTINCT ON (s.repo, s.doc_id) s.repo, s.doc_id, s.ord, s.heading, s.start_line, s.end_line,
                   {_bm25("s.tsv")} AS raw
            FROM found s
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
    """Visible documents by the task's adjacent word pairs standing close together, best first: the local
    NEAR ranking's bm25 over whole documents, each pair found scoring its two words' idf x ts_rank."""
    pairs = word_pairs(text)
    if not pairs or not repos:
        return []
    # Either word first, at most NEAR_DISTANCE words between (FTS5's NEAR): tsquery phrases are exact
    # distances, so one per distance, ORed. Built from plainto_tsquery: user text is never query syntax.
    near = " || ".join(f"tsquery_phrase({x}.tq, {y}.tq, {k})"
                       for k in range(1, NEAR_DISTANCE + 2) for x, y in (("wa", "wb"), ("wb", "wa")))
    sql = f"""
        WITH {_weights("documents")},
        pairs AS (
            SELECT wa.tq AS a, wa.idf AS ia, wb.tq AS b, wb.idf AS ib, ({near}) AS near
            FROM unnest(%(firsts)s::text[], %(seconds)s::text[]) AS p(first, second)
            JOIN weights wa ON wa.term = p.first JOIN weights wb ON wb.term = p.second
        ), q AS (
            -- The pairs ORed: a tsquery's text form is read back as it is, lexemes quoted.
            SELECT string_agg('(' || p.near::text || ')', ' | ')::tsquery AS q FROM pairs p
        )
        SELECT d.repo, d.id, (
            SELECT sum(p.ia * {_rank("d.tsv", "p.a", RANK_WEIGHTS)}
                       + p.ib * {_rank("d.tsv", "p.b", RANK_WEIGHTS)})
            FROM pairs p WHERE d.tsv @@ p.near) AS raw, {_COVERAGE}
        FROM docir.documents d CROSS JOIN q
        WHERE d.tsv @@ q.q AND d.repo = ANY(%(repos)s) AND {visible(include_inactive)}
        ORDER BY raw DESC, d.repo, d.id LIMIT %(limit)s"""
    params = {"config": TEXT_SEARCH, "terms": query_terms(text), "firsts": [a for a, _ in pairs],
              "seconds": [b for _, b in pairs], "repos": list(repos), "limit": limit}
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

