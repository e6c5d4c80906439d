"""FTS5 text on both sides: identifier-aware index text and user text as plain words.

User text is never FTS5 syntax: every term is quoted, so `"`, `*`, `NEAR(`,
`AND`, `-x` and `col:x` are searched as words and a query cannot fail.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import TypeVar

K = TypeVar("K")

# Words, identifiers with '_' or '-' inside, and --flags.
_TOKEN_RE = re.compile(r"-{0,2}[^\W_](?:[\w-]*\w)?", re.UNICODE)
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves""".split()
)

BM25_WEIGHTS = (10.0, 5.0, 4.0, 3.0, 1.0)  # title, description, tags, headings, body
# A section's own columns: its document's title, description and tags, heading path, text. The
# last column, its document's rowid, only restricts which sections are scored: weight 0.
SECTION_BM25_WEIGHTS = (1.0, 1.0, 1.0, 1.0, 0.0)
SECTION_TEXT_COLUMNS = "{title about heading body}"
NEAR_DISTANCE = 10  # tokens between two adjacent query words for them to count as "close"
# The lexical candidate lists, the same size in the local index's statements (services/retrieval/lexical.py)
# and the organisation store's (org/ranking_sql.py), so both stores rank from the same lists.
CANDIDATES = 60  # per ranking: past this a document adds nothing to the top ten worth fetching
SECTIONS_PER_DOCUMENT = 8  # sections fetched per wanted document: a long document matches in many
# In a big index, sections are scored only in the documents the whole-document bm25 ranks first
# (issue-63fe87fef103, which holds the measurements). Scoring every matching section costs in
# proportion to the sections; the gate costs the whole-document query and a lookup per gated
# document, so below GATE_FROM_SECTIONS it costs more than it saves. A gate of 200 changes no
# benchmark figure; a smaller one costs the EIPs ranking quality.
SECTION_GATE = 200
GATE_FROM_SECTIONS = 20_000
# In a big index, a sketch's words that at least a quarter of the documents hold are left out of its
# lexical lists (`common`, adr-1d4f30c33f26): most of the rows its many words find, at an idf of ln 3
# or less, where its rarer words tell the answer.
COMMON_SHARE = 0.25


def weightless(holding: int, rows: int) -> bool:
    """Whether bm25 gives a term held by `holding` of `rows` rows no weight: FTS5's idf,
    log((N - n + 0.5) / (n + 0.5)), is floored at 1e-6 once n >= N / 2."""
    return 2 * holding >= rows


def common(holding: int, rows: int) -> bool:
    """Whether a word held by `holding` of `rows` documents is common (COMMON_SHARE or more of them)."""
    return holding >= COMMON_SHARE * rows


def common_words(holding: Mapping[K, int | None], rows: int) -> frozenset[K]:
    """The common ones of some words, each with the documents holding it (None: a word of several terms,
    never common: the organisation store counts single words); none when every word is. Both stores
    leave them out of a sketch's lists in a big index (LexicalSearch.common, org/ranking_sql.py)."""
    found = frozenset(word for word, held in holding.items() if held is not None and common(held, rows))
    return found if len(found) < len(holding) else frozenset()


def kept_pairs(pairs: list[tuple[K, K]], left_out: Collection[K]) -> list[tuple[K, K]]:
    """The pairs that are not of two `left_out` words (weightless, or common), unless every pair is."""
    return [(a, b) for a, b in pairs if a not in left_out or b not in left_out] or pairs


def identifier_parts(token: str) -> list[str]:
    """The words inside an identifier: `snake_case` -> snake, case; `CamelCase` -> camel, case."""
    parts: list[str] = []
    for piece in re.split(r"[-_]+", token.strip("-_")):
        parts.extend(m.lower() for m in _CAMEL_RE.findall(piece))
    return parts


def index_text(text: str) -> str:
    """`text` plus the parts of each compound identifier, so both halves and the whole are found."""
    extra: list[str] = []
    for match in _TOKEN_RE.finditer(text):
        token = match.group(0)
        if "_" in token or "-" in token or _has_inner_capital(token):
            parts = identifier_parts(token)
            if len(parts) > 1 or token.startswith("-"):
                extra.extend(parts)
    if not extra:
        return text
    return text + "\n" + " ".join(extra)


def query_terms(text: str) -> list[str]:
    """The distinct words of a query: identifiers whole and split, stopwords dropped."""
    seen: dict[str, None] = {}
    for match in _TOKEN_RE.finditer(text):
        token = match.group(0)
        lowered = token.lower()
        if lowered in STOPWORDS:
            continue
        seen.setdefault(lowered, None)
        if "_" in token or "-" in token or _has_inner_capital(token):
            for part in identifier_parts(token):
                if part not in STOPWORDS:
                    seen.setdefault(part, None)
    return list(seen)


def match_expression(text: str, weightless: Collection[str] = ()) -> str | None:
    """An FTS5 MATCH string that ORs the query's quoted terms; None when nothing is searchable.

    Terms in `weightless` are left out unless every term is: bm25 gives a word in at least half
    of the rows no weight (see `LexicalSearch.weightless`), so matching it only costs time.
    """
    terms = query_terms(text)
    weighed = [term for term in terms if term not in weightless] or terms
    if not weighed:
        return None
    return " OR ".join(quoted(term) for term in weighed)


def near_expression(text: str, distance: int = NEAR_DISTANCE, weightless: Collection[str] = ()) -> str | None:
    """An FTS5 MATCH string for "adjacent query words close together": NEAR groups ORed, one per pair.

    A technical task's meaning is often in its word pairs ("priority fee", "base fee"); a document
    where they stand together is closer to it than one that has each word somewhere. A pair of two
    `weightless` words is left out unless every pair is such (see `match_expression`).
    """
    pairs = kept_pairs(word_pairs(text), weightless)
    if not pairs:
        return None
    return " OR ".join(f"NEAR({quoted(a)} {quoted(b)}, {distance})" for a, b in pairs)


def word_pairs(text: str) -> list[tuple[str, str]]:
    """The query's adjacent words, stopwords left out, each pair once: what a NEAR ranking looks for."""
    words = [t.group(0).lower() for t in _TOKEN_RE.finditer(text)]
    words = [w for w in words if w not in STOPWORDS]
    return list(dict.fromkeys(zip(words, words[1:], strict=False)))


def quoted(term: str) -> str:
    """One term as an FTS5 string: searched as a word, whatever characters it has."""
    return '"' + term.replace('"', '""') + '"'


def _has_inner_capital(token: str) -> bool:
    return any(c.isupper() for c in token[1:]) and any(c.islower() for c in token)
