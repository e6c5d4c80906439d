"""The organisation store's candidate rankings, each one SQL statement with a LIMIT.

The database ranks; docir fuses (services/retrieval/org_ranking.py turns each list's raw scores
into z-scores over its own candidates, as the local ranking does: adr-78d1238b4ae2). The full-text
lists are the local ones computed in SQL: the rows' words are FTS5's own tokens (org/lexemes.py)
and the score is FTS5's bm25, so a published document scores what it scores in a local index
holding the same documents (adr-8a976b997594):

- sections: every heading section's bm25 (its document's title, description and tags, its heading
  path and its text, each weighed 1; idf over the sections read), the best LIMIT x
  SECTIONS_PER_DOCUMENT sections kept and each document taking its best one's place. Past
  GATE_FROM_SECTIONS sections, only the SECTION_GATE documents the whole-document bm25 ranks first
  are scored, as in a big local index;
- pairs: whole documents where the task's adjacent word pairs stand within NEAR_DISTANCE words of
  each other, either first, by bm25 over the pairs' words counting only the occurrences that stand
  near the other word (FTS5's NEAR), weighed by column (title, description, headings, body);
- vectors: the nearest document and section vectors by pgvector's cosine distance, through the
  partial HNSW indexes (tables.py: the ORDER BY casts to vector(DIMENSION) and the WHERE repeats
  the indexes' predicate), each document taking its best before visibility and the LIMIT;
  In a small store (EXACT_BELOW), every vector is compared instead;
- background: what a vector must stand out of (BACKGROUND_SAMPLE).

In a big store, the lists of a form that leaves its common words out (a sketch, need.LEAVES_COMMON)
read them without the words that COMMON_SHARE or more of the documents hold, as a big local index
does (lexical.LexicalLists).

The whole-document lists (the gate, pairs) score only the documents that can still reach them
(org/bounds.py, adr-f28942173e60): the same rows in the same order as scoring every candidate.

Only repositories whose vectors come from the reader's model are ranked by vector; the caller
passes them. No statement reads more than its LIMIT's rows back (the background, about
BACKGROUND_SAMPLE's).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar

from docir.index import tokens
from docir.index.fts import (
    GATE_FROM_SECTIONS,
    NEAR_DISTANCE,
    SECTION_GATE,
    SECTIONS_PER_DOCUMENT,
    common_words,
    kept_pairs,
    query_terms,
    weightless,
    word_pairs,
)
from docir.org import bounds, lexemes
from docir.org.bounds import BM25_B, BM25_K1, Unit
from docir.org.peer import LexicalTotals, OrgPeer, among, visible
from docir.org.records import LexicalRow, VectorRow
from docir.org.tables import quoted

T = TypeVar("T")
# HNSW visits at most ef_search candidates; a filtered, widened search needs more (pgvector's maximum is 1000).
EF_SEARCH_MAX = 1000
# The rows a list scores to learn how high its k-th row stands (org/bounds.py): k times this many,
# all holding the task's rarest words together.
SEED_ROWS = 4
# A document's own bound in the pairs list counts its words' occurrences through ts_rank_cd's single
# precision: it passes over a document only when that bound is below the floor by more than this share.
FLOOR_SLACK = 1e-4

# The bytes of a section's lines of its document's body (`s` a section, `d` its document).
_SECTION_BYTES = ("octet_length(array_to_string((string_to_array(d.body, E'\\n'))[s.start_line:s.end_line], "
                  "E'\\n'))")
# The share of the task's terms a document contains (1 for a task of fewer than two terms).
_COVERAGE = ("CASE WHEN cardinality(%(covered)s::tsquery[]) < 2 THEN 1.0 ELSE "
             "(SELECT count(*) FROM unnest(%(covered)s::tsquery[]) AS t(tq) WHERE d.lex @@ t.tq)::float8 "
             "/ cardinality(%(covered)s::tsquery[]) END")


class Terms(NamedTuple):
    """A task's terms as the local index tokenizes them: each one's tsquery and first token."""

    words: tuple[str, ...]  # query_terms, those that have a token
    queries: tuple[str, ...]  # each one's tsquery text
    tokens: tuple[str, ...]  # each one's first token (what NEAR looks for: most terms are one token)
    phrases: tuple[bool, ...]  # whether it is more than one token (docir.terms counts single words)
    holds: tuple[str, ...]  # each one's tokens, all of them anywhere: a row it scores in holds them

    @property
    def any(self) -> str:
        return " | ".join(f"({q})" for q in self.queries)

    def without(self, left_out: frozenset[int]) -> Terms:
        """These terms but the `left_out` ones (by position)."""
        return Terms(_kept(self.words, left_out), _kept(self.queries, left_out), _kept(self.tokens, left_out),
                     _kept(self.phrases, left_out), _kept(self.holds, left_out))


def _kept(values: tuple[T, ...], left_out: frozenset[int]) -> tuple[T, ...]:
    return tuple(value for i, value in enumerate(values) if i not in left_out)


def terms_of(text: str) -> Terms:
    words = query_terms(text)
    found = [(word, tokens) for word, [tokens, *_] in zip(words, tokens.shared().tokens([[w] for w in words]),
                                                          strict=True) if tokens]
    return Terms(tuple(w for w, _ in found), tuple(lexemes.term_query(t) for _, t in found),
                 tuple(t[0] for _, t in found), tuple(len(t) > 1 for _, t in found),
                 tuple(lexemes.all_of(t) for _, t in found))


def _saturated(tf: str, tokens: str, average: str) -> str:
    """bm25's term frequency part: tf (k1 + 1) / (tf + k1 (1 - b + b length / average length))."""
    return (f"{tf} * {BM25_K1 + 1} / ({tf} + {BM25_K1} * ({1 - BM25_B} + {BM25_B} * {tokens} "
            f"/ greatest(%({average})s, 1)))")


