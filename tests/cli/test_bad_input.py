"""Bad input gets one clear stderr line, the documented exit code, and loses nothing.

Errors and exit codes: adr-41542fe48001; a damaged index is rebuilt from the files: adr-0359aa31338f.

Every command here runs as its own process, the way an agent runs docir, so a
traceback printed by anything (Python, click, SQLite) would show on stderr.
"""

from __future__ import annotations

import io
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import A1, ACTIVE_IDS, B1, D1, PATHS, ids, one_line, parse_json
from tests.conftest import Result, add_doc, run_process


def docir(root: Path, command: str, *args: str) -> Result:
    """Run `docir COMMAND --root ROOT ARGS...` (--root first, so a `--` in ARGS still ends the options)."""
    return run_process(command, "--root", str(root), *args)


def assert_others_answer(result: Result) -> None:
    assert result.code == 0, result.err
    assert ids(parse_json(result.out)) == ACTIVE_IDS


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under docs/ with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "docs").rglob("*")) if p.is_file()}


# --- documents docir cannot read -----------------------------------------------------------------

MALFORMED = ("---\nid: adr-0000000000f1\ntype: decision\ntitle: [unclosed\nstatus: proposed\n---\n"
             "\n## Context\n\nText.\n")


def test_malformed_yaml_frontmatter_is_skipped_with_one_warning(sample_store: Path) -> None:
    bad = sample_store / "docs" / "decisions" / "bad.md"
    bad.write_text(MALFORMED, encoding="utf-8")
    before = bad.read_bytes()

    result = docir(sample_store, "query", "--json")

    assert_others_answer(result)
    line = one_line(result.err, "warning")
    assert "docs/decisions/bad.md" in line
    assert re.search(r"\bline \d+\b|bad\.md:\d+", line), line
    assert bad.read_bytes() == before


@pytest.mark.parametrize(
    ("yaml_lines", "bad_line"),
    [
        # The error is on file line 4 in every case: that is the line a person must fix.
        ("title: a: b", 4),
        ("title: [unclosed", 4),
        ("title: {unclosed: 1", 4),
        ('title: "unterminated', 4),
        ("title: [a, b\nstatus: accepted", 4),
        ("title: ok\n\tstatus: x", 5),
        ("title: ok\n  bad: indent", 5),
        ("title: ok\nstatus: [a, b]]", 5),
    ],
    ids=["mapping-in-value", "unclosed-list", "unclosed-map", "unclosed-quote", "unclosed-list-then-key", "tab",
         "bad-indent", "extra-bracket"],
)
def test_malformed_yaml_warning_names_the_offending_line(sample_store: Path, yaml_lines: str, bad_line: int) -> None:
    bad = sample_store / "docs" / "bad.md"
    text = f"---\nid: adr-0000000000f1\ntype: decision\n{yaml_lines}\n---\nbody\n"
    bad.write_text(text, encoding="utf-8")

    result = docir(sample_store, "query", "--json")

    assert_others_answer(result)
    line = one_line(result.err, "warning")
    assert "docs/bad.md" in line
    named = re.search(r"\bline (\d+)\b|bad\.md:(\d+)", line)
    assert named, line
    assert int(named.group(1) or named.group(2)) == bad_line, (
        f"the warning names line {named.group(1) or named.group(2)}, the mistake is on line {bad_line} "
        f"(line {bad_line} is {text.splitlines()[bad_line - 1]!r}): {line}"
    )


def test_file_without_frontmatter_is_skipped_with_one_warning(sample_store: Path) -> None:
    plain = sample_store / "docs" / "notes.md"
    plain.write_text("# Just notes\n\nNo frontmatter here.\n", encoding="utf-8")
    before = plain.read_bytes()

    result = docir(sample_store, "query", "--json")

    assert_others_answer(result)
    line = one_line(result.err, "warning")
    assert "docs/notes.md" in line
    assert "frontmatter" in line
    assert plain.read_bytes() == before


