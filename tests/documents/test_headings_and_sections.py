import pytest

from docir.documents import sections
from docir.documents.headings import find_headings, section_span

BODY = """
## First

Text one.

```python
## not a heading
```

~~~~
# also code
~~~~

## Second

### Nested

Deep.

Setext Title
------------

Under setext.
"""


def test_headings_skip_fenced_code_and_find_setext() -> None:
    found = [(h.level, h.text) for h in find_headings(BODY)]
    assert found == [(2, "First"), (2, "Second"), (3, "Nested"), (2, "Setext Title")]


def test_section_span_runs_to_the_next_heading_of_same_level() -> None:
    start, end, heading = section_span(BODY, "second") or (0, 0, None)
    assert heading is not None and heading.text == "Second"
    assert BODY[start:end].startswith("## Second")
    assert "Deep." in BODY[start:end]
    assert "Setext Title" not in BODY[start:end]


def test_append_section_adds_at_the_end() -> None:
    new = sections.append_section(BODY, "Third", "Three.")
    assert new.startswith(BODY.rstrip("\n"))
    assert new.endswith("\n\n## Third\n\nThree.\n")


def test_append_existing_section_is_refused() -> None:
    with pytest.raises(sections.SectionExists):
        sections.append_section(BODY, "first", "again")


def test_replace_section_keeps_other_sections_byte_identical() -> None:
    new = sections.replace_section(BODY, "First", "Replaced.")
    assert new.startswith("\n## First\n\nReplaced.\n\n## Second")
    assert new[new.index("## Second") :] == BODY[BODY.index("## Second") :]


def test_replace_missing_section() -> None:
    with pytest.raises(sections.SectionMissing):
        sections.replace_section(BODY, "Nope", "x")


def test_append_to_empty_body() -> None:
    assert sections.append_section("", "Only", "Text") == "\n## Only\n\nText\n"
