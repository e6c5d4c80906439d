"""A document's words as publish writes them: its body tokenized once, through its sections, as if whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docir.index import tokens
from docir.index.fts import index_text
from docir.index.records import DocRow
from docir.org import lexemes, rows
from tests.caller import caller
from tests.org.helpers import sample_repo
from tests.org.test_publish_parts import WORDY


def each_column_alone(row: DocRow, sections: list[rows.SectionRow],
                      searched_max: int) -> tuple[lexemes.Lexical, dict[int, lexemes.Lexical]]:
    """The words of every column tokenized on its own, the body whole: what the local index tokenizes."""
    searched = row.searched[:searched_max]
    title, about = index_text(row.title), index_text(row.description + "\n" + " ".join(row.tags))
    texts = [[title, index_text(row.description), index_text(" ".join(row.tags)),
              index_text("\n".join(row.headings)), index_text(searched)]]
    pieces = [s for s in sections if s.searched is not None]
    texts += [[title, about, index_text(" ".join(s.heading)), index_text((s.searched or "")[:searched_max])]
              for s in pieces]
    found = tokens.shared().tokens(texts)
    return (lexemes.lexical(found[0], lexemes.DOCUMENT_LABELS),
            {s.ord: lexemes.lexical(columns[:4], lexemes.SECTION_LABELS, lexemes.SECTION_EXTRA_TOKENS)
             for s, columns in zip(pieces, found[1:], strict=True)})


@pytest.fixture
def documents(tmp_path: Path) -> list[DocRow]:
    from docir.services.indexing.session import open_session

    root = sample_repo(tmp_path / "repo")
    (root / "docs" / "decisions" / "retry-webhooks.md").write_text(WORDY, encoding="utf-8")
    session = open_session(root, caller())
    try:
        rowids = [state.rowid for state in session.catalog.docs.states()]
        return list(session.catalog.docs.rows_by_rowid(rowids).values())
    finally:
        session.close()


@pytest.mark.parametrize("searched_max", [300_000, 120])
def test_a_body_read_through_its_sections_has_the_words_of_the_body_read_whole(
        documents: list[DocRow], searched_max: int, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tokens.shared()
    tokenized: list[int] = []

    class Counting:
        def tokens(self, texts: Any) -> list[list[list[str]]]:
            tokenized.append(len(texts))
            return real.tokens(texts)

    for row in documents:
        sections = rows.section_rows(row, None)
        expected = each_column_alone(row, sections, searched_max)
        tokenized.clear()
        with monkeypatch.context() as patch:
            patch.setattr(tokens, "shared", Counting)
            assert lexemes.document_words(row, sections, searched_max) == expected, row.path
        # The body is tokenized once, through its sections and what lies between them (one more text
        # than sections), unless it is longer than is searched: then it is tokenized whole as well.
        through = len(row.searched) <= searched_max
        assert tokenized == [1 + len(sections) + (len(sections) + 1 if through else 1)], row.path
    assert any(row.id == "adr-5e1f00c0ffee" and row.shown is not None for row in documents)
