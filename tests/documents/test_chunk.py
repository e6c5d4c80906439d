"""The heading chunker: one chunk per section, every chunk within budget, fences never cut."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from docir.documents.chunk import Chunk, chunk_markdown, window_budget, written_sections
from docir.documents.headings import FENCE_RE, find_headings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "chunking"
NAMES = ["nested.md", "long-section.md", "fenced.md", "setext.md", "preamble.md"]
TITLE = "Title"


# The real tokenizer lives in docir.embed; two cheap deterministic stand-ins that disagree on purpose.
def words(text: str) -> int:
    return len(text.split())


def chars4(text: str) -> int:
    return math.ceil(len(text) / 4)


COUNTERS: dict[str, Callable[[str], int]] = {"words": words, "chars4": chars4}


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def chunk(body: str, budget: int = 256, counter: Callable[[str], int] = words, title: str = TITLE) -> list[Chunk]:
    return chunk_markdown(body, title=title, count_tokens=counter, budget=budget)


def content(c: Chunk) -> str:
    """The chunk text without its breadcrumb line and the blank line after it."""
    crumb, _, rest = c.text.partition("\n\n")
    assert "\n" not in crumb
    return rest


def fence_open_after(text: str) -> bool:
    fence: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                fence = None
        elif match := FENCE_RE.match(line):
            fence = match.group(1)
    return fence is not None


def pieces_of(chunks: list[Chunk], path: tuple[str, ...]) -> list[Chunk]:
    return [c for c in chunks if c.heading_path == path]


def assert_rejoins(section: str, pieces: list[Chunk]) -> None:
    """Each piece's content is the next stretch of the section; only whitespace between pieces may differ."""
    rest = section
    for piece in pieces:
        text = content(piece).lstrip()
        rest = rest.lstrip()
        assert rest.startswith(text), (text[:80], rest[:80])
        rest = rest[len(text) :]
    assert rest.strip() == ""


# --- structure -------------------------------------------------------------------------------------------


def test_nested_headings_give_one_chunk_per_heading_in_order_with_full_breadcrumb() -> None:
    chunks = chunk(read("nested.md"))
    assert [c.heading_path for c in chunks] == [
        ("Top",),
        ("Top", "Middle"),
        ("Top", "Middle", "Deep"),
        ("Top", "Middle", "Deeper Sibling"),
        ("Top", "Second Middle"),
        ("Top", "Second Middle", "Skipped Level"),
        ("Second Top",),
        ("Second Top", "Under Second Top"),
    ]
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert not any(c.continuation for c in chunks)
    deep = chunks[2]
    assert deep.text.startswith("Title > Top > Middle > Deep\n\n### Deep\n")
    assert "Title > Top > Middle > Deep" in deep.text
    assert chunks[7].text.startswith("Title > Second Top > Under Second Top\n\n## Under Second Top\n")
    # A section ends at the next heading of any level, so a parent holds none of its children's text.
    assert "restarting a pod" not in chunks[1].text


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("budget", [32, 64, 256])
@pytest.mark.parametrize("counter", COUNTERS)
def test_each_chunk_span_holds_at_most_one_heading_and_it_comes_first(name: str, budget: int, counter: str) -> None:
    body = read(name)
    chunks = chunk(body, budget, COUNTERS[counter])
    starts = [h.start for h in find_headings(body)]
    for c in chunks:
        inside = [s for s in starts if c.start <= s < c.end]
        if c.heading_path and not c.continuation:
            assert inside == [c.start]
        else:
            assert inside == []


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("budget", [64, 256])
@pytest.mark.parametrize("counter", COUNTERS)
def test_chunk_text_has_one_heading_line_right_after_the_breadcrumb(name: str, budget: int, counter: str) -> None:
    for c in chunk(read(name), budget, COUNTERS[counter]):
        found = find_headings(content(c))
        if c.heading_path and not c.continuation:
            assert len(found) == 1 and found[0].line == 0, c.text[:200]
            assert found[0].text == c.heading_path[-1]
        else:
            assert found == [], c.text[:200]


def test_setext_headings_split_sections() -> None:
    chunks = chunk(read("setext.md"))
    assert [c.heading_path for c in chunks] == [
        ("Setext Title",),
        ("Setext Title", "Setext Subsection"),
        ("Setext Title", "Setext Subsection", "ATX Under Setext"),
        ("Setext Title", "Another Setext Section"),
    ]
    assert chunks[0].text.startswith("Title > Setext Title\n\nSetext Title\n============\n")
    assert chunks[1].text.startswith("Title > Setext Title > Setext Subsection\n\nSetext Subsection\n-----")