def _bm25(alias: str, idf: Callable[[int], str], terms: int, rank_weights: str, scale: float,
          average: str) -> tuple[str, str]:
    """FTS5's bm25 of a row: the sum over the terms of idf x saturated tf, tf the weighed count of the
    term's occurrences (ts_rank_cd of one term: each occurrence's label weight). Returns the FROM item
    that computes the row's tfs once (OFFSET 0: not inlined into each use) and the score over them; the
    terms are spelt out, so each row costs its function calls and no subquery (`idf(i)` is the i-th
    term's idf, read once)."""
    name = f"tf_{alias}"
    tfs = ", ".join(f"{_tf(i, rank_weights, scale)} AS t{i}" for i in range(terms))
    score = " + ".join(f"{idf(i)} * {_saturated(f'{name}.t{i}', f'{alias}.lex_tokens', average)}"
                       for i in range(terms))
    return f"CROSS JOIN LATERAL (SELECT {tfs} FROM {_read_once(alias)} OFFSET 0) {name}", f"({score})"


def _read_once(alias: str) -> str:
    """`alias`'s tsvector as `v.lex`, read once: a document's is kept out of line, and each function given
    the column itself would fetch it again (a concatenation makes the plain copy)."""
    return f"(SELECT {alias}.lex || ''::tsvector AS lex OFFSET 0) v"


def _tf(i: int, rank_weights: str, scale: float) -> str:
    """The weighed count of the i-th query's (Q<i>) occurrences in `v.lex` (_read_once): ts_rank_cd of one
    term is the sum of its occurrences' label weights, each at most 1, so scaled back."""
    return f"{scale} * ts_rank_cd('{rank_weights}'::float4[], v.lex, %(q{i})s::tsquery, 0)"


def _given(name: str) -> Callable[[int], str]:
    """The i-th term's idf, a parameter (`name` i, from weights_of): the number the database computed, sent back."""
    return lambda i: f"%({name}{i})s::float8"


def _params(terms: Terms, totals: LexicalTotals, repos: list[str] | None, **more: Any) -> dict[str, Any]:
    """A statement's parameters; the coverage counts every term unless `more` names those it counts."""
    return {"queries": list(terms.queries), "covered": list(terms.queries), "tokens": list(terms.tokens),
            "phrases": list(terms.phrases),
            "any": terms.any, "repos": repos, **{f"q{i}": query for i, query in enumerate(terms.queries)},
            "documents": totals.documents, "sections": totals.sections,
            "document_length": totals.document_length, "section_length": totals.section_length, **more}


class Weights(NamedTuple):
    """A task's terms as bm25 weighs them over the repositories read, in the terms' order."""

    documents: tuple[float, ...]  # each one's idf over the documents
    sections: tuple[float, ...]  # over the heading sections
    held: tuple[int, ...]  # the documents holding it


def is_big(totals: LexicalTotals) -> bool:
    """A big store (past GATE_FROM_SECTIONS sections read): its lists are gated and pruned, and a form's
    pairs list is read beside its others (services/retrieval/org_ranking.py)."""
    return totals.sections > GATE_FROM_SECTIONS


def weights_of(peer: OrgPeer, repos: Sequence[str], terms: Terms, totals: LexicalTotals) -> Weights:
    """FTS5's idf of each term, ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6 as FTS5 floors it, over the
    documents and over the sections read: one read of docir.terms' counts for every list of a form, the
    numbers then sent back with each statement (and summed into the terms' bounds, org/bounds.py)."""
    key = ("weights", tuple(repos), terms.queries)
    if key not in peer.known:
        rows = peer.run(lambda c: c.execute(weights_statement(), _params(terms, totals, peer.scope(repos))).fetchall())
        peer.known[key] = Weights(tuple(float(row[0]) for row in rows), tuple(float(row[1]) for row in rows),
                                  tuple(int(row[2]) for row in rows))
        if any(int(row[2]) > totals.documents for row in rows):
            peer.problems["the document counts of its repositories are behind their rows (a publish cut off, or "
                          "an edit by hand): words weigh less than they should until the next 'docir publish'"] = None
    found: Weights = peer.known[key]
    return found


def weights_statement() -> str:
    """Each term's idf over the documents and over the sections of the repositories read, and the
    documents holding it: N the repositories' kept totals, n their counts in docir.terms (a phrase's,
    one GIN-indexed count of each table)."""
    def idf(total: str, held: str) -> str:
        # The ratio is clamped before ln: counters behind their rows (N < n, a publish cut off, a hand edit)
        # give FTS5's floor, not an error that would skip the whole store.
        return f"greatest(ln(greatest((%({total})s - {held} + 0.5) / ({held} + 0.5), 1e-300)), 1e-6)"

    return f"""
        SELECT {idf("documents", "n.documents")}, {idf("sections", "n.sections")}, n.documents
        FROM unnest(%(queries)s::tsquery[], %(tokens)s::text[], %(phrases)s::boolean[])
             WITH ORDINALITY AS w(tq, token, phrase, i)
        CROSS JOIN LATERAL (
            SELECT CASE WHEN w.phrase THEN (SELECT count(*) FROM docir.documents x
                                             WHERE x.lex @@ w.tq AND {among('x.repo')})
                   ELSE t.documents END::float8 AS documents,
                   CASE WHEN w.phrase THEN (SELECT count(*) FROM docir.sections x
                                             WHERE x.lex @@ w.tq AND {among('x.repo')})
                   ELSE t.sections END::float8 AS sections
            FROM (SELECT coalesce(sum(t.documents), 0) AS documents, coalesce(sum(t.sections), 0) AS sections
                  FROM docir.terms t WHERE t.lexeme = w.token AND {among('t.repo')}) t
        ) n
        ORDER BY w.i"""


