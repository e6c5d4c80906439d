import datetime as dt

import pytest

from docir.documents import frontmatter
from docir.documents.frontmatter import FrontmatterError

DOC = """---
id: adr-0123456789ab
type: decision
# a comment that must survive
title: "Quoted title"   # trailing comment
description: Plain description.
status: proposed
related:
  - supersedes: adr-00000000000a

  - relates-to: arch-00000000000b
custom: {kept: true}
---

## Context

Body text.
"""


def test_parse_reads_fields_and_body() -> None:
    meta, parts = frontmatter.parse(DOC)
    assert meta["title"] == "Quoted title"
    assert meta["related"] == [{"supersedes": "adr-00000000000a"}, {"relates-to": "arch-00000000000b"}]
    assert parts.body == "\n## Context\n\nBody text.\n"
    assert parts.body_line == 14


def test_set_field_changes_only_that_line() -> None:
    new = frontmatter.set_field(DOC, "status", "accepted")
    old_lines, new_lines = DOC.splitlines(), new.splitlines()
    assert len(old_lines) == len(new_lines)
    diff = [(a, b) for a, b in zip(old_lines, new_lines, strict=True) if a != b]
    assert diff == [("status: proposed", "status: accepted")]


def test_set_field_replaces_a_multiline_value_including_its_blank_line() -> None:
    new = frontmatter.set_field(DOC, "related", [{"supersedes": "adr-00000000000a"}])
    assert "relates-to" not in new
    assert "custom: {kept: true}\n" in new
    assert frontmatter.parse(new)[0]["related"] == [{"supersedes": "adr-00000000000a"}]


def test_new_field_goes_last_and_none_removes() -> None:
    added = frontmatter.set_field(DOC, "verified", dt.date(2026, 1, 2))
    assert added.split("---")[1].rstrip().endswith("verified: 2026-01-02")
    removed = frontmatter.set_field(added, "verified", None)
    assert removed == DOC


@pytest.mark.parametrize("value", ["a: b", "yes", "2026-01-01", "#hash", "quote ' and \"", "- dash", "[x]"])
def test_values_that_look_like_yaml_syntax_round_trip(value: str) -> None:
    new = frontmatter.set_field(DOC, "title", value)
    assert frontmatter.parse(new)[0]["title"] == value


def test_list_values_with_flow_indicators_round_trip() -> None:
    tags = ["a,b", "c]", "plain"]
    assert frontmatter.parse(frontmatter.set_field(DOC, "tags", tags))[0]["tags"] == tags


def test_crlf_files_keep_crlf() -> None:
    crlf = DOC.replace("\n", "\r\n")
    new = frontmatter.set_field(crlf, "status", "accepted")
    assert "status: accepted\r\n" in new
    assert new.replace("status: accepted", "status: proposed") == crlf


def test_missing_frontmatter_is_an_error_at_line_one() -> None:
    with pytest.raises(FrontmatterError) as err:
        frontmatter.parse("# Just markdown\n")
    assert (err.value.line, err.value.col) == (1, 1)


def test_unclosed_frontmatter_is_an_error() -> None:
    with pytest.raises(FrontmatterError, match="not closed"):
        frontmatter.parse("---\nid: x\n")


def test_yaml_error_points_at_the_file_line() -> None:
    text = "---\nid: adr-0123456789ab\ntitle: [unclosed\nstatus: x\n---\n"
    with pytest.raises(FrontmatterError) as err:
        frontmatter.parse(text)
    assert err.value.line in (3, 4)  # the YAML parser notices at the end of the flow sequence


def test_frontmatter_that_is_not_a_mapping() -> None:
    with pytest.raises(FrontmatterError, match="mapping"):
        frontmatter.parse("---\n- a\n- b\n---\n")


def test_field_lines() -> None:
    lines = frontmatter.field_lines(DOC)
    assert lines["id"] == 2
    assert lines["title"] == 5
    assert lines["custom"] == 12


def test_set_body_keeps_frontmatter_bytes() -> None:
    new = frontmatter.set_body(DOC, "\nNew body.\n")
    assert new.startswith(DOC[: DOC.index("\n## Context")])
    assert new.endswith("---\n\nNew body.\n")
