"""Lexical reads: bm25-ranked FTS5 matches over documents and reference chunks, and per-term matches."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from docir.index import tokens
from docir.index.fts import BM25_WEIGHTS, SECTION_BM25_WEIGHTS, SECTION_TEXT_COLUMNS, common_words, quoted, weightless
from docir.index.records import Hit, SectionHit


class DocumentCounts:
    """How many rows of documents_fts hold each term, and how many rows there are: one state of an index."""

    MOST = 100_000  # terms kept: a long-lived process's store, asked in many words, stays small

    def __init__(self) -> None:
        self.terms: dict[str, int] = {}
        self.rows = -1  # not read yet


class LexicalSearch:
    """What FTS5 finds in documents_fts and ref_fts; the rows themselves are written by their tables."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._vocabulary_ready = False

    def weightless(self, words: Sequence[str], known: DocumentCounts | None = None) -> frozenset[str]:
        """The words bm25 gives no weight in documents_fts: each of their terms is in at least half of
        its rows. FTS5 floors a term's idf, log((N - n + 0.5) / (n + 0.5)), at 1e-6 once n >= N / 2, so
        such a word changes no order among the documents that match another word, and leaving it out of
        a MATCH only saves reading its doclist: where a store's vocabulary is small, most of the query.

        `known` holds counts read earlier from this same state of the index, and takes the new ones:
        counting a term's documents reads its whole doclist."""
        return self.common_and_weightless(words, known)[1]

    def common(self, words: Sequence[str], known: DocumentCounts | None = None) -> frozenset[str]:
        """The words of one term that COMMON_SHARE or more of the documents hold (fts.common): what a sketch
        leaves out in a big index; none when every word that has a term is. A word of several terms is
        never common, as in the organisation store, whose counts are of single words (org/ranking_sql.py)."""
        return self.common_and_weightless(words, known)[0]

    def common_and_weightless(self, words: Sequence[str],
                              known: DocumentCounts | None = None) -> tuple[frozenset[str], frozenset[str]]:
        """`common` and `weightless` of the same words, tokenized and counted once: a sketch in a big index
        needs both."""
        terms, holding, rows = self._holding(words, known)
        common = common_words({word: holding[held[0]] if len(held) == 1 else None for word, held in terms.items()},
                              rows)
        return common, frozenset(word for word, found in terms.items()
                                 if all(weightless(holding[t], rows) for t in found))

    def _holding(self, words: Sequence[str], known: DocumentCounts | None) -> tuple[dict[str, list[str]],
                                                                                     dict[str, int], int]:
        """Each word's terms (those it has), the documents holding each term, and the documents."""
        words = list(dict.fromkeys(words))
        if not words:
            return {}, {}, 0
        # The words are tokenized exactly as the index was (stemmed, identifiers kept whole).
        terms = {word: sorted(set(found[0])) for word, found in zip(words, tokens.shared().tokens([[w] for w in words]),
                                                                   strict=True) if found[0]}
        wanted = sorted(set().union(*terms.values())) if terms else []
        if not wanted:
            return {}, {}, 0
        counts = known if known is not None else DocumentCounts()
        missing = [term for term in wanted if term not in counts.terms]
        found: dict[str, int] = {}
        if missing:
            self._prepare_vocabulary()
            found = dict(self.conn.execute(
                f"SELECT term, doc FROM temp.docir_documents_vocabulary WHERE term IN ({','.join('?' * len(missing))})",
                missing))
            if len(counts.terms) < DocumentCounts.MOST:
                counts.terms.update((term, int(found.get(term, 0))) for term in missing)
        if counts.rows < 0:
            counts.rows = int(self.conn.execute("SELECT count(*) FROM documents_fts_docsize").fetchone()[0])
        holding = {term: int(found.get(term, counts.terms.get(term, 0))) for term in wanted}
        return terms, holding, counts.rows

    def _prepare_vocabulary(self) -> None:
        # Temporary tables: a read-only connection (a peer's index) may create them too.
        if self._vocabulary_ready:
            return
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.docir_documents_vocabulary"
                          " USING fts5vocab(main, documents_fts, row)")
        self._vocabulary_ready = True

    def lexical_hits(self, match: str, limit: int = -1) -> list[Hit]:
        """FTS matches, best first (bm25 with column weights; lower is better); all when limit < 0."""
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        rows = self.conn.execute(
            f"SELECT rowid, bm25(documents_fts, {weights}) AS score FROM documents_fts"
            " WHERE documents_fts MATCH ? ORDER BY score LIMIT ?",
            (match, limit),
        )
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def near_hits(self, near: str, limit: int) -> list[Hit]:
        """Documents where the query's words stand close together (a NEAR expression), best first."""
        return self.lexical_hits(near, limit)

    def best_sections(self, match: str, limit: int, among: Sequence[int] | None = None) -> list[SectionHit]:
        """Each document's best section among the first `limit` matching sections (of the documents
        `among`, or of all), best first. A section is scored by bm25 on its own text (with its
        document's title and its heading path), so a long document is as strong as its best section."""
        # The task's words are matched in the text columns only: a number in the task is not a rowid.
        match = f"{SECTION_TEXT_COLUMNS} : ({match})"
        weights = ", ".join(str(w) for w in SECTION_BM25_WEIGHTS)
        if among is None:
            scored = (f"SELECT rowid, bm25(sections_fts, {weights}) AS score FROM sections_fts"
                      " WHERE sections_fts MATCH ? ORDER BY score LIMIT ?")
            arguments: tuple[object, ...] = (match, limit)
        elif not among:
            return []
        else:
            # The documents are kept by their rowid, not by ORing one `doc : "rowid"` phrase per document
            # into the MATCH: bm25 walks every phrase of the expression for every row it scores, and 200
            # phrases of weight 0 made it most of a warm context. A document's phrase only ever added 0.0
            # to a score, so each kept section scores the same, and the sections reach the sort in the same
            # order (the full-text index's, rowid ascending: the scan is the only loop), so ties fall the
            # same way too (adr-0d3c41e5a7b9). The kept sections' rowids are looked up in a list built once
            # from sections_doc; `+` keeps the IN from FTS5, which would run the MATCH once per rowid.
            scored = (f"SELECT rowid, bm25(sections_fts, {weights}) AS score FROM sections_fts"
                      " WHERE sections_fts MATCH ? AND +rowid IN (SELECT s.rowid FROM sections s"
                      " WHERE s.doc IN (SELECT value FROM json_each(?))) ORDER BY score LIMIT ?")
            arguments = (match, json.dumps(list(among)), limit)
        # One row per document, in SQL: SQLite takes a bare column of a min() aggregate from the row
        # holding the minimum, and only the winners' heading paths are parsed.
        rows = self.conn.execute(
            f"SELECT s.doc, s.path, s.start, s.end, min(f.score) AS best FROM ({scored}) f"
            " JOIN sections s ON s.rowid = f.rowid GROUP BY s.doc ORDER BY best, s.doc",
            arguments,
        )
        return [SectionHit(int(r[0]), tuple(json.loads(r[1])), int(r[2]), int(r[3]), float(r[4])) for r in rows]

    def section_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM sections").fetchone()[0])

    def ref_lexical_hits(self, match: str, limit: int) -> list[Hit]:
        rows = self.conn.execute(
            "SELECT rowid, bm25(ref_fts, 3.0, 1.0) AS score FROM ref_fts WHERE ref_fts MATCH ? ORDER BY score LIMIT ?",
            (match, limit),
        )
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def term_rowids(self, terms: list[str], among: list[int], table: str = "documents_fts") -> list[set[int]]:
        """For each term, which of the rows `among` match it (as FTS matches: stemmed, any column)."""
        if table not in ("documents_fts", "ref_fts"):
            raise ValueError(table)
        # `among` is probed against the term's whole match, which SQLite builds once as an index:
        # a `rowid IN (...)` constraint on the FTS side would run the match once per value instead,
        # and intersecting in Python reads every matching row into Python (a common term matches most
        # rows), about twice as slow at 10,000 documents (issue-63fe87fef103).
        wanted = json.dumps(among)
        return [
            {int(r[0]) for r in self.conn.execute(
                f"SELECT value FROM json_each(?) WHERE value IN (SELECT rowid FROM {table} WHERE {table} MATCH ?)",
                (wanted, quoted(term)))}
            for term in terms
        ]

    def term_matches(self, rowid: int, term: str) -> bool:
        """Whether one query term (as FTS matches it: stemmed, any column) occurs in the document."""
        found = self.conn.execute(
            "SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?",
            (quoted(term), rowid),
        ).fetchone()
        return found is not None