def _weightless(terms: Terms, weights: Weights, totals: LexicalTotals) -> frozenset[int]:
    """The terms bm25 gives no weight over the documents read: each in at least half of them, where FTS5
    floors the idf at 1e-6 (LexicalSearch.weightless). A big store leaves them out of what finds its
    candidates, as a big local index does (lexical.rank_documents): they change no order among the
    documents another term finds, and where the vocabulary is small they find most documents."""
    return frozenset(i for i, (phrase, held) in enumerate(zip(terms.phrases, weights.held, strict=True))
                     if not phrase and weightless(held, totals.documents))


def _common(terms: Terms, weights: Weights, totals: LexicalTotals) -> frozenset[int]:
    """The single-word terms that COMMON_SHARE or more of the documents read hold (fts.common), none when
    every term is: what a form that leaves its common words out leaves out (LexicalSearch.common)."""
    return common_words({i: None if phrase else held
                         for i, (phrase, held) in enumerate(zip(terms.phrases, weights.held, strict=True))},
                        totals.documents)


def _read(peer: OrgPeer, sql: str, params: dict[str, Any]) -> list[Any]:
    return list(peer.run(lambda c: c.execute(sql, params).fetchall()))


def _first(peer: OrgPeer, sql: str, params: dict[str, Any], *, within: str, units: Sequence[Unit], k: int,
           include_inactive: bool, prune: bool) -> list[Any]:
    """The first k rows of `sql`, a statement that scores the visible documents of `%(within)s` (a tsquery)
    best first, the raw score third in each row; scoring only the documents that can reach them.

    The seed (org/bounds.py): up to SEED_ROWS x k documents holding the best-bounded units together, as
    many as still find k documents; their k-th score is a floor of the k-th score of all. Then
    only the documents whose units' bounds reach that floor are scored. No floor (too few documents hold
    any seed's units together), or no document it leaves out: every document of `within`."""
    def scored(words: str, sample: int | None) -> list[Any]:
        return _read(peer, sql, {**params, "within": words, "sample": sample})

    seed = _seed(peer, params["repos"], within, units, k, include_inactive) if prune else None
    if seed is not None:
        rows = scored(f"({within}) & ({seed})", SEED_ROWS * k)
        if len(rows) >= k:
            reach = bounds.reaching(units, float(rows[k - 1][2]))
            return scored(within if reach is None else f"({within}) & ({reach})", None)
    return scored(within, None)


def _seed(peer: OrgPeer, repos: list[str] | None, within: str, units: Sequence[Unit], k: int,
          include_inactive: bool) -> str | None:
    """The seed's words (org/bounds.py): the best-bounded units that, held together, still find k
    visible documents of `within`; None when no unit does."""
    return bounds.seed(units, lambda words: _count(peer, repos, f"({within}) & ({words})", k, include_inactive) >= k)


def lexical_sections(peer: OrgPeer, repos: Sequence[str], text: str, *, include_inactive: bool,
                     limit: int, prune: bool = True, leave_common: bool = False) -> list[LexicalRow]:
    """Visible documents by their best heading section's bm25, best first: the local
    `LexicalSearch.best_sections` (the best limit x SECTIONS_PER_DOCUMENT sections, then each
    document's best), over the gate of a big store. `prune`: the gate scores only the documents that
    can reach it (org/bounds.py); the same gate either way. `leave_common`: a big store reads it
    without the common terms (_common)."""
    terms = terms_of(text)
    if not terms.queries or not repos:
        return []
    totals = peer.lexical_totals(repos)
    gated = is_big(totals)
    weights = weights_of(peer, repos, terms, totals)
    left_out = _common(terms, weights, totals) if leave_common and gated else frozenset()
    if left_out:
        terms = terms.without(left_out)
        weights = Weights(_kept(weights.documents, left_out), _kept(weights.sections, left_out),
                          _kept(weights.held, left_out))
    sql = sections_statement(len(terms.queries), gated=gated, include_inactive=include_inactive)
    params = _params(terms, totals, peer.scope(repos), limit=limit, cut=limit * SECTIONS_PER_DOCUMENT,
                     **{f"sidf{i}": idf for i, idf in enumerate(weights.sections)})
    if gated:
        gate = _gate(peer, repos, terms, totals, weights, include_inactive, max(2 * limit, SECTION_GATE),
                     prune=prune)
        params.update(gate_repos=[repo for repo, _ in gate], gate_ids=[doc_id for _, doc_id in gate])
    rows = peer.run(lambda c: c.execute(sql, params).fetchall())
    return [LexicalRow(repo, doc_id, float(raw), tuple(heading or ()), size, float(coverage))
            for repo, doc_id, raw, heading, size, coverage in rows]


def sections_statement(terms: int, *, gated: bool, include_inactive: bool) -> str:
    """The sections list of a task of `terms` terms: each section's bm25, the best LIMIT x
    SECTIONS_PER_DOCUMENT kept, each document taking its best one's place; `gated` (a big store): only
    the sections of the gate's documents (gate_statement), each read by its key."""
    tfs, score = _bm25("s", _given("sidf"), terms, lexemes.SECTION_RANK_WEIGHTS, 1, "section_length")
    # Each gate document's sections by the table's key (OFFSET 0: the planner would rather read every
    # section holding a word and keep the gate's, which costs a big store most of a second).
    rows = ("unnest(%(gate_repos)s::text[], %(gate_ids)s::text[]) AS g(repo, id) CROSS JOIN LATERAL ("
            "SELECT * FROM docir.sections s WHERE s.repo = g.repo AND s.doc_id = g.id OFFSET 0) s"
            if gated else "docir.sections s")
    return f"""
        WITH q AS (SELECT %(any)s::tsquery AS q), scored AS (
            SELECT s.repo, s.doc_id, s.ord, s.heading, s.start_line, s.end_line, {score} AS raw
            FROM {rows} CROSS JOIN q {tfs}
            WHERE s.lex @@ q.q AND {among('s.repo')}
            ORDER BY raw DESC, s.repo, s.doc_id, s.ord LIMIT %(cut)s
        ), best AS (
            SELECT DISTINCT ON (s.repo, s.doc_id) * FROM scored s ORDER BY s.repo, s.doc_id, s.raw DESC, s.ord
        )
        SELECT s.repo, s.doc_id, s.raw, s.heading, {_SECTION_BYTES}, {_COVERAGE}
        FROM best s JOIN docir.documents d ON d.repo = s.repo AND d.id = s.doc_id
        WHERE {visible(include_inactive)}
        ORDER BY s.raw DESC, s.repo, s.doc_id LIMIT %(limit)s"""


