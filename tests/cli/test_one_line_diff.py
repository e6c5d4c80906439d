"""A rewrite changes only the lines of what it meant to change (adr-1753d4c0232d): diffs stay one line."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.cli.helpers import A0, B1, frontmatter_of, parse_json

DOC_ID = "adr-0000000000f1"

# Comments, unknown fields (scalar, list, nested mapping), every quoting style,
# a blank line inside the frontmatter, and a body with comments and code.
RICH = """---
# Decision record: keep the comment lines where they are.
id: adr-0000000000f1
type: decision
title: "Quoted: a title with a colon"
description: 'Single-quoted, and long enough to pass the description length lint easily.'
status: proposed
tags: [alpha, "beta gamma"]
related:
  - relates-to: arch-0000000000b1
owner: "@team"
verified: 2026-01-01

# unknown fields below: docir must keep them as written
reviewers:
  - ana   # lead
  - bo
x-custom: {nested: [1, 2], keep: "me"}
ticket: 'OPS-42'
weight: 3
---

## Context

Body text with <!-- an HTML comment --> and `code`.

```yaml
status: proposed   # not frontmatter
```

## Decision

Keep it.
"""

UNKNOWN = {"reviewers": ["ana", "bo"], "x-custom": {"nested": [1, 2], "keep": "me"}, "ticket": "OPS-42", "weight": 3}


@pytest.fixture
def rich(sample_store: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    path = sample_store / "docs" / "decisions" / "rich.md"
    path.write_bytes(RICH.encode("utf-8"))
    found = cli("get", DOC_ID, "--root", str(sample_store))
    assert found.code == 0, found.err
    return path


def run(cli, root: Path, *args: str):  # type: ignore[no-untyped-def]
    result = cli("update", DOC_ID, *args, "--root", str(root), "--json")
    assert result.code == 0, result.err
    assert result.err == ""
    return result.json()


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a line diff."""
    removed, added = [], []
    for line in difflib.ndiff(before.splitlines(keepends=True), after.splitlines(keepends=True)):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def assert_unknown_fields_survive(path: Path) -> None:
    meta = frontmatter_of(path)
    for key, value in UNKNOWN.items():
        assert meta[key] == value, key
    text = path.read_text(encoding="utf-8")
    assert "# Decision record: keep the comment lines where they are.\n" in text
    assert "# unknown fields below: docir must keep them as written\n" in text
    assert "  - ana   # lead\n" in text
    assert "x-custom: {nested: [1, 2], keep: \"me\"}\n" in text
    assert "ticket: 'OPS-42'\n" in text
    assert text.endswith("Keep it.\n") and not text.endswith("\n\n")


