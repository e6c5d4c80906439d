"""The organisation store's words are the local index's words: FTS5's own tokens, as tsvectors.

PostgreSQL's text search would stem, drop stopwords and split identifiers its own way, so a
published document would be ranked by other words than the same document in a local index. So
publish tokenizes each searched column as the local index does (index/tokens.py) and writes the tokens as a tsvector;
a reader tokenizes its task's terms the same way. bm25 over those lexemes (org/ranking_sql.py)
then counts what FTS5 counts (adr-8a976b997594).

A row's columns are laid out one after another in the tsvector's positions, COLUMN_GAP apart, so
no two words of different columns are ever near each other (FTS5's NEAR is per column), and each
column's label says its weight. Positions past 16,383 are PostgreSQL's limit: a longer document's
tail words all stand at the last position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from docir.index import tokens
from docir.index.fts import BM25_WEIGHTS, NEAR_DISTANCE, SECTION_BM25_WEIGHTS, index_text

if TYPE_CHECKING:
    from docir.index.records import DocRow, SectionSpan
    from docir.org.rows import SectionRow

COLUMN_GAP = NEAR_DISTANCE + 2  # positions between two columns: never within NEAR's reach
# A document's columns and their labels: title, description, tags, headings, body, weighed as the
# local documents' bm25 weighs them (fts.BM25_WEIGHTS) with four labels: the tags share the
# description's label, so weigh what it weighs (5 where locally 4).
DOCUMENT_LABELS = ("A", "B", "B", "C", "D")
LABEL_WEIGHTS = {label: BM25_WEIGHTS[DOCUMENT_LABELS.index(label)] for label in "ABCD"}
# A section's columns (its document's title, what the document is about, its heading path, its text)
# all weigh alike (fts.SECTION_BM25_WEIGHTS), so one label serves.
SECTION_LABELS = ("D", "D", "D", "D")


def _rank_weights(weights: dict[str, float], scale: float) -> str:
    """ts_rank_cd's weights of the D, C, B and A labels (at most 1 each): the label weights over `scale`."""
    return "{" + ", ".join(str(weights[label] / scale) for label in "DCBA") + "}"


DOCUMENT_WEIGHT_SCALE = max(LABEL_WEIGHTS.values())
DOCUMENT_RANK_WEIGHTS = _rank_weights(LABEL_WEIGHTS, DOCUMENT_WEIGHT_SCALE)
SECTION_RANK_WEIGHTS = _rank_weights(dict.fromkeys("ABCD", SECTION_BM25_WEIGHTS[0]), 1.0)
# The local section rows have a fifth column, the document's rowid, weighed 0 but counted in the
# row's length: one token.
SECTION_EXTRA_TOKENS = 1
# PostgreSQL refuses a lexeme longer than this (a word of an encoded blob, say); such a token is
# counted in its row's length but not kept: no task term is that long.
LEXEME_MAX_BYTES = 2046


class Lexical(NamedTuple):
    """A row's tsvector (its text form) and its length in tokens, as FTS5 counts a row's length."""

    tsvector: str
    tokens: int


def lexical(columns: Sequence[list[str]], labels: Sequence[str], extra_tokens: int = 0) -> Lexical:
    """The tsvector of a row's tokenized columns, laid out COLUMN_GAP apart, each labelled."""
    positions: dict[str, list[str]] = {}
    at = 1
    count = extra_tokens
    longest = LEXEME_MAX_BYTES // 4  # a token this long or shorter fits, whatever its characters
    for column, label in zip(columns, labels, strict=False):
        for position, token in enumerate(column, at):
            if len(token) > longest and len(token.encode("utf-8")) > LEXEME_MAX_BYTES:
                continue
            mark = f"{position}{label}"
            found = positions.get(token)
            if found is None:
                positions[token] = [mark]
            else:
                found.append(mark)
        at += len(column) + COLUMN_GAP
        count += len(column)
    return Lexical(" ".join(f"{quoted(token)}:{','.join(found)}" for token, found in positions.items()), count)