def _gate(peer: OrgPeer, repos: Sequence[str], terms: Terms, totals: LexicalTotals, weights: Weights,
          include_inactive: bool, gate: int, *, prune: bool) -> list[tuple[str, str]]:
    """The documents whose sections a big store scores: the first `gate` visible ones by their
    whole-document bm25, as a big local index gates its sections."""
    units = [Unit(holds, bounds.bound(idf)) for holds, idf in zip(terms.holds, weights.documents, strict=True)]
    params = _params(terms, totals, peer.scope(repos), gate=gate,
                     **{f"idf{i}": idf for i, idf in enumerate(weights.documents)})
    within = _gate_words(peer, params["repos"], terms, _weightless(terms, weights, totals), include_inactive, gate)
    rows = _first(peer, gate_statement(len(terms.queries), include_inactive), params, within=within, units=units,
                  k=gate, include_inactive=include_inactive, prune=prune)
    return [(repo, doc_id) for repo, doc_id, _ in rows]


def gate_statement(terms: int, include_inactive: bool) -> str:
    """The gate of a big store's sections list: the visible documents of some words (all of them, or the
    first SAMPLE found) by their whole-document bm25, the first GATE."""
    tfs, score = _bm25("d", _given("idf"), terms, lexemes.DOCUMENT_RANK_WEIGHTS, lexemes.DOCUMENT_WEIGHT_SCALE,
                       "document_length")
    return _ranked(score, tfs, include_inactive)


def _ranked(score: str, items: str, include_inactive: bool) -> str:
    """The visible documents of some words (WITHIN: all of them, or the first SAMPLE found) by `score`
    over the FROM `items` each document is given, the first GATE."""
    return f"""
        SELECT d.repo, d.id, {score} AS raw
        FROM (SELECT d.repo, d.id, d.lex, d.lex_tokens FROM docir.documents d
              WHERE d.lex @@ %(within)s::tsquery AND {among('d.repo')} AND {visible(include_inactive)}
              LIMIT %(sample)s) d {items}
        ORDER BY raw DESC, d.repo, d.id LIMIT %(gate)s"""


def _gate_words(peer: OrgPeer, repos: list[str] | None, terms: Terms, weightless: frozenset[int],
                include_inactive: bool, gate: int) -> str:
    """What finds the gate's candidates: the task's weighed terms when they find a whole gate of visible
    documents (then the first `gate` by bm25 are the same), else every term (lexical._filled)."""
    lean = " | ".join(f"({q})" for i, q in enumerate(terms.queries) if i not in weightless)
    if not lean or not weightless:
        return terms.any
    return lean if _count(peer, repos, lean, gate, include_inactive) >= gate else terms.any


def _count(peer: OrgPeer, repos: list[str] | None, words: str, most: int, include_inactive: bool) -> int:
    """How many visible documents of `repos` (OrgPeer.scope) the tsquery `words` finds, counted up to `most`."""
    found = _read(peer, count_statement(include_inactive), {"words": words, "repos": repos, "most": most})
    return int(found[0][0]) if found else 0


def count_statement(include_inactive: bool) -> str:
    """How many visible documents some words find, counted up to a number (MOST)."""
    return (f"SELECT count(*) FROM (SELECT 1 FROM docir.documents d WHERE d.lex @@ %(words)s::tsquery"
            f" AND {among('d.repo')} AND {visible(include_inactive)} LIMIT %(most)s) x")


def _both(terms: Terms, pairs: Sequence[tuple[int, int]]) -> str:
    """A tsquery's text form matching the documents that hold both words of any pair: the candidates of
    the pairs list, found by the GIN index alone (a phrase at each distance would make PostgreSQL read
    every candidate's positions; whether they stand near each other is counted afterwards)."""
    return " | ".join(f"(({terms.queries[a]}) & ({terms.queries[b]}))" for a, b in pairs)


# A position's weight by its label (lexemes.LABEL_WEIGHTS), in SQL.
_LABEL_WEIGHT = ("CASE {0} " + " ".join(f"WHEN '{label}' THEN {weight}" for label, weight in
                                        lexemes.LABEL_WEIGHTS.items()) + " ELSE 1 END")


def _near_tf(positions: str, labels: str, others: str, same: str) -> str:
    """The weighed count of the `positions` (labelled `labels`) that stand within NEAR's reach of one of
    the `others`. A pair of one word twice (`same`) counts every occurrence: FTS5's NEAR lets one
    instance stand for both phrases, so each is near itself."""
    return f"""(SELECT coalesce(sum({_LABEL_WEIGHT.format("x.label")}), 0)
                FROM unnest({positions}, {labels}) AS x(at, label)
                WHERE {same} OR EXISTS (SELECT 1 FROM unnest({others}) AS y(at)
                                        WHERE y.at <> x.at AND abs(y.at - x.at) <= {NEAR_DISTANCE + 1}))"""


