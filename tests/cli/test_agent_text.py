"""The reads' compact text off a terminal (adr-aa663d326ae5): every decisive fact, nothing null, the same
documents in the same order as the JSON, a long body as its outline, a linked document with its description,
and the catalogue."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import A0, A1, ACTIVE_IDS

ENTRY_RE = re.compile(r"^(?:\d+\.|   ↳) (\S+) \(")


@pytest.fixture(autouse=True)
def _lexical(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(tmp_path / "no-model"))  # ranking by words: the form is the point


def both(cli, *args: str) -> tuple[str, Any]:  # type: ignore[no-untyped-def]
    text, data = cli(*args), cli(*args, "--json")
    assert text.code == data.code == 0, text.err + data.err
    return text.out, data.json()


def test_context_says_every_decisive_fact_once_and_nothing_null(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    text, data = both(cli, "context", "users logged out after a deploy", "--root", str(sample_store))
    assert [m.group(1) for line in text.splitlines() if (m := ENTRY_RE.match(line))] == \
        [row["id"] for row in data["results"]]  # the same documents, in the same order
    head = text.splitlines()[0]
    for row in data["results"]:
        assert row["title"] in text and row["description"][:40] in text and row["status"] in text
        if "type" in row:  # a linked entry names none: the result it hangs off did
            assert f"{row['id'].split('-')[0]} = {row['type']}" in head  # the type, said once for its prefix
        assert f"{row['size']['tokens']} tok" in text
        if row.get("matched_section") and row["matched_section"] != row["title"]:
            assert f"§ {row['matched_section']}" in text
    assert not re.search(r"\b(None|null|\[\]|\{\})", text)
    assert len(text.encode()) * 3 < len(cli("context", "users logged out after a deploy", "--root",
                                            str(sample_store), "--json").out.encode())


def test_context_s_first_line_says_in_words_what_it_shows_and_what_the_budget_held_back(
        cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    every = cli("query", "--include-inactive", "--root", str(sample_store), "--json").json()["count"]
    text, data = both(cli, "context", "sessions kept in a dictionary in process memory", "--include-inactive",
                      "--root", str(sample_store), "--budget", "120")
    ranked = [row for row in data["results"] if not row.get("via")]
    linked = len(data["results"]) - len(ranked)
    assert data["omitted"] > 0 and data["stored"] == every
    head = text.splitlines()[0]
    shown = f"{len(ranked)} result{'s' if len(ranked) != 1 else ''}" + (f" + {linked} linked" if linked else "")
    more = "entry" if data["omitted"] == 1 else "entries"
    assert head.startswith(f"{shown}, of {every} documents; {data['omitted']} more {more} held back by the "
                           "120-token budget (--budget 0 shows them)"), head
    whole = cli("context", "sessions kept in a dictionary in process memory", "--include-inactive",
                "--root", str(sample_store), "--budget", "0")
    assert "held back" not in whole.out.splitlines()[0] and "more result" not in whole.err


def test_a_linked_document_says_why_it_is_there_and_what_it_is(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    text, data = both(cli, "context", "sessions kept in a dictionary in process memory", "--include-inactive",
                      "--limit", "1", "--root", str(sample_store))
    linked = [row for row in data["results"] if row.get("via")]
    assert [row["id"] for row in data["results"]][:1] == [A0] and [row["id"] for row in linked] == [A1]
    assert linked[0]["description"]  # judged like any result
    line = next(line for line in text.splitlines() if line.startswith(f"   ↳ {A1} "))
    assert " — replaces #1: " in line  # the result it hangs off, by its number, then what it is
    assert linked[0]["description"][:30] in line


def test_query_is_the_catalogue_one_line_a_document(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    text, data = both(cli, "query", "--root", str(sample_store))
    lines = text.splitlines()[1:]
    assert [line.split()[0] for line in lines] == ACTIVE_IDS == [row["id"] for row in data["results"]]
    for line, row in zip(lines, data["results"], strict=True):
        assert line.startswith(f"{row['id']} {row['status']}") and row["title"] in line
        assert row["description"][:40] in line  # a one-line description: its start, cut at a word
    inactive = cli("query", "--include-inactive", "--root", str(sample_store)).out
    assert f"{A0} superseded (stale): " in inactive and f"[superseded-by {A1}]" in inactive


def long_document(root: Path) -> str:
    sections = "".join(f"## Part {n}\n\n" + ("Words that fill this part of the proposal. " * 60) + "\n\n"
                       for n in range(1, 9))
    (root / "docs" / "decisions" / "a-long-proposal.md").write_text(
        "---\nid: adr-00000000beef\ntype: decision\ntitle: A long proposal\ndescription: A proposal long enough "
        "that reading it whole costs more than most tasks can spend.\nstatus: proposed\nowner: '@x'\n---\n\n"
        + sections, encoding="utf-8")
    return "adr-00000000beef"


def test_get_of_a_long_document_gives_its_outline_and_the_sections_asked_for(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    doc_id = long_document(sample_store)
    outline = cli("get", doc_id, "--root", str(sample_store)).out
    assert "Words that fill" not in outline and "--- outline:" in outline
    assert [line.split(" (~")[0] for line in outline.splitlines() if line.startswith("Part ")] == \
        [f"Part {n}" for n in range(1, 9)]
    assert len(outline.encode()) < 2000
    two = cli("get", doc_id, "--section", "Part 2", "--section", "Part 7", "--root", str(sample_store)).out
    assert two.count(f"=== {doc_id} ") == 1 and "--- § Part 2" in two and "--- § Part 7" in two
    assert "## Part 3" not in two
    whole = cli("get", doc_id, "--full", "--root", str(sample_store)).out
    assert all(f"## Part {n}" in whole for n in range(1, 9))


def test_get_prints_each_field_once_with_links_both_ways(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    text = cli("get", A0, "--root", str(sample_store)).out
    assert text.count("Keep sessions in process memory") == 1
    assert f"links: superseded-by {A1}" in text
    assert text.count("\nstatus:") == 0 and "(decision, superseded" in text  # the status is said in the header


def test_the_budget_holds_for_the_form_printed(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    task = ("sessions kept in a dictionary in process memory", "--include-inactive", "--root", str(sample_store))
    whole = cli("context", *task, "--budget", "0", "--json").json()
    every = sum(len(json.dumps(row, ensure_ascii=False).encode()) for row in whole["results"])
    limit = every // 4 // 2  # half of what the whole JSON costs: something must be held back
    text, data = both(cli, "context", *task, "--budget", str(limit))
    printed = sum(len(json.dumps(row, ensure_ascii=False).encode()) for row in data["results"])
    assert 0 < printed <= limit * 4 and data["budget"]["used"] <= limit and data["omitted"] > 0
    assert len("\n".join(text.splitlines()[1:]).encode()) <= limit * 4  # the entries, under their header
    # The JSON's entries are the text's first ones: the same rules, on a larger measure.
    shown = [m.group(1) for line in text.splitlines() if (m := ENTRY_RE.match(line))]
    assert [row["id"] for row in data["results"]] == shown[:len(data["results"])]
