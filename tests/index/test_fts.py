import sqlite3

import pytest

from docir.index.fts import identifier_parts, index_text, match_expression, query_terms
from docir.index.migrations import FTS_TOKENIZER


def test_identifier_parts() -> None:
    assert identifier_parts("snake_case_name") == ["snake", "case", "name"]
    assert identifier_parts("CamelCaseHTTPServer") == ["camel", "case", "http", "server"]
    assert identifier_parts("--include-inactive") == ["include", "inactive"]


def test_query_terms_drop_stopwords_and_keep_identifiers_whole_and_split() -> None:
    assert query_terms("How is the snake_case handled") == ["snake_case", "snake", "case", "handled"]


@pytest.mark.parametrize("text", ['"', "*", "NEAR(", "AND", "-x", "col:x", "a\"b", "(((", "title:foo OR", "^x", "'"])
def test_any_user_text_is_a_valid_match(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize = \"{FTS_TOKENIZER}\")")
    conn.execute("INSERT INTO t VALUES (?)", (index_text("x near col title foo and b"),))
    expression = match_expression(text)
    if expression is not None:
        conn.execute("SELECT * FROM t WHERE t MATCH ?", (expression,)).fetchall()


@pytest.mark.parametrize(
    ("document", "query"),
    [
        ("call fetch_user_token first", "token"),
        ("call fetch_user_token first", "fetch_user_token"),
        ("the SessionRenewalStrategy class", "renewal"),
        ("the SessionRenewalStrategy class", "SessionRenewalStrategy"),
        ("pass --wait-embeddings to block", "--wait-embeddings"),
        ("pass --wait-embeddings to block", "embeddings"),
        ("retrying requests", "retries"),  # porter stemming
    ],
)
def test_identifiers_and_words_are_found(document: str, query: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize = \"{FTS_TOKENIZER}\")")
    conn.execute("INSERT INTO t VALUES (?)", (index_text(document),))
    expression = match_expression(query)
    assert expression is not None
    assert conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (expression,)).fetchone()[0] == 1