def test_status_change_is_exactly_one_line(rich: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = rich.read_text(encoding="utf-8")

    out = run(cli, rich.parents[2], "--status", "accepted")

    after = rich.read_text(encoding="utf-8")
    assert after == before.replace("\nstatus: proposed\n", "\nstatus: accepted\n", 1)
    assert changed_lines(before, after) == (["status: proposed\n"], ["status: accepted\n"])
    assert out["changed"] == ["status"]
    assert_unknown_fields_survive(rich)
    got = parse_json(cli("get", DOC_ID, "--root", str(rich.parents[2]), "--json").out)["documents"][0]
    assert got["status"] == "accepted"
    assert got["frontmatter"]["x-custom"] == UNKNOWN["x-custom"]


def test_add_related_adds_exactly_one_line(rich: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = rich.read_text(encoding="utf-8")

    out = run(cli, rich.parents[2], "--add-related", f"supersedes:{A0}")

    after = rich.read_text(encoding="utf-8")
    assert after == before.replace(
        "  - relates-to: arch-0000000000b1\n",
        f"  - relates-to: arch-0000000000b1\n  - supersedes: {A0}\n",
        1,
    )
    assert changed_lines(before, after) == ([], [f"  - supersedes: {A0}\n"])
    assert out["changed"] == ["related"]
    assert_unknown_fields_survive(rich)
    # the new edge is in the index, both ways
    root = rich.parents[2]
    related = parse_json(cli("query", "--related-to", A0, "--include-inactive", "--root", str(root), "--json").out)
    assert DOC_ID in [r["id"] for r in related["results"]]


def test_add_related_twice_changes_nothing_the_second_time(rich: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run(cli, rich.parents[2], "--add-related", f"supersedes:{A0}")
    once = rich.read_bytes()
    mtime = rich.stat().st_mtime_ns
    out = run(cli, rich.parents[2], "--add-related", f"supersedes:{A0}")
    assert out["changed"] == []
    assert rich.read_bytes() == once
    assert rich.stat().st_mtime_ns == mtime


def test_verified_changes_exactly_one_line(rich: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = rich.read_text(encoding="utf-8")

    out = run(cli, rich.parents[2], "--verified", "2026-01-02")

    after = rich.read_text(encoding="utf-8")
    assert after == before.replace("\nverified: 2026-01-01\n", "\nverified: 2026-01-02\n", 1)
    assert changed_lines(before, after) == (["verified: 2026-01-01\n"], ["verified: 2026-01-02\n"])
    assert out["changed"] == ["verified"]
    assert_unknown_fields_survive(rich)


def test_verified_added_where_missing_is_one_new_line(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = sample_store / "docs" / "issues" / "login-loop.md"  # has no verified field
    before = path.read_text(encoding="utf-8")

    result = cli("update", "issue-0000000000c1", "--verified", "2026-01-02", "--root", str(sample_store))

    assert result.code == 0, result.err
    after = path.read_text(encoding="utf-8")
    assert changed_lines(before, after) == ([], ["verified: 2026-01-02\n"])
    assert after == before.replace('owner: "@platform"\n---\n', 'owner: "@platform"\nverified: 2026-01-02\n---\n', 1)


def test_a_rewrite_with_the_same_value_leaves_the_file_alone(rich: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = rich.read_bytes()
    mtime = rich.stat().st_mtime_ns
    out = run(cli, rich.parents[2], "--status", "proposed")
    assert out["changed"] == []
    assert rich.read_bytes() == before
    assert rich.stat().st_mtime_ns == mtime


@pytest.mark.parametrize(
    ("args", "field_lines"),
    [
        (("--title", "A plain new title"), {'title: "Quoted: a title with a colon"\n'}),
        (("--description", "Another description, long enough to pass the lint."),
         {"description: 'Single-quoted, and long enough to pass the description length lint easily.'\n"}),
        (("--tags", "one,two"), {'tags: [alpha, "beta gamma"]\n'}),
        (("--owner", "@other-team"), {'owner: "@team"\n'}),
        (("--remove-related", "relates-to:arch-0000000000b1"), {"related:\n", "  - relates-to: arch-0000000000b1\n"}),
        (("--field", "ticket=OPS-43"), {"ticket: 'OPS-42'\n"}),
    ],
    ids=["title", "description", "tags", "owner", "remove-related", "field"],
)
def test_each_field_write_touches_only_that_field(rich: Path, cli, args: tuple[str, ...],  # type: ignore[no-untyped-def]
                                                  field_lines: set[str]) -> None:
    before = rich.read_text(encoding="utf-8")

    run(cli, rich.parents[2], *args)

    after = rich.read_text(encoding="utf-8")
    removed, added = changed_lines(before, after)
    assert set(removed) == field_lines
    field = next(iter(field_lines)).split(":")[0]
    for line in added:
        assert line.startswith((f"{field}:", "  ")), line
    # everything outside the field is byte-identical, in order
    assert [ln for ln in before.splitlines(keepends=True) if ln not in field_lines] == \
        [ln for ln in after.splitlines(keepends=True) if ln not in added]
    if field != "ticket":
        assert_unknown_fields_survive(rich)
    else:
        assert frontmatter_of(rich)["ticket"] == "OPS-43"


@pytest.mark.parametrize(
    "args",
    [
        ("--append-section", "Consequences", "--body", "More work."),
        ("--replace-section", "Decision", "--body", "Keep it, firmly."),
        ("--replace-section", "Context", "--body", "New context."),
    ],
    ids=["append", "replace-last", "replace-first"],
)
def test_body_edits_leave_the_frontmatter_byte_identical(rich: Path, cli, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    before = rich.read_text(encoding="utf-8")
    head = before[: before.index("\n---\n", 4) + 5]

    run(cli, rich.parents[2], *args)

    after = rich.read_text(encoding="utf-8")
    assert after.startswith(head)
    assert frontmatter_of(rich) == frontmatter_of_text(head)
    assert after.endswith("\n") and not after.endswith("\n\n")


def frontmatter_of_text(head: str) -> dict[str, object]:
    import yaml

    data = yaml.safe_load(head[4:-5])
    assert isinstance(data, dict)
    return data


def test_replace_section_keeps_the_other_sections_byte_identical(rich: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = rich.read_text(encoding="utf-8")
    run(cli, rich.parents[2], "--replace-section", "Context", "--body", "New context.")
    after = rich.read_text(encoding="utf-8")
    decision = before[before.index("## Decision") :]
    assert after.endswith(decision)
    assert "## Context\n\nNew context.\n\n## Decision" in after
    assert "an HTML comment" not in after  # it was in the replaced section
    _removed, added = changed_lines(before, after)
    assert added == ["New context.\n"]


def test_unknown_fields_survive_a_sequence_of_every_write(rich: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = rich.parents[2]
    steps = [
        ("--status", "accepted"),
        ("--add-related", f"supersedes:{A0}"),
        ("--verified", "2026-01-02"),
        ("--verified",),
        ("--title", "New: title"),
        ("--description", "A new description that is long enough for the linter."),
        ("--tags", "x,y"),
        ("--tags", ""),
        ("--owner", "@someone"),
        ("--remove-related", f"relates-to:{B1}"),
        ("--append-section", "Notes", "--body", "note"),
        ("--replace-section", "Notes", "--body", "new note"),
        ("--field", "extra=1"),
        ("--field", "extra="),
        ("--replace-body", "--body", "## Only\n\nOne section now."),
    ]
    for step in steps:
        run(cli, root, *step)
        assert_unknown_fields_survive_loosely(rich)
    meta = frontmatter_of(rich)
    assert meta["status"] == "accepted" and meta["title"] == "New: title"
    assert meta["related"] == [{"supersedes": A0}]
    assert "tags" not in meta and "extra" not in meta
    text = rich.read_text(encoding="utf-8")
    assert text.endswith("---\n\n## Only\n\nOne section now.\n")


def assert_unknown_fields_survive_loosely(path: Path) -> None:
    meta = frontmatter_of(path)
    for key, value in UNKNOWN.items():
        assert meta[key] == value, key
    text = path.read_text(encoding="utf-8")
    assert "# Decision record: keep the comment lines where they are.\n" in text
    assert "# unknown fields below: docir must keep them as written\n" in text
    assert "  - ana   # lead\n" in text


def test_crlf_file_keeps_its_line_endings(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = sample_store / "docs" / "decisions" / "crlf.md"
    text = RICH.replace("\n", "\r\n")
    path.write_bytes(text.encode("utf-8"))

    result = cli("update", DOC_ID, "--status", "accepted", "--root", str(sample_store))

    assert result.code == 0, result.err
    after = path.read_bytes().decode("utf-8")
    assert after == text.replace("\r\nstatus: proposed\r\n", "\r\nstatus: accepted\r\n", 1)


# Every write, one at a time, from the same starting file (adr-3e8b51d07a4c).
EVERY_WRITE = [
    ("--append-section", "Notes", "--body", "First line.\nSecond line."),
    ("--replace-section", "Decision", "--body", "Keep it, firmly.\n\nTwo paragraphs."),
    ("--replace-section", "Context", "--body", "New context."),
    ("--replace-body", "--body", "## Only\n\nOne section now."),
    ("--add-related", f"supersedes:{A0}"),
    ("--remove-related", f"relates-to:{B1}"),
    ("--status", "accepted"),
    ("--title", "New: title"),
    ("--tags", "x,y"),
    ("--verified", "2026-01-02"),
    ("--field", "extra=1"),
    ("--field", "ticket="),
]
EVERY_WRITE_IDS = ["append", "replace-last", "replace-first", "replace-body", "add-related", "remove-related",
                   "status", "title", "tags", "verified", "new-field", "remove-field"]


@pytest.mark.parametrize(("bom", "newline"), [("", "\r\n"), ("\ufeff", "\r\n"), ("\ufeff", "\n")],
                         ids=["crlf", "bom-crlf", "bom-lf"])
@pytest.mark.parametrize("args", EVERY_WRITE, ids=EVERY_WRITE_IDS)
def test_every_write_keeps_crlf_and_bom(sample_store: Path, cli, args: tuple[str, ...],  # type: ignore[no-untyped-def]
                                        bom: str, newline: str) -> None:
    path = sample_store / "docs" / "decisions" / "rich.md"
    path.write_bytes(RICH.encode("utf-8"))
    run(cli, sample_store, *args)
    as_lf = path.read_bytes()  # the same write on the plain LF file: what changes, in LF

    original = (bom + RICH.replace("\n", newline)).encode("utf-8")
    path.write_bytes(original)
    run(cli, sample_store, *args)

    after = path.read_bytes()
    assert after == (bom + as_lf.decode("utf-8").replace("\n", newline)).encode("utf-8")
    assert after.startswith(bom.encode("utf-8") + b"---" + newline.encode())
    if newline == "\r\n":
        assert after.count(b"\n") == after.count(b"\r\n")


def test_a_mixed_file_keeps_each_untouched_line_as_it_was(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = sample_store / "docs" / "decisions" / "rich.md"
    crlf = RICH.replace("\n", "\r\n")
    mixed = crlf.replace("Body text with <!-- an HTML comment --> and `code`.\r\n",
                         "Body text with <!-- an HTML comment --> and `code`.\n")
    path.write_bytes(mixed.encode("utf-8"))

    run(cli, sample_store, "--append-section", "Notes", "--body", "A note.")

    assert path.read_bytes() == (mixed + "\r\n## Notes\r\n\r\nA note.\r\n").encode("utf-8")