def document_words(row: DocRow, sections: Sequence[SectionRow],
                   searched_max: int) -> tuple[Lexical, dict[int, Lexical]]:
    """The words of a document and of each of its heading sections (by ord): the columns the local
    index searches (index/docs_table.py), tokenized as it tokenizes them, each text cut at `searched_max`.

    A body is its heading sections in order and what lies between them (blank lines, headings
    with no text of their own). When no word runs across an edge of a section, the body's
    tokens are those pieces' tokens in order, so the body is tokenized once, through them.
    """
    searched = row.searched[:searched_max]
    pieces = [s for s in sections if s.searched is not None]
    texts = [s.searched[:searched_max] for s in pieces if s.searched is not None]
    between = _between(searched, row.sections, texts) if len(row.searched) <= searched_max else None
    head = [index_text(row.title), index_text(row.description), index_text(" ".join(row.tags)),
            index_text("\n".join(row.headings)), index_text(row.description + "\n" + " ".join(row.tags))]
    rows = [head, *([index_text(" ".join(s.heading)), text, _identifier_parts(text)]
                    for s, text in zip(pieces, texts, strict=True))]
    rows += [[index_text(searched)]] if between is None else [[gap, _identifier_parts(gap)] for gap in between]
    tokenized = tokens.shared().tokens(rows)
    title, description, tags, headings, about = tokenized[0]
    parts = tokenized[1 : 1 + len(pieces)]
    if between is None:
        body = tokenized[-1][0]
    else:  # index_text(body): every piece's tokens in body order, then every piece's identifier parts
        gaps = tokenized[1 + len(pieces) :]
        order = [(gaps[0], 0)] + [(piece, n) for part, gap in zip(parts, gaps[1:], strict=True)
                                  for piece, n in ((part, 1), (gap, 0))]
        body = [t for piece, n in order for t in piece[n]] + [t for piece, n in order for t in piece[n + 1]]
    document = lexical([title, description, tags, headings, body], DOCUMENT_LABELS)
    by_ord = {s.ord: lexical([title, about, part[0], part[1] + part[2]], SECTION_LABELS, SECTION_EXTRA_TOKENS)
              for s, part in zip(pieces, parts, strict=True)}
    return document, by_ord


def _between(searched: str, spans: Sequence[SectionSpan], texts: Sequence[str]) -> list[str] | None:
    """What lies before, between and after the sections (one more than there are), when `texts` are
    the spans of `searched` in order and every edge of one is at a blank, so that no word (of FTS5's
    or of index_text's) is cut; None otherwise."""
    if len(spans) != len(texts):
        return None
    gaps: list[str] = []
    at = 0
    for span, text in zip(spans, texts, strict=True):
        if span.start < at or searched[span.start : span.end] != text:
            return None
        for edge in (span.start, span.end):
            if 0 < edge < len(searched) and not (searched[edge - 1].isspace() or searched[edge].isspace()):
                return None
        gaps.append(searched[at : span.start])
        at = span.end
    gaps.append(searched[at:])
    return gaps


def _identifier_parts(text: str) -> str:
    """What index_text adds to `text`: the parts of its compound identifiers, '' when none."""
    return index_text(text)[len(text) + 1 :]


def quoted(token: str) -> str:
    """A lexeme in a tsvector's or tsquery's text form: read as it is, whatever its characters."""
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def term_query(tokens: Sequence[str]) -> str:
    """A tsquery's text form for one task term: its tokens as a phrase (most terms are one token)."""
    return " <-> ".join(quoted(token) for token in tokens)


def near(first: str, second: str, distance: int) -> str:
    """A tsquery's text form of the rows where two tokens stand within `distance` positions of each other,
    either first (PostgreSQL's phrase operator counts an exact distance, so each one is spelt out)."""
    a, b = quoted(first), quoted(second)
    return " | ".join(f"{x} <{n}> {y}" for n in range(1, distance + 1) for x, y in ((a, b), (b, a)))


def all_of(tokens: Sequence[str]) -> str:
    """A tsquery's text form of the rows holding every one of some tokens, wherever they stand."""
    return " & ".join(quoted(token) for token in tokens)