def test_preamble_becomes_a_chunk_with_an_empty_heading_path() -> None:
    body = read("preamble.md")
    chunks = chunk(body)
    first = chunks[0]
    assert first.heading_path == () and not first.continuation and first.start == 0
    assert first.text.startswith("Title\n\nThis paragraph comes before any heading.")
    assert "A second preamble paragraph." in first.text and "## First Heading" not in first.text
    assert [c.heading_path for c in chunks[1:]] == [("First Heading",), ("Second Heading",)]


def test_blank_preamble_and_a_heading_with_nothing_under_it_make_no_chunk() -> None:
    chunks = chunk("\n  \n## Empty\n## Full\n\nText.\n")
    assert [c.heading_path for c in chunks] == [("Full",)]
    assert chunks[0].text == "Title > Full\n\n## Full\n\nText."


def test_a_heading_over_written_subsections_is_written_and_one_over_empty_ones_is_not() -> None:
    body = "# Title\n\n## Design\n\n### Storage\n\nOne table.\n\n## Options\n\n### A\n\n<!-- fill in -->\n"
    assert [s.path for s in written_sections(body)] == [("Title",), ("Title", "Design"), ("Title", "Design", "Storage")]


def test_only_a_top_heading_without_text_of_its_own_makes_a_chunk() -> None:
    # `## Design` says nothing its subsection's chunk does not begin with; `# Title` is the title's chunk.
    body = "# Title\n\n## Design\n\n### Storage\n\nOne table.\n\n## Scope\n\nAll jobs.\n"
    chunks = chunk(body)
    assert [c.heading_path for c in chunks] == [("Title",), ("Title", "Design", "Storage"), ("Title", "Scope")]
    assert chunks[0].text == "Title > Title\n\n# Title"
    assert [c.heading_path for c in chunk("## Design\n\n### Storage\n\nOne table.\n")] == [
        ("Design",), ("Design", "Storage")]


def test_a_section_holding_only_a_comment_makes_no_chunk() -> None:
    body = ("## Context\n\nWe need a queue.\n\n## Confirmation\n\n<!-- Describe how the implementation\n"
            "will be confirmed. -->\n\n## Decision\n\nUse SQLite.\n")
    chunks = chunk(body)
    assert [c.heading_path for c in chunks] == [("Context",), ("Decision",)]
    assert all("confirmed" not in c.text for c in chunks)


def test_a_comment_is_left_out_of_its_chunk_and_a_comment_in_code_is_kept() -> None:
    body = ("## Decision\n\n<!-- This is an optional element. Feel free to remove. -->\n"
            "Use SQLite <!-- inline note --> for the queue.\n\n```html\n<!-- kept: it is code -->\n```\n\n"
            "Write `<!-- also code -->` literally.\n")
    [only] = chunk(body)
    assert only.text == ("Title > Decision\n\n## Decision\n\nUse SQLite  for the queue.\n\n```html\n"
                         "<!-- kept: it is code -->\n```\n\nWrite `<!-- also code -->` literally.")
    assert (only.start, only.end) == (0, len(body))  # the span is the file's: comments included


def test_a_commented_out_heading_is_no_heading() -> None:
    body = "## Real\n\nText.\n\n<!--\n## Optional section\n\nFill me in.\n-->\n"
    assert [h.text for h in find_headings(body)] == ["Real"]
    assert [c.heading_path for c in chunk(body)] == [("Real",)]


def test_document_without_headings_is_one_chunk_and_blank_is_none() -> None:
    assert [(c.heading_path, c.text) for c in chunk("Just prose.\n")] == [((), "Title\n\nJust prose.")]
    assert chunk("") == [] and chunk(" \n\n") == []


# --- fences ----------------------------------------------------------------------------------------------


def test_heading_lines_inside_fences_are_not_headings() -> None:
    chunks = chunk(read("fenced.md"))
    assert [c.heading_path for c in chunks] == [
        ("Fenced Code",),
        ("Fenced Code", "Shell Example"),
        ("Fenced Code", "Tilde Example"),
        ("Fenced Code", "Long Fence"),
        ("Fenced Code", "After Fences"),
    ]
    shell = chunks[1].text
    assert "## not a heading, a shell comment" in shell and "# also not a heading" in shell
    assert "Text after the first fence." in shell
    assert "four-backtick fence closed above" in chunks[3].text


@pytest.mark.parametrize("name", ["fenced.md", "long-section.md"])
@pytest.mark.parametrize(("budget", "counter"),
                         [(32, "words"), (64, "words"), (256, "words"), (64, "chars4"), (256, "chars4")])
def test_no_chunk_ends_inside_a_fence(name: str, budget: int, counter: str) -> None:
    body = read(name)
    for c in chunk(body, budget, COUNTERS[counter]):
        assert not fence_open_after(content(c)), c.text
        assert not fence_open_after(body[: c.end])