def lexical_pairs(peer: OrgPeer, repos: Sequence[str], text: str, *, include_inactive: bool,
                  limit: int, prune: bool = True, leave_common: bool = False) -> list[LexicalRow]:
    """Visible documents by the task's adjacent word pairs standing close together, best first: the
    local NEAR ranking, bm25 over whole documents where a pair's words count only where they stand
    near each other. `prune`: in a big store (as the gate), only the documents that can reach the list
    are scored (org/bounds.py); the same list either way. `leave_common`: a big store reads it without
    the pairs of two common words, and counts no common word's coverage (_common)."""
    terms = terms_of(text)
    index = {word: n for n, word in enumerate(terms.words)}
    pairs = [(index[a], index[b]) for a, b in word_pairs(text) if a in index and b in index]
    if not pairs or not repos:
        return []
    totals = peer.lexical_totals(repos)
    weights = weights_of(peer, repos, terms, totals)
    idfs = weights.documents
    big = is_big(totals)
    left_out = _common(terms, weights, totals) if leave_common and big else frozenset()
    covered: dict[str, Any] = {}
    if left_out:
        # As near_expression leaves them out: by the text's words, before those of no term are dropped.
        kept = kept_pairs(word_pairs(text), {terms.words[i] for i in left_out})
        pairs = [(index[a], index[b]) for a, b in kept if a in index and b in index]
        if not pairs:
            return []
        covered = {"covered": [q for i, q in enumerate(terms.queries) if i not in left_out]}
    # Only a big store is pruned: in a small one the seed's counts cost more than they leave out.
    prune = prune and big
    if big and not left_out:  # a big store reads the pairs of weighed words first
        weightless = _weightless(terms, weights, totals)
        lean = kept_pairs(pairs, weightless)
        if lean != pairs:
            rows = _pairs(peer, repos, terms, totals, idfs, lean, include_inactive=include_inactive, limit=limit,
                          prune=prune)
            if len(rows) >= limit:
                return rows
    return _pairs(peer, repos, terms, totals, idfs, pairs, include_inactive=include_inactive, limit=limit,
                  prune=prune, **covered)


def _pairs(peer: OrgPeer, repos: Sequence[str], terms: Terms, totals: LexicalTotals, idfs: Sequence[float],
           pairs: Sequence[tuple[int, int]], *, include_inactive: bool, limit: int, prune: bool,
           **covered: Any) -> list[LexicalRow]:
    """The pairs list over `pairs`. Pruned, it scores only the documents whose own bound can reach it
    (_pair_bound: a pair whose words never stand near each other adds nothing, and one that does adds at
    most each word's whole-document share). Of up to SEED_ROWS² x limit documents holding the
    best-bounded pairs together (the seed, org/bounds.py), the SEED_ROWS x limit of the highest bound are
    scored first; their limit-th score is the floor every other document's bound must reach."""
    params = _params(terms, totals, peer.scope(repos), limit=limit, idfs=list(idfs),
                     firsts=[a + 1 for a, _ in pairs], seconds=[b + 1 for _, b in pairs], **covered)
    both = _both(terms, pairs)
    rows = _pruned_pairs(peer, terms, idfs, pairs, params, both, include_inactive, limit) if prune else None
    if rows is None:
        rows = _read(peer, pairs_statement(include_inactive), {**params, "within": both})
    return [LexicalRow(repo, doc_id, float(raw), None, None, float(coverage)) for repo, doc_id, raw, coverage in rows]


def _pruned_pairs(peer: OrgPeer, terms: Terms, idfs: Sequence[float], pairs: Sequence[tuple[int, int]],
                  params: dict[str, Any], both: str, include_inactive: bool, limit: int) -> list[Any] | None:
    """The pairs list read past a floor; None when no floor stands (fewer documents than the seed, or
    fewer holding a pair near each other than the list's length)."""
    slot_of: dict[str, float] = {}  # each first token's share: its idf in every pair slot it fills
    for a, b in pairs:
        for i in (a, b):
            slot_of[terms.tokens[i]] = slot_of.get(terms.tokens[i], 0.0) + idfs[i]
    # A pair adds to a document only where it holds both words: the pair is the unit whose bound the
    # floor is reached by (a word's own bound would count its pairs whose other word is missing).
    units = [Unit(lexemes.all_of(list(dict.fromkeys((terms.tokens[a], terms.tokens[b])))),
                  bounds.bound(idfs[a], idfs[b])) for a, b in pairs]
    # The bound counts the tokens that weigh; the others (a word in half the documents) add their most.
    most = max(slot_of.values())
    weighed = [token for token, slot in slot_of.items() if slot >= most * bounds.NEGLIGIBLE]
    column = {token: j + 1 for j, token in enumerate(weighed)}
    sides = [(terms.tokens[x], idfs[x]) for a, b in pairs for x in (a, b)]
    shares = {**params, **{f"q{j}": lexemes.all_of([token]) for j, token in enumerate(weighed)},
              "rest": sum(bounds.bound(idf) for token, idf in sides if token not in column),
              # each pair's words near each other (NULL: one word twice, near itself), and each side's column
              "near": [None if terms.tokens[a] == terms.tokens[b] else
                       lexemes.near(terms.tokens[a], terms.tokens[b], NEAR_DISTANCE + 1) for a, b in pairs],
              "sides": [column.get(token, 0) for token, _ in sides],
              "shares": [idf if token in column else 0.0 for token, idf in sides]}
    # The seed: of the documents holding the best-bounded pairs together, those of the highest bounds.
    # Where fewer than `limit` of them hold a pair near (a long query's rare words), the first documents
    # holding any pair near: PostgreSQL checks the positions of the rows the GIN index finds until it
    # has enough of them (at worst every row of `both`, which no floor would score anyway).
    seed = _seed(peer, params["repos"], both, units, limit, include_inactive)
    if seed is None:
        return None
    exact: list[Any] = []
    near_any = " | ".join(f"({query})" for query in shares["near"] if query is not None)
    for within in (f"({both}) & ({seed})", f"({both}) & ({near_any})" if near_any else both):
        ranked = _read(peer, pair_bounds_statement(len(weighed), include_inactive),
                       {**shares, "within": within, "sample": SEED_ROWS ** 2 * limit, "gate": SEED_ROWS * limit})
        if len(ranked) < limit:
            continue
        exact = _read(peer, pairs_statement(include_inactive, named=True),
                      {**params, "within": both, "among_repos": [row[0] for row in ranked],
                       "among_ids": [row[1] for row in ranked]})
        if len(exact) >= limit:
            break
    if len(exact) < limit:
        return None
    floor = float(exact[limit - 1][2])
    floor -= abs(floor) * FLOOR_SLACK
    reach = bounds.reaching(units, floor)
    return _read(peer, pairs_statement(include_inactive, floor_terms=len(weighed)),
                 {**shares, "within": both if reach is None else f"({both}) & ({reach})", "floor": floor})