def test_duplicate_id_get_returns_one_and_warns_once_naming_both_paths(sample_store: Path) -> None:
    copy = sample_store / "docs" / "copy-of-guide.md"
    copy.write_bytes((sample_store / PATHS[D1]).read_bytes())

    result = docir(sample_store, "get", D1, "--json")

    assert result.code == 0, result.err
    payload = parse_json(result.out)
    assert ids(payload, "documents") == [D1]
    assert payload["documents"][0]["path"] in {PATHS[D1], "docs/copy-of-guide.md"}
    line = one_line(result.err, "warning")
    assert PATHS[D1] in line and "docs/copy-of-guide.md" in line
    assert "duplicate" in line.lower() and D1 in line


def test_binary_file_is_skipped_with_one_warning(sample_store: Path) -> None:
    binary = sample_store / "docs" / "x.md"
    binary.write_bytes(b"---\nid: adr-0000000000f2\n\x00\x01\x02\xff binary\x00 data\n")
    before = binary.read_bytes()

    result = docir(sample_store, "query", "--json")

    assert_others_answer(result)
    line = one_line(result.err, "warning")
    assert "docs/x.md" in line and "binary" in line
    assert binary.read_bytes() == before


def test_non_utf8_file_is_skipped_with_one_warning(sample_store: Path) -> None:
    latin = sample_store / "docs" / "y.md"
    latin.write_bytes("---\nid: adr-0000000000f3\ntype: decision\ntitle: Caf\xe9 cr\xe8me\n---\n".encode("latin-1"))
    before = latin.read_bytes()

    result = docir(sample_store, "query", "--json")

    assert_others_answer(result)
    line = one_line(result.err, "warning")
    assert "docs/y.md" in line and "UTF-8" in line
    assert latin.read_bytes() == before