def test_a_fence_that_fits_stays_whole_even_when_its_section_splits() -> None:
    fence = "```\n" + "\n\n".join(f"## line {i} code" for i in range(6)) + "\n```"
    body = "## Section\n\n" + "Prose words here.\n\n" * 4 + fence + "\n\nMore prose after it.\n"
    chunks = chunk(body, budget=30)
    assert len(chunks) > 1
    holders = [c for c in chunks if "```" in c.text]
    assert len(holders) == 1 and fence in holders[0].text
    assert all(words(c.text) <= 30 for c in chunks)


def test_a_fence_bigger_than_the_budget_is_hard_split() -> None:
    fence = "```\n" + "\n".join(f"## line {i} of a very long code block" for i in range(40)) + "\n```"
    body = "## Code\n\n" + fence + "\n"
    chunks = chunk(body, budget=40)
    assert len(chunks) > 1 and chunks[0].text.startswith("Title > Code\n\n## Code")
    assert all(words(c.text) <= 40 for c in chunks)
    assert [c.continuation for c in chunks] == [False] + [True] * (len(chunks) - 1)
    assert_rejoins(body, chunks)


# --- size ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("counter", COUNTERS)
def test_long_section_splits_into_pieces_within_budget(counter: str) -> None:
    count = COUNTERS[counter]
    chunks = chunk(read("long-section.md"), 256, count)
    long = pieces_of(chunks, ("Operations Runbook",))
    assert words(content(long[0])) > 0 and len(long) >= 8
    assert all(count(c.text) <= 256 for c in chunks)
    assert [c.continuation for c in long] == [False] + [True] * (len(long) - 1)
    assert long[0].text.startswith("Title > Operations Runbook\n\n## Operations Runbook\n")
    assert all(c.text.startswith("Title > Operations Runbook\n\n") for c in long)
    assert all("## Operations Runbook" not in c.text for c in long[1:])
    # The next section is not packed into the long one.
    assert pieces_of(chunks, ("After",))[0].text.startswith("Title > After\n\n## After\n")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("budget", [32, 64, 256])
@pytest.mark.parametrize("counter", COUNTERS)
def test_every_chunk_is_within_budget_and_never_empty(name: str, budget: int, counter: str) -> None:
    count = COUNTERS[counter]
    for c in chunk(read(name), budget, count):
        assert count(c.text) <= budget, (count(c.text), c.text[:120])
        assert content(c).strip()


@pytest.mark.parametrize("budget", [32, 64, 256])
@pytest.mark.parametrize("counter", COUNTERS)
def test_pieces_of_a_split_section_rejoin_to_the_section(budget: int, counter: str) -> None:
    body = read("long-section.md")
    chunks = chunk(body, budget, COUNTERS[counter])
    long = pieces_of(chunks, ("Operations Runbook",))
    assert len(long) > 1
    section = body[: body.index("## After")]
    assert_rejoins(section, long)
    # The spans tile the section exactly, so a split section can be shown whole again.
    assert long[0].start == 0 and long[-1].end == len(section)
    assert all(a.end == b.start for a, b in itertools.pairwise(long))


def test_one_huge_word_is_cut_by_characters() -> None:
    body = "## Blob\n\n" + "x" * 2000 + "\n"
    chunks = chunk(body, budget=32, counter=chars4)
    assert len(chunks) > 10
    assert all(chars4(c.text) <= 32 for c in chunks)
    assert_rejoins(body, chunks)


def test_a_breadcrumb_too_long_for_the_budget_is_shortened_not_overflowed() -> None:
    title = " ".join(f"word{i}" for i in range(100))
    chunks = chunk(read("nested.md"), budget=32, title=title)
    assert all(words(c.text) <= 32 for c in chunks)
    assert all(c.text.startswith("word0 word1") and content(c).strip() for c in chunks)


def test_breadcrumb_is_one_line_even_if_the_title_is_not() -> None:
    (only,) = chunk("## A\n\nText.\n", title="Multi\nline  title")
    assert only.text == "Multi line title > A\n\n## A\n\nText."


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError):
        chunk("## A\n", budget=0)


# --- determinism and the window -------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_same_input_gives_identical_chunks(name: str) -> None:
    body = read(name)
    assert chunk(body, 64, chars4) == chunk(body, 64, chars4)
    assert chunk(body, 256) == chunk(body, 256)


def test_long_section_fixture_is_about_8000_words_and_small() -> None:
    text = read("long-section.md")
    assert 7500 <= len(re.findall(r"\S+", text)) <= 9000 and len(text.encode()) < 80_000


def test_window_budget_leaves_room_for_special_tokens() -> None:
    assert window_budget(256) == 248
    assert window_budget(512) == 504
    assert window_budget(512, reserve=2) == 510
    with pytest.raises(ValueError):
        window_budget(8)