def _pair_bound(tokens: int) -> tuple[str, str]:
    """The most a document can score in the pairs list: for each pair whose words stand near each other
    (NEAR), each word's whole-document bm25 share (a pair's near occurrences of a word are some of its
    occurrences, and the saturation grows with them), weighed by its idf (SHARES) in that pair slot (SIDES:
    the column of its token among the Q0, Q1, ... counted, 0 for a token that does not weigh), plus the most
    the tokens that do not weigh add (REST). Returns the FROM items and the expression over them."""
    tfs = ", ".join(_tf(i, lexemes.DOCUMENT_RANK_WEIGHTS, lexemes.DOCUMENT_WEIGHT_SCALE) for i in range(tokens))
    tf = "(b.t[s.side])"
    items = (f"CROSS JOIN LATERAL {_read_once('d')} "
             f"CROSS JOIN LATERAL (SELECT ARRAY[{tfs or 'NULL'}]::float8[] AS t OFFSET 0) b")
    share = f"CASE WHEN s.side = 0 THEN 0 ELSE s.share * {_saturated(tf, 'd.lex_tokens', 'document_length')} END"
    most = f"""(%(rest)s::float8 + (
        SELECT coalesce(sum(s.value), 0) FROM (
            SELECT {share} AS value
            FROM unnest(%(sides)s::int[], %(shares)s::float8[]) WITH ORDINALITY AS s(side, share, k)
            JOIN unnest(%(near)s::tsquery[]) WITH ORDINALITY AS n(near, p) ON n.p = (s.k + 1) / 2
            WHERE n.near IS NULL OR v.lex @@ n.near) s))"""
    return items, most


def pair_bounds_statement(tokens: int, include_inactive: bool) -> str:
    """The documents of some words (all of them, or the first SAMPLE found) by the most they can score in the
    pairs list (_pair_bound over `tokens` tokens that weigh), the first GATE."""
    items, most = _pair_bound(tokens)
    return _ranked(most, items, include_inactive)


