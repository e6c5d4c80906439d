"""get and query show the links that point at a document, named from its side by the schema's inverse
names (superseded-by, dependency-of, ...): in their JSON, on a terminal, and from a peer store."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.helpers import A0, A1, B1, C1, ids
from tests.conftest import add_doc

DESCRIPTION = "Sessions are kept in a key-value store shared by every web node."


def incoming(cli, root: Path, doc_id: str) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    result = cli("get", doc_id, "--root", str(root), "--json")
    assert result.code == 0, result.err
    found: list[dict[str, str]] = result.json()["documents"][0]["incoming"]
    return found


def test_get_names_each_incoming_link_by_its_inverse_what_replaces_it_first(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert incoming(cli, sample_store, A0) == [{"kind": "superseded-by", "id": A1}]
    assert incoming(cli, sample_store, A1) == [{"kind": "relates-to", "id": C1}]
    target = add_doc(cli, sample_store, "decision", "Keep sessions in a key-value store", DESCRIPTION)
    made = {kind: add_doc(cli, sample_store, "decision", f"A document that {kind} it", DESCRIPTION,
                          "--related", f"{kind}:{target}", "--keep-status", "--status", "accepted")
            for kind in ("resolves", "depends-on", "relates-to", "implements", "supersedes")}
    assert incoming(cli, sample_store, target) == [
        {"kind": "superseded-by", "id": made["supersedes"]},
        {"kind": "relates-to", "id": made["relates-to"]},
        {"kind": "dependency-of", "id": made["depends-on"]},
        {"kind": "implemented-by", "id": made["implements"]},
        {"kind": "resolved-by", "id": made["resolves"]},
    ]
    # What is archived links to nothing any more; a document that links to nothing has no incoming links.
    assert cli("archive", made["depends-on"], "--root", str(sample_store)).code == 0
    assert {"kind": "dependency-of", "id": made["depends-on"]} not in incoming(cli, sample_store, target)
    assert incoming(cli, sample_store, made["resolves"]) == []


def test_a_kind_without_an_inverse_is_named_as_written(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    schema = sample_store / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("relations:\n", "relations:\n  mentions: {}\n", 1))
    mentioning = add_doc(cli, sample_store, "decision", "Mention the session service", DESCRIPTION,
                         "--related", f"mentions:{B1}")
    # After what replaces it, in the schema's order of kinds: `mentions` is declared first.
    assert incoming(cli, sample_store, B1) == [{"kind": "mentions", "id": mentioning}, {"kind": "relates-to", "id": A1}]


def test_query_lists_the_incoming_links_of_each_result(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    listed = cli("query", "--include-inactive", "--root", str(sample_store), "--json").json()["results"]
    assert {row["id"]: row["incoming"] for row in listed if row["incoming"]} == {
        A0: [{"kind": "superseded-by", "id": A1}],
        A1: [{"kind": "relates-to", "id": C1}],
        B1: [{"kind": "relates-to", "id": A1}],
        "arch-0000000000b2": [{"kind": "relates-to", "id": "issue-0000000000c2"}],
    }


def test_a_peer_stores_rows_carry_its_own_incoming_links(sample_store: Path, store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("reindex", "--root", str(sample_store)).code == 0  # a peer is read only once it has an index
    listed = cli("query", "--include-inactive", "--store", str(sample_store), "--root", str(store),
                 "--json").json()["results"]
    a0 = next(row for row in listed if row["id"] == A0)
    assert a0["incoming"] == [{"kind": "superseded-by", "id": A1}] and a0["store"] == str(sample_store)
    got = cli("get", A0, "--store", str(sample_store), "--root", str(store), "--json").json()["documents"]
    assert [doc["incoming"] for doc in got] == [[{"kind": "superseded-by", "id": A1}]]


def test_a_terminal_shows_links_both_ways(sample_store: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # A terminal that takes no colours, as wide as the longest line.
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    for name, value in (("TERM", "dumb"), ("COLUMNS", "200"), ("LINES", "50")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    got = cli("get", A0, A1, "--root", str(sample_store))
    assert got.code == 0, got.err
    lines = [line.strip() for line in got.out.splitlines()]
    assert f"incoming: superseded-by {A1}" in lines
    assert f"related: supersedes {A0} · relates-to {B1}" in lines
    assert f"incoming: relates-to {C1}" in lines
    listed = cli("query", "--type", "decision", "--include-inactive", "--root", str(sample_store))
    assert listed.code == 0, listed.err
    assert f"incoming: superseded-by {A1}" in listed.out
    assert ids(cli("query", "--type", "decision", "--root", str(sample_store), "--json").json()) == [A1]