def test_huge_file_is_skipped_unread_with_one_warning(sample_store: Path, cli,  # type: ignore[no-untyped-def]
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The size from the walk's stat decides: the file is never opened, whatever its size (not timed,
    adr-fd6d145352aa: a command that never opens it cannot spend its time reading it)."""
    big = sample_store / "docs" / "big.md"
    with open(big, "wb") as handle:  # sparse: 50 MB of size, no time to write
        handle.write(b"---\nid: adr-0000000000f4\n---\n")
        handle.truncate(50 * 1024 * 1024)
    opened: list[str] = []
    real_io_open, real_os_open = io.open, os.open

    def io_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_io_open(file, *args, **kwargs)

    def os_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", io_open)
    monkeypatch.setattr("builtins.open", io_open)
    monkeypatch.setattr(os, "open", os_open)
    result = cli("query", "--root", str(sample_store), "--json")
    monkeypatch.undo()

    assert_others_answer(result)
    line = one_line(result.err, "warning")
    assert "docs/big.md" in line and "MB" in line
    assert any(name.endswith(".md") for name in opened)  # the spy saw the documents that were read ...
    assert not any(name.endswith("big.md") for name in opened)  # ... and never this one
    assert big.stat().st_size == 50 * 1024 * 1024


def test_search_still_finds_others_next_to_unreadable_files(sample_store: Path) -> None:
    (sample_store / "docs" / "bad.md").write_text(MALFORMED, encoding="utf-8")
    first = docir(sample_store, "search", "sessions", "--json")
    assert first.code == 0, first.err
    assert set(ids(parse_json(first.out))) == {A1, B1}
    one_line(first.err, "warning")
    # Known bad files are remembered, so a second command answers the same way.
    second = docir(sample_store, "search", "sessions", "--json")
    assert second.code == 0 and "Traceback" not in second.err
    assert set(ids(parse_json(second.out))) == {A1, B1}


@pytest.mark.parametrize(
    "yaml_lines",
    [
        "verified: 2026-13-45",  # a typo'd date: YAML resolves it as a timestamp, then cannot build it
        "date: 2026-02-30",
        "loop: &a [*a]",  # an alias that contains itself
        "loop: &a {self: *a}",
    ],
    ids=["impossible-verified", "impossible-date", "self-referencing-list", "self-referencing-map"],
)
def test_frontmatter_that_parses_but_cannot_be_built_is_skipped(sample_store: Path, yaml_lines: str) -> None:
    odd = sample_store / "docs" / "odd.md"
    odd.write_text(
        "---\nid: adr-0000000000f5\ntype: decision\ntitle: Odd\n"
        "description: Frontmatter that YAML accepts but cannot turn into plain values.\n"
        f"status: proposed\n{yaml_lines}\n---\n\nBody.\n",
        encoding="utf-8",
    )
    before = odd.read_bytes()

    for args in (("query",), ("search", "sessions"), ("get", A1)):
        result = docir(sample_store, *args)
        assert result.code == 0, f"{args}: exit {result.code}: {result.err}"
        assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    first = docir(sample_store, "query", "--json")  # the file is known by now; the listing is what matters
    assert ids(parse_json(first.out)) == ACTIVE_IDS
    assert odd.read_bytes() == before


def test_frontmatter_first_read_warns_once_for_a_typo_date(sample_store: Path) -> None:
    (sample_store / "docs" / "odd.md").write_text(
        "---\nid: adr-0000000000f5\ntype: decision\ntitle: Odd\ndescription: A typo in the date.\n"
        "status: proposed\nverified: 2026-02-30\n---\n", encoding="utf-8")
    result = docir(sample_store, "query", "--json")
    assert_others_answer(result)
    line = one_line(result.err, "warning")
    assert "docs/odd.md" in line


def test_tiny_file_with_a_yaml_alias_bomb_does_not_blow_up_the_index(sample_store: Path) -> None:
    """Nested aliases: ~500 bytes on disk that expand to a million values when copied out."""
    lines = ["---", "id: adr-0000000000f6", "type: decision", "title: Bomb",
             "description: Nested YAML aliases that expand a million-fold.", "status: proposed",
             "l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 7)]
    bomb = sample_store / "docs" / "bomb.md"
    bomb.write_text("\n".join(lines + ["---", "", "Body."]) + "\n", encoding="utf-8")
    assert bomb.stat().st_size < 1024

    result = docir(sample_store, "query", "--include-inactive")

    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    # Refused as it is parsed, before any value is built (not timed, adr-fd6d145352aa): nothing expands.
    line = one_line(result.err, "warning")
    assert "docs/bomb.md" in line and "anchors and aliases" in line
    index = sample_store / ".docir" / "index.db"
    sizes = sum(Path(f"{index}{s}").stat().st_size for s in ("", "-wal") if Path(f"{index}{s}").exists())
    assert sizes < 8 * 1024 * 1024, f"a {bomb.stat().st_size}-byte file made a {sizes // (1024 * 1024)} MB index"
    got = docir(sample_store, "get", "adr-0000000000f6")
    assert len(got.out) < 1024 * 1024, f"get printed {len(got.out) // 1024} KB for a {bomb.stat().st_size}-byte file"


# --- write commands given bad values -------------------------------------------------------------------


def test_add_unknown_type_names_the_known_types(sample_store: Path) -> None:
    before = snapshot(sample_store)
    result = docir(sample_store, "add", "nosuchtype", "--title", "T", "--description", "A description long enough.")
    assert result.code == 2
    assert result.out == ""
    line = one_line(result.err, "error")
    assert "nosuchtype" in line
    for known in ("decision", "architecture", "issue", "guide"):
        assert known in line
    assert snapshot(sample_store) == before


def test_add_unknown_status_names_the_allowed_statuses(sample_store: Path) -> None:
    before = snapshot(sample_store)
    result = docir(sample_store, "add", "decision", "--status", "nosuch", "--title", "T",
                   "--description", "A description long enough.", "--owner", "@team")
    assert result.code == 2
    assert result.out == ""
    line = one_line(result.err, "error")
    assert "nosuch" in line
    for allowed in ("proposed", "accepted", "rejected", "deprecated", "superseded"):
        assert allowed in line
    assert snapshot(sample_store) == before


def test_update_unknown_status_leaves_the_file_byte_identical(sample_store: Path) -> None:
    path = sample_store / PATHS[A1]
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    result = docir(sample_store, "update", A1, "--status", "nosuch")
    assert result.code == 2
    assert result.out == ""
    line = one_line(result.err, "error")
    assert "nosuch" in line and "accepted" in line
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == mtime
    # and the index still has the old status
    got = parse_json(docir(sample_store, "get", A1, "--json").out)
    assert got["documents"][0]["status"] == "accepted"


# --- ids that try to be paths ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("get", "../../etc/passwd"),
        ("get", A1, "../../etc/passwd"),
        ("update", "../../etc/passwd", "--status", "x"),
        ("archive", "../x"),
        ("get", "docs/decisions/keep-sessions-in-the-database.md"),
        ("get", "/etc/passwd"),
    ],
    ids=["get", "get-among-valid", "update", "archive", "get-relative-path", "get-absolute-path"],
)
def test_an_id_that_is_a_path_is_refused(sample_store: Path, args: tuple[str, ...]) -> None:
    # A file a naive path join would reach: nothing of it may be read or moved.
    outside = sample_store.parent / "x"
    outside.write_text("SECRET-OUTSIDE-THE-STORE\n", encoding="utf-8")
    before = snapshot(sample_store)

    result = docir(sample_store, *args)

    assert result.code == 2
    assert result.out == ""
    line = one_line(result.err, "error")
    assert "not a document id" in line
    assert "SECRET" not in result.err
    assert outside.read_text(encoding="utf-8") == "SECRET-OUTSIDE-THE-STORE\n"
    assert snapshot(sample_store) == before


# --- search text is never query syntax -------------------------------------------------------------

ODD_QUERIES = ['"', "*", "NEAR(", "AND", "-x", "col:x", "title:foo OR", 'a"b', "(((", "", "the and of to",
               "OR", "NOT", ")", "^", "'", "\\", ":", "{a b}", "x*y", "--", "NEAR(a b, 2)", "💥", "\t\n"]


@pytest.mark.parametrize("text", ODD_QUERIES)
def test_search_accepts_any_text(sample_store: Path, text: str) -> None:
    # `--` ends the options, so a text that starts with '-' is text (as with grep and ripgrep).
    result = (docir(sample_store, "search", "--json", "--", text) if text.startswith("-")
              else docir(sample_store, "search", text, "--json"))
    assert result.code == 0, result.err
    assert result.err == ""
    payload = parse_json(result.out)
    assert set(payload) >= {"query", "results", "count"}
    assert payload["query"] == text
    assert payload["count"] == len(payload["results"])


@pytest.mark.parametrize(
    "text",
    ['"sessions*', "sessions*", '"sessions"', 'sessions"', "(sessions)", "(((sessions", "NEAR(sessions",
     "col:sessions", "title:sessions OR", "sessions AND", "AND sessions", 'a"sessions', "-sessions",
     "sessions -", "^sessions", "{sessions}", "sessions:"],
)
def test_search_finds_a_word_wrapped_in_query_syntax(sample_store: Path, text: str) -> None:
    result = docir(sample_store, "search", "--json", "--", text)
    assert result.code == 0, result.err
    assert result.err == ""
    assert set(ids(parse_json(result.out))) == {A1, B1}


@pytest.mark.parametrize("text", ["--verified", "--root", "--json", "--help", "--limit"])
def test_search_for_an_option_name_is_text_after_double_dash(store: Path, cli, text: str) -> None:  # type: ignore[no-untyped-def]
    """`--flags` are searchable words (adr-74cfd6cd41e7); after `--` nothing is an option any more."""
    doc_id = add_doc(cli, store, "guide", "Command flags", "Which flag marks a review, and how to pass it.",
                     "--body", f"Pass {text} to the command.")

    result = docir(store, "search", "--json", "--", text)

    assert result.code == 0, result.err
    assert result.err == ""
    payload = parse_json(result.out)
    assert payload["query"] == text
    assert ids(payload) == [doc_id]


# --- a damaged index is rebuilt from the files ----------------------------------------------------


def baseline(root: Path) -> tuple[list[str], list[str]]:
    search = docir(root, "search", "sessions", "--json")
    query = docir(root, "query", "--json")
    assert search.code == 0 and query.code == 0
    return ids(parse_json(search.out)), ids(parse_json(query.out))


def remove_wal(index: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)


def test_deleted_index_is_rebuilt_by_the_next_search(sample_store: Path) -> None:
    expected = baseline(sample_store)
    index = sample_store / ".docir" / "index.db"
    assert index.is_file()
    index.unlink()
    remove_wal(index)

    result = docir(sample_store, "search", "sessions", "--json")

    assert result.code == 0, result.err
    assert result.err == ""  # a missing index is normal, not worth a warning
    assert ids(parse_json(result.out)) == expected[0]
    assert index.is_file()
    assert baseline(sample_store) == expected


def test_truncated_index_is_rebuilt(sample_store: Path) -> None:
    assert docir(sample_store, "reindex").code == 0
    expected = baseline(sample_store)
    index = sample_store / ".docir" / "index.db"
    remove_wal(index)
    size = index.stat().st_size
    with open(index, "r+b") as handle:
        handle.truncate(size // 2)

    result = docir(sample_store, "search", "sessions", "--json")

    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    if result.err:
        one_line(result.err, "warning")
    assert ids(parse_json(result.out)) == expected[0]
    assert baseline(sample_store) == expected
    # the rebuilt file is a sound database again
    with sqlite3.connect(index) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_text_file_in_place_of_the_index_is_rebuilt(sample_store: Path) -> None:
    expected = baseline(sample_store)
    index = sample_store / ".docir" / "index.db"
    remove_wal(index)
    index.write_text("hello\n", encoding="utf-8")

    result = docir(sample_store, "query", "--json")

    assert result.code == 0, result.err
    if result.err:
        one_line(result.err, "warning")
    assert ids(parse_json(result.out)) == expected[1]
    assert baseline(sample_store) == expected
    assert index.read_bytes()[:16] == b"SQLite format 3\x00"


def test_foreign_sqlite_database_in_place_of_the_index_is_rebuilt(sample_store: Path) -> None:
    expected = baseline(sample_store)
    index = sample_store / ".docir" / "index.db"
    index.unlink()
    remove_wal(index)
    with sqlite3.connect(index) as conn:
        conn.execute("CREATE TABLE foo (x INTEGER)")
        conn.execute("INSERT INTO foo VALUES (42)")
    conn.close()

    result = docir(sample_store, "search", "sessions", "--json")

    assert result.code == 0, result.err
    if result.err:
        one_line(result.err, "warning")
    assert ids(parse_json(result.out)) == expected[0]
    assert baseline(sample_store) == expected


def test_index_with_a_dropped_table_is_rebuilt(sample_store: Path) -> None:
    expected = baseline(sample_store)
    index = sample_store / ".docir" / "index.db"
    with sqlite3.connect(index) as conn:
        conn.execute("DROP TABLE documents_fts")
    conn.close()

    result = docir(sample_store, "search", "sessions", "--json")

    assert result.code == 0, result.err
    if result.err:
        one_line(result.err, "warning")
    assert ids(parse_json(result.out)) == expected[0]


# --- a schema with errors -------------------------------------------------------------------------------


def schema_error(root: Path) -> tuple[int, int, str]:
    result = docir(root, "query")
    assert result.code == 2
    assert result.out == ""
    line = one_line(result.err, "error")
    match = re.match(r"^docir: error: docs-schema\.yaml:(\d+):(\d+): \S", line)
    assert match, line
    return int(match.group(1)), int(match.group(2)), line


def test_schema_type_without_prefix_names_its_line(sample_store: Path) -> None:
    schema = sample_store / "docs-schema.yaml"
    lines = schema.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index("  architecture:\n")
    assert lines[at + 1] == "    prefix: arch\n"
    del lines[at + 1]
    schema.write_text("".join(lines), encoding="utf-8")

    line_no, col, line = schema_error(sample_store)

    assert line_no == at + 1, line
    assert col == 3, line
    assert "architecture" in line and "prefix" in line


def test_schema_duplicate_prefix_names_its_line(sample_store: Path) -> None:
    schema = sample_store / "docs-schema.yaml"
    text = schema.read_text(encoding="utf-8")
    schema.write_text(text.replace("    prefix: guide\n", "    prefix: adr\n"), encoding="utf-8")
    expected = text.splitlines().index("    prefix: guide") + 1

    line_no, _col, line = schema_error(sample_store)

    assert line_no == expected, line
    assert "adr" in line


@pytest.mark.parametrize(
    ("text", "bad_line"),
    [
        ("types:\n  decision:\n    prefix: adr\n    statuses: [a, b]\n   bad: indent\n", 5),
        ("types:\n  decision:\n\tprefix: adr\n", 3),
        ("version: 1\ntypes:\n  decision: [unclosed\nrelations: {}\n", 3),
    ],
    ids=["bad-indent", "tab", "unclosed-list"],
)
def test_schema_with_invalid_yaml_names_its_line(sample_store: Path, text: str, bad_line: int) -> None:
    (sample_store / "docs-schema.yaml").write_text(text, encoding="utf-8")

    line_no, _col, line = schema_error(sample_store)

    assert "YAML" in line
    assert line_no == bad_line, f"line {bad_line} is {text.splitlines()[bad_line - 1]!r}: {line}"


def test_schema_with_an_impossible_date_is_an_input_error(sample_store: Path) -> None:
    schema = sample_store / "docs-schema.yaml"
    text = schema.read_text(encoding="utf-8")
    assert "\nversion: 1\n" in text
    schema.write_text(text.replace("\nversion: 1\n", "\nversion: 2026-02-30\n"), encoding="utf-8")
    expected = text.splitlines().index("version: 1") + 1

    line_no, _col, line = schema_error(sample_store)

    assert line_no == expected, line


def test_schema_error_stops_every_command_but_touches_nothing(sample_store: Path) -> None:
    schema = sample_store / "docs-schema.yaml"
    schema.write_text("types: [oops\n", encoding="utf-8")
    before = snapshot(sample_store)
    for args in (("search", "sessions"), ("get", A1), ("update", A1, "--status", "proposed"), ("reindex",)):
        result = docir(sample_store, *args)
        assert result.code == 2, args
        assert one_line(result.err, "error").startswith("docir: error: docs-schema.yaml:")
    assert snapshot(sample_store) == before


# --- no store, bad options ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [("search", "x"), ("query",), ("get", A1), ("reindex",)])
def test_outside_any_store_says_to_init_or_pass_root(tmp_path: Path, args: tuple[str, ...]) -> None:
    empty = tmp_path / "nowhere"
    empty.mkdir()
    result = run_process(*args, cwd=empty)
    assert result.code == 2
    assert result.out == ""
    line = one_line(result.err, "error")
    assert "docir init" in line and "--root" in line
    assert os.listdir(empty) == []


def test_root_that_is_not_a_store_says_to_init(tmp_path: Path) -> None:
    result = run_process("query", "--root", str(tmp_path))
    assert result.code == 2
    line = one_line(result.err, "error")
    assert "docir init" in line


@pytest.mark.parametrize(
    "args",
    [("search", "x", "--nope"), ("query", "--limit", "0"), ("query", "--limit", "many"), ("frobnicate",),
     ("get",), ("update", A1, "--verified", "yesterday"), ("query", "--type", "nosuchtype")],
)
def test_bad_options_exit_2_with_one_line(sample_store: Path, args: tuple[str, ...]) -> None:
    result = docir(sample_store, *args)
    assert result.code == 2
    assert result.out == ""
    one_line(result.err, "error")


# --- numbers out of range ------------------------------------------------------------------------

HUGE = "100000000000000000000"  # past SQLite's 64-bit integers: once an internal error (exit 3)
LIMITED = [("query",), ("search", "sessions"), ("context", "sessions")]


@pytest.mark.parametrize("value", [HUGE, "10001", "0", "-1"])
@pytest.mark.parametrize("command", LIMITED, ids=[c[0] for c in LIMITED])
def test_a_limit_out_of_range_is_a_usage_error(sample_store: Path, command: tuple[str, ...], value: str) -> None:
    result = docir(sample_store, *command, "--limit", value)
    assert result.code == 2, result.err
    assert result.out == ""
    line = one_line(result.err, "error")
    assert "'--limit'" in line and "1<=x<=10000" in line and f"docir {command[0]} --help" in line


@pytest.mark.parametrize("command", LIMITED, ids=[c[0] for c in LIMITED])
def test_the_largest_limit_is_accepted(sample_store: Path, command: tuple[str, ...]) -> None:
    result = docir(sample_store, *command, "--limit", "10000")
    assert result.code == 0, result.err
    assert "error" not in result.err


@pytest.mark.parametrize("value", [HUGE, "1e400", "inf", "nan", "86401", "0", "-1"])
def test_a_worker_idle_time_out_of_range_is_a_usage_error(sample_store: Path, value: str) -> None:
    result = run_process("worker", "serve", "--root", str(sample_store), "--idle", value)
    assert result.code == 2, result.err
    assert result.out == ""
    line = one_line(result.err, "error")
    assert "'--idle'" in line and "docir worker serve --help" in line
    assert not (sample_store / ".docir" / "run" / "worker.json").exists()