def pairs_statement(include_inactive: bool, *, floor_terms: int = 0, named: bool = False) -> str:
    """The pairs list: the visible documents of some words (WITHIN) by bm25 over the pairs' words, counting
    only the occurrences that stand near the other word of their pair.
    `floor_terms`: only the documents whose bound (_pair_bound over that many tokens) reaches FLOOR;
    `named`: only the documents named (AMONG_REPOS, AMONG_IDS)."""
    documents = "docir.documents d"
    if floor_terms:
        items, most = _pair_bound(floor_terms)
        documents = f"""(SELECT d.* FROM docir.documents d {items}
                          WHERE d.lex @@ %(within)s::tsquery AND {most} >= %(floor)s) d"""
    elif named:
        documents = """unnest(%(among_repos)s::text[], %(among_ids)s::text[]) AS g(repo, id) CROSS JOIN LATERAL (
                          SELECT * FROM docir.documents d WHERE d.repo = g.repo AND d.id = g.id OFFSET 0) d"""
    return f"""
        WITH weights AS (
            SELECT w.i, w.token, w.idf
            FROM unnest(%(tokens)s::text[], %(idfs)s::float8[]) WITH ORDINALITY AS w(token, idf, i)
        ), pairs AS (
            SELECT p.n, a.token AS ta, a.idf AS ia, b.token AS tb, b.idf AS ib, p.a = p.b AS same
            FROM unnest(%(firsts)s::int[], %(seconds)s::int[]) WITH ORDINALITY AS p(a, b, n)
            JOIN weights a ON a.i = p.a JOIN weights b ON b.i = p.b
        ), found AS MATERIALIZED (
            -- Each matching document's tsvector cut to the task's words (ts_delete of every other word:
            -- a third of the cost of unnesting the whole tsvector).
            SELECT d.repo, d.id, d.lex_tokens, ts_delete(d.lex, tsvector_to_array(ts_delete(d.lex, %(tokens)s::text[])))
                   AS mine
            FROM {documents}
            WHERE d.lex @@ %(within)s::tsquery AND {among('d.repo')} AND {visible(include_inactive)}
        ), words AS MATERIALIZED (
            SELECT f.repo, f.id, f.lex_tokens, u.lexeme, u.positions, u.weights
            FROM found f CROSS JOIN LATERAL unnest(f.mine) u
        ), first_words AS MATERIALIZED (
            SELECT a.repo, a.id, a.lex_tokens, p.n, p.ia, p.ib, p.tb, p.same, a.positions AS pa, a.weights AS wa
            FROM pairs p JOIN words a ON a.lexeme = p.ta
        ), both_words AS MATERIALIZED (
            -- Each pair's two words in each document holding both, before any near count is made.
            SELECT a.repo, a.id, a.lex_tokens, a.n, a.ia, a.ib, a.same, a.pa, a.wa, b.positions AS pb, b.weights AS wb
            FROM first_words a JOIN words b ON b.repo = a.repo AND b.id = a.id AND b.lexeme = a.tb
        ), counted AS MATERIALIZED (
            SELECT c.repo, c.id, c.lex_tokens, c.n, c.ia, c.ib, {_near_tf("c.pa", "c.wa", "c.pb", "c.same")} AS na,
                   {_near_tf("c.pb", "c.wb", "c.pa", "c.same")} AS nb
            FROM both_words c
        ), scored AS (
            -- Summed in the pairs' order: the same numbers in the same order whatever the plan, so two
            -- documents of one text (a repository published twice) tie exactly, in every list.
            SELECT c.repo, c.id, sum(c.ia * {_saturated("c.na", "c.lex_tokens", "document_length")}
                                     + c.ib * {_saturated("c.nb", "c.lex_tokens", "document_length")}
                                     ORDER BY c.n) AS raw
            FROM counted c WHERE c.na > 0 GROUP BY c.repo, c.id
        )
        SELECT s.repo, s.id, s.raw, {_COVERAGE}
        FROM scored s JOIN docir.documents d ON d.repo = s.repo AND d.id = s.id
        ORDER BY s.raw DESC, s.repo, s.id LIMIT %(limit)s"""


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
    wanted = set(repos)
    chosen = [repo for repo in peer.repos if repo.name in wanted]
    exact = sum(repo.documents + repo.sections for repo in chosen) <= EXACT_BELOW
    own = sorted(repo.name for repo in chosen if repo.vector_index)
    sql = nearest_statement(dim, include_inactive, own, exact=exact)
    params = {"v": vector_literal(vector), "repos": peer.scope(repos), "wide": wide, "limit": limit}

    def read(conn: Any) -> list[Any]:
        # Filtered HNSW scans go on until enough rows pass the filter (pgvector 0.8's iterative scans).
        conn.execute(f"SET LOCAL hnsw.ef_search = {min(EF_SEARCH_MAX, max(40, wide))}")
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        return list(conn.execute(sql, params).fetchall())

    rows = peer.run(read)
    # A vector of zeros has no direction: its cosine is NaN, which no ranking can place (nor strict JSON print).
    return [VectorRow(repo, doc_id, float(sim), int(ordinal), tuple(heading) if heading else None, size)
            for repo, doc_id, sim, ordinal, heading, size in rows if _finite(sim)]


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def nearest_statement(dim: int, include_inactive: bool, own: Sequence[str] = (), *, exact: bool = False) -> str:
    """The vectors list: the nearest document and section vectors of `dim` dimensions through the HNSW
    indexes (the shared one, and each of the `own` repositories' own), the `wide` nearest of both kinds
    kept, each document keeping its best before visibility and the LIMIT (the local ranking's steps,
    local_ranking._vector_ranking). `exact`: every vector compared, no index, as a local index does."""
    distance = f"{{alias}}.vector::vector({dim}) <=> %(v)s::vector({dim})"
    # `+ 0` orders by a number no index gives: every row is compared.
    order = f"(({distance}) + 0)" if exact else distance
    columns = (f"s.repo, s.doc_id AS id, s.ord, s.heading, s.start_line, s.end_line, "
               f"{distance.format(alias='s')} AS distance")
    # Each scan repeats its index's predicate (tables.py), the repository of an index of its own as a literal:
    # the planner matches a partial index by the statement's text, not by a parameter's value.
    if exact:
        scans = [f"""(SELECT {columns} FROM docir.sections s
              WHERE vector_dims(s.vector) = {dim} AND {among('s.repo')}
              ORDER BY {order.format(alias="s")} LIMIT %(wide)s)"""]
    else:
        scans = [f"""(SELECT {columns} FROM docir.sections s
              WHERE vector_dims(s.vector) = {dim} AND NOT s.own_index AND {among('s.repo')}
              ORDER BY {distance.format(alias="s")} LIMIT %(wide)s)"""]
        scans.extend(f"""(SELECT {columns} FROM docir.sections s
              WHERE vector_dims(s.vector) = {dim} AND s.own_index AND s.repo = {quoted(repo)}
              ORDER BY {distance.format(alias="s")} LIMIT %(wide)s)""" for repo in own)
    union = "\n            UNION ALL ".join(scans)
    return f"""
        WITH near_sections AS (
            {union}
        ), near_documents AS (
            SELECT d.repo, d.id, -1 AS ord, NULL::text[] AS heading, NULL::integer AS start_line,
                   NULL::integer AS end_line, {distance.format(alias="d")} AS distance
            FROM docir.documents d
            WHERE vector_dims(d.vector) = {dim} AND {among('d.repo')}
            ORDER BY {order.format(alias="d")} LIMIT %(wide)s
        ), nearest AS (
            -- The `wide` nearest vectors of either kind, as the local ranking takes its matrix's nearest rows.
            SELECT * FROM (SELECT * FROM near_sections UNION ALL SELECT * FROM near_documents) c
            ORDER BY c.distance, c.repo, c.id, c.ord LIMIT %(wide)s
        ), best AS (
            SELECT DISTINCT ON (c.repo, c.id) c.* FROM nearest c ORDER BY c.repo, c.id, c.distance, c.ord
        )
        SELECT s.repo, s.id, 1 - s.distance, s.ord, s.heading,
               CASE WHEN s.ord < 0 THEN NULL ELSE {_SECTION_BYTES} END
        FROM best s JOIN docir.documents d ON d.repo = s.repo AND d.id = s.id
        WHERE {visible(include_inactive)}
        ORDER BY s.distance, s.repo, s.id LIMIT %(limit)s"""


