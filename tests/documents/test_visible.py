"""What a reader sees: HTML comments out, code kept as written, offsets of the file kept."""

from __future__ import annotations

import pytest

from docir.documents.reader_view import Visible, hidden_spans, visible_text


@pytest.mark.parametrize(("text", "seen"), [
    ("a\n<!-- alone on its line -->\nb\n", "a\nb\n"),
    ("a <!-- inside --> b\n", "a  b\n"),
    ("* item <!-- ends the line -->\nnext\n", "* item\nnext\n"),
    ("<!-- one --> <!-- two -->\nnext\n", "next\n"),
    ("<!-- starts the line --> text\n", "text\n"),
    ("a\n<!-- over\n\nthree lines -->\nb\n", "a\nb\n"),
    ("a\r\n<!-- crlf -->\r\nb\r\n", "a\r\nb\r\n"),
    ("<!---->x <!-->y\n", "x y\n"),  # CommonMark's shortest comments
    ("left <!-- never closed\n\nstill shown\n", "left <!-- never closed\n\nstill shown\n"),
])
def test_comments_go_and_lines_they_filled_go_with_them(text: str, seen: str) -> None:
    assert visible_text(text) == seen


@pytest.mark.parametrize("text", [
    "```html\n<!-- in a fence -->\n```\n",
    "~~~~\n<!-- a longer fence\n~~~\nstill code -->\n~~~~\n",
    "Write `<!-- code -->` like this.\n",
    "Before.\n\n    <!-- an indented code block -->\n    more code\n",
    "\t<!-- a tab-indented one -->\n",
    "Two ``ticks ` <!-- still code --> ``.\n",
])
def test_a_comment_in_code_is_code(text: str) -> None:
    assert hidden_spans(text) == () and visible_text(text) == text


def test_a_fence_inside_a_comment_opens_nothing() -> None:
    text = "<!--\n```\n-->\nshown <!-- hidden -->\n"
    assert visible_text(text) == "shown\n"


def test_a_code_span_ends_at_its_paragraph() -> None:
    text = "a `lone tick\n\n<!-- hidden --> b `\n"
    assert visible_text(text) == "a `lone tick\n\nb `\n"


def test_the_masked_text_keeps_every_offset_and_slices_read_as_the_reader_sees() -> None:
    text = "## A\n\nkeep <!-- drop --> keep\n<!-- gone -->\nend\n"
    seen = Visible.of(text)
    masked = seen.masked()
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert "drop" not in masked and "gone" not in masked and masked.index("end") == text.index("end")
    start = text.index("keep")
    assert seen.slice(start, text.index("end")) == "keep  keep\n"
    assert seen.slice(text.index("drop"), len(text)) == " keep\nend\n"  # a slice may begin inside a comment
    assert seen.is_hidden(text.index("gone")) and not seen.is_hidden(text.index("end"))


def test_an_indented_line_is_code_only_after_a_blank_line() -> None:
    text = "Para\n    <!-- a lazy continuation, not code -->\n\n    <!-- code -->\n\n<!-- after it -->\nend\n"
    assert visible_text(text) == "Para\n\n    <!-- code -->\n\nend\n"
