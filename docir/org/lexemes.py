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

from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from docir.index.fts import BM25_WEIGHTS, NEAR_DISTANCE, SECTION_BM25_WEIGHTS

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
    positions: dict[str, list[str]] = defaultdict(list)
    at = 1
    count = extra_tokens
    for tokens, label in zip(columns, labels, strict=False):
        for offset, token in enumerate(tokens):
            if len(token) * 4 <= LEXEME_MAX_BYTES or len(token.encode("utf-8")) <= LEXEME_MAX_BYTES:
                positions[token].append(f"{at + offset}{label}")
        at += len(tokens) + COLUMN_GAP
        count += len(tokens)
    return Lexical(" ".join(f"{quoted(token)}:{','.join(found)}" for token, found in positions.items()), count)


def quoted(token: str) -> str:
    """A lexeme in a tsvector's or tsquery's text form: read as it is, whatever its characters."""
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def term_query(tokens: Sequence[str]) -> str:
    """A tsquery's text form for one task term: its tokens as a phrase (most terms are one token)."""
    return " <-> ".join(quoted(token) for token in tokens)