def similarities(peer: OrgPeer, repos: Sequence[str], ids: Sequence[str],
                 vector: Sequence[float]) -> dict[tuple[str, str], float]:
    """The cosine of each named document's vector with `vector`: how near a linked document is."""
    if not repos or not ids:
        return {}
    sql = similarities_statement(len(vector))
    params = {"v": vector_literal(vector), "repos": peer.scope(repos), "ids": list(ids)}
    return {(repo, doc_id): float(sim) for repo, doc_id, sim in peer.run(lambda c: c.execute(sql, params).fetchall())
            if _finite(sim)}


def similarities_statement(dim: int) -> str:
    """The cosine of named documents' vectors of `dim` dimensions with a query vector."""
    return (f"SELECT d.repo, d.id, 1 - (d.vector::vector({dim}) <=> %(v)s::vector({dim})) FROM docir.documents d "
            f"WHERE vector_dims(d.vector) = {dim} AND {among('d.repo')} AND d.id = ANY(%(ids)s)")


# A store read whose documents and sections are no more than this many is ranked by vector exactly, every
# vector compared (a few tens of milliseconds), as a local index ranks: an HNSW index is approximate, and
# in so small a store the planner chose between the two by its costs, so the same query could be answered
# exactly one day and approximately the next.
EXACT_BELOW = 20_000


# A vector stands out of its store's background (fusion.Background): every document's best cosine in
# a local index. Reading every vector of a big organisation store would cost a full scan per query,
# so its background is measured on a uniform sample of about this many documents (each drawn by its
# repository and id, tables.py's migration 3); a store of no more documents than this reads them all,
# exactly as a local index does. 512 documents put the line within about 0.1 standard deviations
# (adr-25795d32a61a).
BACKGROUND_SAMPLE = 512


def background(peer: OrgPeer, repos: Sequence[str], vector: Sequence[float], *,
               sample: int = BACKGROUND_SAMPLE) -> dict[tuple[str, str], float]:
    """The best cosine of each drawn document of `repos` (its document vector or a section's) with
    `vector`: the store's background for one query, by (repo, id)."""
    wanted = set(repos)
    total = sum(repo.documents for repo in peer.repos if repo.name in wanted)
    if not wanted or not total:
        return {}
    sql = background_statement(len(vector))
    params = {"v": vector_literal(vector), "repos": peer.scope(sorted(wanted)), "below": min(2.0, sample / total)}
    return {(repo, doc_id): float(sim) for repo, doc_id, sim in peer.run(lambda c: c.execute(sql, params).fetchall())
            if _finite(sim)}


def background_statement(dim: int) -> str:
    """The background: each document drawn below a threshold (all of them in a store of no more than the
    sample), with its best cosine of its document vector and its section vectors of `dim` dimensions."""
    similarity = f"1 - ({{alias}}.vector::vector({dim}) <=> %(v)s::vector({dim}))"
    return f"""
        SELECT drawn.repo, drawn.id, max(drawn.similarity) FROM (
            SELECT d.repo, d.id, {similarity.format(alias="d")} AS similarity
            FROM docir.documents d
            WHERE d.draw < %(below)s AND vector_dims(d.vector) = {dim} AND {among('d.repo')}
            UNION ALL
            SELECT s.repo, s.doc_id, {similarity.format(alias="s")}
            FROM docir.sections s
            WHERE s.draw < %(below)s AND vector_dims(s.vector) = {dim} AND {among('s.repo')}
        ) drawn GROUP BY drawn.repo, drawn.id"""


EXAMPLE_TERMS = 2  # the statements as docs/reference/organisation-statements.markdown shows them: a task of two
EXAMPLE_DIMENSION = 384  # terms, docir's model's vectors
EXAMPLE_OWN = "acme/platform"  # a repository published in bulk, whose vectors have an index of their own


def statements() -> dict[str, tuple[str, str]]:
    """Every statement this module runs, by name: what it does (its builder's docstring), and its text for
    a task of EXAMPLE_TERMS terms and vectors of EXAMPLE_DIMENSION, reading current documents. Generated
    into docs/reference/organisation-statements.markdown, and EXPLAINed by the tests on a real database."""
    made: dict[str, tuple[Callable[..., str], str]] = {
        "sections": (sections_statement, sections_statement(EXAMPLE_TERMS, gated=False, include_inactive=False)),
        "sections in a big store": (sections_statement,
                                    sections_statement(EXAMPLE_TERMS, gated=True, include_inactive=False)),
        "gate": (gate_statement, gate_statement(EXAMPLE_TERMS, False)),
        "count": (count_statement, count_statement(False)),
        "weights": (weights_statement, weights_statement()),
        "pairs": (pairs_statement, pairs_statement(False)),
        "pairs past a floor": (pairs_statement, pairs_statement(False, floor_terms=EXAMPLE_TERMS)),
        "pairs of named documents": (pairs_statement, pairs_statement(False, named=True)),
        "pair bounds": (pair_bounds_statement, pair_bounds_statement(EXAMPLE_TERMS, False)),
        "nearest vectors": (nearest_statement, nearest_statement(EXAMPLE_DIMENSION, False)),
        "nearest vectors with an index of its own": (nearest_statement,
                                                     nearest_statement(EXAMPLE_DIMENSION, False, [EXAMPLE_OWN])),
        "nearest vectors in a small store": (nearest_statement,
                                             nearest_statement(EXAMPLE_DIMENSION, False, exact=True)),
        "similarities": (similarities_statement, similarities_statement(EXAMPLE_DIMENSION)),
        "background": (background_statement, background_statement(EXAMPLE_DIMENSION)),
    }
    return {name: (" ".join((builder.__doc__ or "").split()), text) for name, (builder, text) in made.items()}
