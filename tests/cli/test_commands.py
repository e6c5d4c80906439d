"""Every command's help, JSON shape and behaviour, against real files and a real index."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import (
    A0,
    A1,
    ACTIVE_IDS,
    ALL_VISIBLE_IDS,
    B1,
    B2,
    C1,
    C2,
    D1,
    E1,
    GET_KEYS,
    LISTED_KEYS,
    PATHS,
    SEARCH_KEYS,
    frontmatter_of,
    ids,
    one_line,
    parse_json,
)
from tests.conftest import add_doc, run_process

COMMANDS = ["init", "add", "update", "archive", "get", "query", "search", "reindex"]

OPTIONS = {
    "init": ["--root", "--json"],
    "add": ["--title", "--description", "--status", "--tags", "--related", "--owner", "--body", "--path",
            "--root", "--json"],
    "update": ["--title", "--description", "--status", "--tags", "--add-related", "--remove-related", "--owner",
               "--verified", "--append-section", "--replace-section", "--replace-body", "--body", "--root",
               "--json"],
    "archive": ["--root", "--json"],
    "get": ["--section", "--root", "--json"],
    "query": ["--type", "--status", "--tag", "--owner", "--stale", "--related-to", "--limit", "--include-inactive",
              "--include-resolved", "--root", "--json"],
    "search": ["--limit", "--include-inactive", "--include-resolved", "--root", "--json"],
    "reindex": ["--full", "--root", "--json"],
}

# Keys an envelope may carry about the semantic layer: its state (adr-2906c6740caa),
# a write's vectors (adr-1ed1c975c861).
OPTIONAL_ENVELOPE = {"semantic", "embedding"}


def core(payload: dict[str, object]) -> dict[str, object]:
    """The payload without the optional semantic-layer keys."""
    return {k: v for k, v in payload.items() if k not in OPTIONAL_ENVELOPE}


def today() -> dt.date:
    return dt.date.today()


# --- help ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_help_exits_0_and_lists_the_options(cli, command: str) -> None:  # type: ignore[no-untyped-def]
    result = cli(command, "--help")
    assert result.code == 0
    assert result.err == ""
    assert result.out.startswith(f"Usage: docir {command} ")
    for option in OPTIONS[command]:
        assert option in result.out, f"{command} --help does not show {option}"


def test_top_level_help_lists_every_command(cli) -> None:  # type: ignore[no-untyped-def]
    for args in (("--help",), ()):
        result = cli(*args)
        assert result.code == 0
        for command in COMMANDS:
            assert command in result.out


# --- JSON shapes --------------------------------------------------------------------------------------


def envelope(payload: dict[str, object], keys: set[str]) -> None:
    assert keys <= set(payload) <= keys | OPTIONAL_ENVELOPE, sorted(payload)


def test_query_json_shape(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("query", "--root", str(sample_store), "--json")
    assert result.code == 0, result.err
    payload = result.json()
    envelope(payload, {"results", "count", "more", "stored"})
    assert payload["count"] == len(payload["results"]) == len(ACTIVE_IDS) and payload["more"] is False
    # The store's size counts closed documents too (not archived ones): what --include-inactive lists.
    every = cli("query", "--root", str(sample_store), "--json", "--include-inactive").json()
    assert payload["stored"] == every["count"] > len(ACTIVE_IDS)
    first = cli("query", "--root", str(sample_store), "--json", "--limit", "1").json()
    assert first["count"] == 1 and first["more"] is True and first["stored"] == payload["stored"]
    assert cli("query", "--root", str(sample_store), "--limit", "1").out.splitlines()[0] == (
        f"1 shown of {payload['stored']} documents; more match: raise --limit")
    for item in payload["results"]:
        assert set(item) == LISTED_KEYS
    a1 = next(r for r in payload["results"] if r["id"] == A1)
    assert a1 == {
        "id": A1,
        "type": "decision",
        "title": "Keep sessions in the database",
        "description": "Session records live in the primary database so that a restart of the web tier "
                       "logs nobody out.",
        "status": "accepted",
        "tags": ["sessions", "storage"],
        "related": [{"kind": "supersedes", "id": A0}, {"kind": "relates-to", "id": B1}],
        "owner": "@platform",
        "verified": "2026-11-01",
        "stale": (today() - dt.date(2026, 11, 1)).days > 365,
        "path": PATHS[A1],
        "size": {"bytes": (sample_store / PATHS[A1]).stat().st_size,
                 "tokens": ((sample_store / PATHS[A1]).stat().st_size + 3) // 4},
        "incoming": [{"kind": "relates-to", "id": C1}],
    }
    c2 = next(r for r in payload["results"] if r["id"] == C2)
    assert c2["owner"] is None and c2["verified"] is None and c2["stale"] is False


def test_search_json_shape(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("search", "sessions", "--root", str(sample_store), "--json")
    assert result.code == 0, result.err
    payload = result.json()
    envelope(payload, {"query", "results", "count", "stored"})
    assert payload["query"] == "sessions" and payload["stored"] > payload["count"]
    assert payload["count"] == len(payload["results"]) == 2
    scores = []
    for item in payload["results"]:
        assert set(item) - {"matched_section"} == SEARCH_KEYS
        assert "body" not in item
        assert item["similarity"] is None  # search uses no model
        assert isinstance(item["score"], float) and item["score"] > 0
        assert isinstance(item["fts_score"], float)
        scores.append(item["score"])
    assert scores == sorted(scores, reverse=True)
    # Rank-derived by the same formula as context's fusion: first place scores what first place scores there.
    from docir.services.retrieval import fusion

    assert scores[0] == round(fusion.rank_score(1), 6)


def test_get_json_shape(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("get", A1, "--root", str(sample_store), "--json")
    assert result.code == 0, result.err
    assert result.err == ""
    payload = result.json()
    envelope(payload, {"documents", "missing", "missing_sections"})
    assert payload["missing"] == [] and payload["missing_sections"] == []
    (doc,) = payload["documents"]
    assert set(doc) == GET_KEYS
    assert doc["archived"] is False
    assert doc["incoming"] == [{"kind": "relates-to", "id": C1}]
    text = (sample_store / PATHS[A1]).read_text(encoding="utf-8")
    assert doc["body"] == text[text.index("\n---\n", 4) + 5 :]
    assert doc["frontmatter"] == {
        "id": A1, "type": "decision", "title": "Keep sessions in the database",
        "description": "Session records live in the primary database so that a restart of the web tier "
                       "logs nobody out.",
        "status": "accepted", "tags": ["sessions", "storage"],
        "related": [{"supersedes": A0}, {"relates-to": B1}],
        "owner": "@platform", "verified": "2026-11-01", "reviewers": ["ana", "bo"],
    }


def test_get_section_json_shape(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("get", B1, "--section", "Expiry", "--root", str(sample_store), "--json")
    assert result.code == 0, result.err
    (doc,) = result.json()["documents"]
    assert set(doc) == GET_KEYS | {"section"}
    assert doc["section"] == "Expiry"
    assert doc["body"] == "## Expiry\n\nA nightly job deletes expired rows.\n"


def test_get_section_is_only_that_section(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    middle = cli("get", A1, "--section", "Decision", "--root", root, "--json").json()["documents"][0]
    assert middle["body"].rstrip("\n") == ("## Decision\n\n"
                                          "Store session rows in the `sessions` table with an expiry column.")
    assert "Context" not in middle["body"] and "Consequences" not in middle["body"]
    # headings match case-insensitively, with or without the '##'
    assert cli("get", B1, "--section", "## expiry", "--root", root,
               "--json").json()["documents"][0]["section"] == "Expiry"
    missing = cli("get", B1, "--section", "Nope", "--root", root, "--json")
    assert missing.code == 1
    assert missing.json()["documents"] == []
    assert missing.json()["missing_sections"] == [{"id": B1, "section": "Nope"}]
    line = one_line(missing.err)
    assert "Nope" in line and "Overview" in line and "Expiry" in line
    # Which id lacks it, in the JSON too: the documents that have it are returned all the same.
    some = cli("get", A1, B1, "--section", "Expiry", "--root", root, "--json")
    assert some.code == 1
    assert [doc["id"] for doc in some.json()["documents"]] == [B1]
    assert some.json()["missing_sections"] == [{"id": A1, "section": "Expiry"}]
    assert some.json()["missing"] == []


def test_write_commands_json_shapes(store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(store)
    added = cli("add", "decision", "--title", "Use SQLite", "--description", "One file, no server, good enough here.",
                "--owner", "@team", "--root", root, "--json")
    assert added.code == 0, added.err
    assert set(core(added.json())) == {"id", "path", "superseded", "files"}  # nothing awaits: no empty list
    assert added.json()["superseded"] == [] and added.json()["files"] == [added.json()["path"]]
    doc_id, path = added.json()["id"], added.json()["path"]
    assert path == "docs/decisions/use-sqlite.md"
    assert doc_id.startswith("adr-") and len(doc_id) == len("adr-") + 12

    updated = cli("update", doc_id, "--status", "accepted", "--root", root, "--json")
    assert updated.code == 0, updated.err
    assert core(updated.json()) == {"id": doc_id, "path": path, "changed": ["status"], "superseded": [],
                                    "files": [path]}
    unchanged = cli("update", doc_id, "--status", "accepted", "--root", root, "--json").json()
    assert (unchanged["changed"], unchanged["files"]) == ([], [])  # nothing written, nothing to stage

    archived = cli("archive", doc_id, "--root", root, "--json")
    assert archived.code == 0, archived.err
    assert core(archived.json()) == {"id": doc_id, "path": "docs/archive/decisions/use-sqlite.md", "archived": True,
                               "moved": True}
    again = cli("archive", doc_id, "--root", root, "--json")
    assert again.code == 0, again.err
    assert core(again.json()) == {"id": doc_id, "path": "docs/archive/decisions/use-sqlite.md", "archived": True,
                            "moved": False}

    reindexed = cli("reindex", "--root", root, "--json")
    assert reindexed.code == 0, reindexed.err
    report = reindexed.json()
    assert {"added", "updated", "moved", "removed", "unchanged", "skipped", "embeddings_recomputed"} <= set(report)
    counts = (report["added"], report["updated"], report["moved"], report["removed"], report["unchanged"])
    assert counts == (0, 0, 0, 0, 1)

    init = cli("init", "--root", root, "--json")
    assert init.code == 0
    assert core(init.json()) == {"root": str(store.resolve()), "created": [], "exclude": [], "excluded": [],
                                 "plain_markdown": [], "records": []}


def test_add_prints_id_and_path_and_indexes_at_once(store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("add", "issue", "--title", "Flaky export", "--description", "The export fails one night in ten.",
                 "--tags", "billing, export", "--body", "## Symptom\n\nIt fails.", "--root", str(store), "--json")
    assert result.code == 0, result.err
    doc_id = result.json()["id"]
    path = store / result.json()["path"]
    text = path.read_text(encoding="utf-8")
    meta = frontmatter_of(path)
    assert meta["id"] == doc_id and meta["type"] == "issue" and meta["status"] == "open"
    assert meta["tags"] == ["billing", "export"]
    assert meta["verified"] == today()
    assert text.endswith("---\n\n## Symptom\n\nIt fails.\n")
    found = cli("search", "flaky", "--root", str(store), "--json").json()
    assert ids(found) == [doc_id]


def test_add_names_a_long_title_s_file_by_whole_words(store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # Cut at 60 characters, this title ends mid-word ("...-to-the-ranki"); the name stops before that word.
    title = "Leave section bodies that repeat across a store to the ranking"
    made = cli("add", "issue", "--title", title, "--description", "A title longer than a file name may be.",
               "--root", str(store), "--json")
    assert made.code == 0, made.err
    assert made.json()["path"] == "docs/issues/leave-section-bodies-that-repeat-across-a-store-to-the.md"
    word = cli("add", "issue", "--title", "x" * 70, "--description", "One word longer than a file name may be.",
               "--root", str(store), "--json")
    assert word.json()["path"] == f"docs/issues/{'x' * 60}.md"  # no boundary to cut at: the word is cut


# --- visibility ---------------------------------------------------------------------------------------------


def test_query_hides_inactive_and_archived_by_default(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    assert ids(cli("query", "--root", root, "--json").json()) == ACTIVE_IDS
    assert ids(cli("query", "--include-inactive", "--root", root, "--json").json()) == ALL_VISIBLE_IDS
    assert ids(cli("query", "--include-resolved", "--root", root, "--json").json()) == ALL_VISIBLE_IDS


def test_search_hides_inactive_and_archived_by_default(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    assert set(ids(cli("search", "sessions", "--root", root, "--json").json())) == {A1, B1}
    assert set(ids(cli("search", "sessions", "--include-inactive", "--root", root,
                       "--json").json())) == {A0, A1, B1, C1}
    assert set(ids(cli("search", "sessions", "--include-resolved", "--root", root,
                       "--json").json())) == {A0, A1, B1, C1}
    # the superseded and the resolved document are found by their own words only when widened
    assert ids(cli("search", "dictionary", "--root", root, "--json").json()) == []
    assert A0 in ids(cli("search", "dictionary", "--include-inactive", "--root", root, "--json").json())
    assert ids(cli("search", "page", "--root", root, "--json").json()) == []
    assert C1 in ids(cli("search", "page", "--include-resolved", "--root", root, "--json").json())


def test_archived_is_never_listed_but_get_returns_it(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    for args in (("query",), ("query", "--include-inactive"), ("query", "--type", "decision", "--include-inactive"),
                 ("query", "--tag", "sessions", "--include-inactive"), ("search", "cookies"),
                 ("search", "signed cookies", "--include-inactive"), ("search", "sessions", "--include-resolved")):
        result = cli(*args, "--root", root, "--json")
        assert result.code == 0, result.err
        assert E1 not in ids(result.json()), args
    got = cli("get", E1, "--root", root, "--json")
    assert got.code == 0, got.err
    (doc,) = got.json()["documents"]
    assert doc["archived"] is True
    assert doc["path"] == PATHS[E1]
    assert doc["title"] == "Use signed cookies only"


# --- stale -------------------------------------------------------------------------------------------------


def test_stale_is_true_for_the_old_document_only(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    # Make every other document fresh today, so the test does not age with the fixture's dates.
    for doc_id in (B1, A1, A0, D1, C1, C2):
        assert cli("update", doc_id, "--verified", "--root", root).code == 0
    listing = cli("query", "--include-inactive", "--root", root, "--json").json()["results"]
    assert {r["id"]: r["stale"] for r in listing} == {i: i == B2 for i in ALL_VISIBLE_IDS}
    b2 = next(r for r in listing if r["id"] == B2)
    assert b2["verified"] == "2020-01-01"
    assert cli("get", B2, "--root", root, "--json").json()["documents"][0]["stale"] is True
    found = cli("search", "invoices", "--root", root, "--json").json()["results"]
    assert next(r for r in found if r["id"] == B2)["stale"] is True


def test_stale_follows_max_age_days_and_required_verified(store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(store)
    edge = today() - dt.timedelta(days=180)  # architecture: max_age_days 180

    def write(name: str, doc_id: str, doc_type: str, verified: dt.date | None) -> None:
        line = f"verified: {verified.isoformat()}\n" if verified else ""
        (store / "docs" / name).write_text(
            f"---\nid: {doc_id}\ntype: {doc_type}\ntitle: {name}\ndescription: A description long enough to pass.\n"
            f"status: current\nowner: '@o'\n{line}---\n", encoding="utf-8")

    write("a.md", "arch-00000000aa01", "architecture", edge)
    write("b.md", "arch-00000000aa02", "architecture", edge - dt.timedelta(days=1))
    write("c.md", "arch-00000000aa03", "architecture", None)  # required and missing: stale
    write("d.md", "arch-00000000aa04", "architecture", today())
    (store / "docs" / "e.md").write_text(
        "---\nid: issue-00000000aa05\ntype: issue\ntitle: e\ndescription: An issue has no max age at all.\n"
        "status: open\nverified: 1990-01-01\n---\n", encoding="utf-8")
    listing = cli("query", "--root", root, "--json").json()["results"]
    assert {r["id"]: r["stale"] for r in listing} == {
        "arch-00000000aa01": False, "arch-00000000aa02": True, "arch-00000000aa03": True,
        "arch-00000000aa04": False, "issue-00000000aa05": False,
    }
    fresh = add_doc(cli, store, "decision", "Fresh", "Added today, so it cannot be stale.")
    assert cli("get", fresh, "--root", root, "--json").json()["documents"][0]["stale"] is False


# --- query filters ----------------------------------------------------------------------------------------------


def test_query_filters(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    for doc_id in (B1, A1, D1):  # fresh today, whatever the date
        assert cli("update", doc_id, "--verified", "--root", root).code == 0

    def q(*args: str) -> list[str]:
        result = cli("query", *args, "--root", root, "--json")
        assert result.code == 0, result.err
        return ids(result.json())

    assert q("--type", "decision") == [A1]
    assert q("--type", "decision", "--include-inactive") == [A0, A1]
    assert q("--type", "architecture", "--type", "guide") == [B2, B1, D1]
    assert q("--type", "issue", "--include-inactive") == [C1, C2]
    assert q("--status", "open") == [C2]
    assert q("--status", "current") == [B2, B1, D1]
    assert q("--status", "superseded", "--include-inactive") == [A0]
    assert q("--status", "resolved", "--include-resolved") == [C1]
    assert q("--tag", "sessions") == [B1, A1]
    assert q("--tag", "sessions", "--include-inactive") == [B1, A0, A1, C1]
    assert q("--tag", "sessions", "--tag", "storage") == [A1]
    assert q("--tag", "billing") == [B2, C2]
    assert q("--tag", "nosuchtag") == []
    assert q("--owner", "@platform") == [B1, A1]
    assert q("--owner", "@billing") == [B2]
    assert q("--stale") == [B2]
    assert q("--fresh") == [B1, A1, D1, C2]
    assert q("--related-to", A1) == [B1]
    assert q("--related-to", A1, "--include-inactive") == [B1, A0, C1]
    assert q("--related-to", B2) == [C2]
    assert q("--related-to", "adr-999999999999") == []
    assert q("--limit", "2") == ACTIVE_IDS[:2]
    assert q("--limit", "1", "--include-inactive") == ALL_VISIBLE_IDS[:1]
    assert q("--type", "decision", "--tag", "sessions", "--owner", "@platform", "--include-inactive") == [A0, A1]


def test_query_rejects_unknown_filters(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    for args, word in ((("--type", "memo"), "decision"), (("--status", "maybe"), "accepted"),
                       (("--related-to", "../x"), "not a document id")):
        result = cli("query", *args, "--root", root)
        assert result.code == 2
        assert word in one_line(result.err, "error")


# --- get ----------------------------------------------------------------------------------------------------


def test_get_many_keeps_the_order_asked(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("get", C2, A0, E1, B1, "--root", str(sample_store), "--json")
    assert result.code == 0, result.err
    assert result.err == ""
    assert ids(result.json(), "documents") == [C2, A0, E1, B1]


def test_get_with_one_missing_id_prints_the_others_and_exits_1(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    missing = "adr-999999999999"
    result = cli("get", A1, missing, B1, "--root", str(sample_store), "--json")
    assert result.code == 1
    payload = result.json()
    assert ids(payload, "documents") == [A1, B1]
    assert payload["missing"] == [missing]
    line = one_line(result.err, "error")
    assert missing in line


def test_get_only_missing_ids_exits_1(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("get", "adr-999999999999", "--root", str(sample_store), "--json")
    assert result.code == 1
    assert result.json() == {"documents": [], "missing": ["adr-999999999999"], "missing_sections": []}
    one_line(result.err, "error")


# --- archive -------------------------------------------------------------------------------------------------------


def test_archive_moves_the_file_byte_identical_and_out_of_search(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    source = sample_store / PATHS[A1]
    before = source.read_bytes()
    assert A1 in ids(cli("search", "database", "--root", root, "--json").json())
    assert A1 in ids(cli("query", "--related-to", B1, "--root", root, "--json").json())

    result = cli("archive", A1, "--root", root)

    assert result.code == 0, result.err
    target = sample_store / "docs" / "archive" / "decisions" / "keep-sessions-in-the-database.md"
    assert not source.exists()
    assert target.read_bytes() == before
    for args in (("search", "database"), ("search", "sessions", "--include-inactive"), ("query",),
                 ("query", "--include-inactive"), ("query", "--tag", "storage", "--include-inactive")):
        assert A1 not in ids(cli(*args, "--root", root, "--json").json()), args
    # its edges left the graph: B1 no longer has A1 pointing at it, A0 no longer has a successor
    assert ids(cli("query", "--related-to", B1, "--root", root, "--json").json()) == []
    assert A1 not in ids(cli("query", "--related-to", A0, "--include-inactive", "--root", root, "--json").json())
    doc = cli("get", A1, "--root", root, "--json").json()["documents"][0]
    assert doc["archived"] is True
    assert doc["path"] == "docs/archive/decisions/keep-sessions-in-the-database.md"
    # nothing for reindex to fix afterwards
    report = cli("reindex", "--root", root).json()
    assert (report["added"], report["updated"], report["moved"], report["removed"]) == (0, 0, 0, 0)


def test_archive_unknown_id_exits_1(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("archive", "adr-999999999999", "--root", str(sample_store))
    assert result.code == 1
    assert "adr-999999999999" in one_line(result.err, "error")


# --- reindex and hand edits --------------------------------------------------------------------------------------


def test_reindex_reports_added_updated_moved_removed(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    first = cli("reindex", "--root", root).json()
    assert (first["added"], first["updated"], first["moved"], first["removed"], first["unchanged"]) == (8, 0, 0, 0, 0)
    assert first["skipped"] == []

    (sample_store / "docs" / "guides" / "new-guide.md").write_text(
        "---\nid: guide-0000000000d2\ntype: guide\ntitle: A new guide\n"
        "description: Written by hand, found by reindex as added.\nstatus: current\nowner: '@docs'\n---\n\n"
        "## Steps\n\nQuokka.\n", encoding="utf-8")
    with open(sample_store / PATHS[C2], "a", encoding="utf-8") as handle:
        handle.write("\nIt now takes zanzibar minutes.\n")
    os.rename(sample_store / PATHS[B2], sample_store / "docs" / "architecture" / "billing.md")
    (sample_store / PATHS[D1]).unlink()

    report = cli("reindex", "--root", root).json()
    counts = (report["added"], report["updated"], report["moved"], report["removed"], report["unchanged"])
    assert counts == (1, 1, 1, 1, 5)
    assert report["skipped"] == []

    again = cli("reindex", "--root", root).json()
    assert (again["added"], again["updated"], again["moved"], again["removed"], again["unchanged"]) == (0, 0, 0, 0, 8)

    assert ids(cli("search", "quokka", "--root", root, "--json").json()) == ["guide-0000000000d2"]
    assert ids(cli("search", "zanzibar", "--root", root, "--json").json()) == [C2]
    assert cli("get", B2, "--root", root, "--json").json()["documents"][0]["path"] == "docs/architecture/billing.md"
    gone = cli("get", D1, "--root", root)
    assert gone.code == 1


def test_reindex_full_rebuilds_the_same_answers(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    before = (cli("query", "--include-inactive", "--root", root, "--json").json(),
              cli("search", "sessions", "--root", root, "--json").json())
    report = cli("reindex", "--full", "--root", root).json()
    assert report["added"] == 8 and report["removed"] == 0
    after = (cli("query", "--include-inactive", "--root", root, "--json").json(),
             cli("search", "sessions", "--root", root, "--json").json())
    assert after == before


def test_hand_edit_is_seen_by_the_next_search_without_reindex(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    assert ids(cli("search", "zanzibr", "--root", root, "--json").json()) == []
    path = sample_store / PATHS[B1]
    text = path.read_text(encoding="utf-8")
    # same size on purpose: only the mtime tells the stat walk something changed
    edited = text.replace("A nightly job", "A zanzibr job")
    assert len(edited) == len(text)
    path.write_text(edited, encoding="utf-8")

    result = cli("search", "zanzibr", "--root", root, "--json")

    assert result.code == 0, result.err
    assert ids(result.json()) == [B1]
    assert "zanzibr" in cli("get", B1, "--root", root, "--json").json()["documents"][0]["body"]
    # and a frontmatter edit by hand reaches query
    path.write_text(edited.replace("status: current", "status: deprecated"), encoding="utf-8")
    assert B1 not in ids(cli("query", "--root", root, "--json").json())


# --- init -----------------------------------------------------------------------------------------------------------


def test_init_creates_a_store_and_is_idempotent(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "fresh"
    first = cli("init", "--root", str(root), "--json")
    assert first.code == 0, first.err
    assert set(first.json()["created"]) >= {"docs/", "docs-schema.yaml", ".docir/"}
    assert (root / "docs").is_dir() and (root / "docs-schema.yaml").is_file()
    assert "index.db" in (root / ".docir" / ".gitignore").read_text(encoding="utf-8")
    files = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}

    second = cli("init", "--root", str(root), "--json")

    assert second.code == 0, second.err
    assert second.json()["created"] == []
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == files
    # the default schema has these four types
    for doc_type in ("decision", "architecture", "issue", "guide"):
        assert cli("query", "--type", doc_type, "--root", str(root)).code == 0


def test_init_keeps_an_edited_schema_and_existing_documents(store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    doc_id = add_doc(cli, store, "decision", "Keep me", "A document that init must not touch at all.")
    schema = store / "docs-schema.yaml"
    schema.write_text(schema.read_text(encoding="utf-8") + "# my edit\n", encoding="utf-8")
    files = {p: p.read_bytes() for p in store.rglob("*") if p.is_file() and ".docir" not in p.parts}
    assert cli("init", "--root", str(store)).code == 0
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file() and ".docir" not in p.parts} == files
    assert ids(cli("query", "--root", str(store), "--json").json()) == [doc_id]


# --- from a sub-folder, without --root --------------------------------------------------------------------------------


def test_commands_work_from_a_sub_folder_without_root(sample_store: Path) -> None:
    sub = sample_store / "docs" / "decisions"

    def here(*args: str):  # type: ignore[no-untyped-def]
        result = run_process(*args, cwd=sub)
        assert result.code == 0, (args, result.err)
        assert "Traceback" not in result.err
        return parse_json(result.out)

    assert ids(here("query", "--json")) == ACTIVE_IDS
    assert set(ids(here("search", "sessions", "--json"))) == {A1, B1}
    assert ids(here("get", A1, B1, "--json"), "documents") == [A1, B1]
    assert here("reindex")["unchanged"] == 8
    made = here("add", "decision", "--title", "From a sub folder", "--description",
                "Added from docs/decisions without --root.", "--owner", "@team")
    assert made["path"] == "docs/decisions/from-a-sub-folder.md"
    assert (sample_store / made["path"]).is_file()
    assert here("update", made["id"], "--status", "accepted")["changed"] == ["status"]
    assert here("archive", made["id"])["path"] == "docs/archive/decisions/from-a-sub-folder.md"
    assert (sample_store / "docs" / "archive" / "decisions" / "from-a-sub-folder.md").is_file()
    assert here("get", made["id"], "--json")["documents"][0]["archived"] is True
    # deeper, and from the state folder
    deeper = sample_store / "docs" / "archive" / "decisions"
    assert ids(parse_json(run_process("query", "--json", cwd=deeper).out)) == ACTIVE_IDS
    assert ids(parse_json(run_process("query", "--json", cwd=sample_store / ".docir").out)) == ACTIVE_IDS


def test_init_from_a_sub_folder_of_a_store_does_not_nest_a_store(sample_store: Path) -> None:
    """Every command finds the store root from any sub-folder, like git; init too (arch-42a0d0875e74)."""
    sub = sample_store / "docs" / "decisions"
    before = sorted(p.relative_to(sample_store).as_posix() for p in sample_store.rglob("*"))

    result = run_process("init", cwd=sub)

    assert result.code == 0, result.err
    assert not (sub / "docs-schema.yaml").exists(), "init wrote a second store inside docs/decisions/"
    assert not (sub / "docs").exists()
    after = sorted(p.relative_to(sample_store).as_posix() for p in sample_store.rglob("*"))
    assert [p for p in after if p not in before and not p.startswith(".docir") and p != "AGENTS.md"] == []
    # and the commands run there still see the outer store
    assert ids(parse_json(run_process("query", "--json", cwd=sub).out)) == ACTIVE_IDS


def test_root_option_wins_over_the_current_folder(sample_store: Path, tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "other"
    shutil.copytree(sample_store, other)
    (other / PATHS[C2]).unlink()
    monkeypatch.chdir(sample_store / "docs")
    assert C2 in ids(cli("query", "--json").json())
    assert C2 not in ids(cli("query", "--root", str(other), "--json").json())
