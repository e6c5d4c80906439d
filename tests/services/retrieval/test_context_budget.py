"""`context --budget`: the best-ranked entries within a token budget, linked documents compact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from docir.services.retrieval import budget
from docir.services.retrieval.skeleton import cost
from tests.conftest import add_doc

LINKED_KEYS = {"kind", "id", "title", "status", "description", "via", "size"}


@pytest.fixture
def linked_store(store: Path, cli, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    """Six decisions about caching, each replacing an earlier decision of its own, which context shows linked
    (with --include-inactive: a replaced decision is closed); lexical ranking only."""
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(store / "no-model"))
    for n in range(6):
        old = add_doc(cli, store, "decision", f"Storage tier {n}",
                      f"How tier {n} of the storage layer is laid out and operated day to day.")
        add_doc(cli, store, "decision", f"Cache invalidation rule {n}",
                "When cached workspace settings are invalidated" + " and why" * n + ".", "--status", "accepted",
                "--related", f"supersedes:{old}", "--body", "cache invalidation " * (6 - n))
    return store


def context(cli, root: Path, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    result = cli("context", "cache invalidation", "--root", str(root), "--json", "--include-inactive", *args)
    assert result.code == 0, result.err
    payload = result.json()
    assert isinstance(payload, dict)
    return payload


def spent(rows: list[dict[str, Any]]) -> int:
    """Each entry's JSON, every key, at four bytes a token: with --json the budget holds for what is printed."""
    return sum(cost(len(json.dumps(row, ensure_ascii=False).encode("utf-8")))["tokens"] for row in rows)


def test_the_budget_is_never_exceeded_and_keeps_the_best_ranked(cli, linked_store: Path) -> None:  # type: ignore[no-untyped-def]
    everything = context(cli, linked_store, "--budget", "0")
    ranked_all = [r["id"] for r in everything["results"] if r["via"] is None]
    assert len(ranked_all) == 6 and everything["omitted"] == 0
    assert everything["budget"] == {"limit": 0, "used": spent(everything["results"])}
    total = everything["budget"]["used"]
    for limit in range(50, total + 100, 37):
        found = context(cli, linked_store, "--budget", str(limit))
        rows = found["results"]
        assert spent(rows) == found["budget"]["used"], limit
        if found["budget"]["used"] > limit:  # the best-ranked entry alone, shown whatever the budget
            assert len(rows) == 1 and rows[0]["id"] == ranked_all[0], limit
        ranked = [r["id"] for r in rows if r["via"] is None]
        assert ranked == ranked_all[: len(ranked)], limit  # a prefix: never a lower rank in place of a higher
        assert {r["via"]["id"] for r in rows if r["via"] is not None} <= set(ranked)  # links of kept results only
        assert found["omitted"] == everything["count"] - found["count"], limit
    assert context(cli, linked_store, "--budget", str(total))["omitted"] == 0


def test_linked_documents_are_compact_and_ranked_ones_count_their_links(cli, linked_store: Path) -> None:  # type: ignore[no-untyped-def]
    found = context(cli, linked_store, "--budget", "0")
    linked = [r for r in found["results"] if r["via"] is not None]
    ranked = [r for r in found["results"] if r["via"] is None]
    assert linked and all(set(r) == LINKED_KEYS for r in linked)
    assert all("related" not in r and r["related_count"] == 1 for r in ranked)
    full = context(cli, linked_store, "--budget", "0", "--full-links")
    assert all(len(r["related"]) == (1 if r["via"] is None else 0) and "description" in r for r in full["results"])
    assert [r["id"] for r in full["results"]] == [r["id"] for r in found["results"]]
    assert found["budget"]["used"] < full["budget"]["used"]


def test_a_successor_is_kept_with_the_decision_it_replaces() -> None:
    """Within the budget, a replaced decision's successor comes right after it, before lower-ranked results."""
    def hit(doc_id: str, via: dict[str, str] | None = None) -> Any:
        return {"kind": "document", "id": doc_id, "title": "t" * 200, "status": "accepted", "via": via,
                "size": {"bytes": 1, "tokens": 1}}

    rows = [hit("a"), hit("b"), hit("c"), hit("x", {"id": "a", "kind": "supersedes", "direction": "successor"})]
    limit = budget.tokens(rows[0]) + budget.tokens(rows[3]) + 5  # room for two entries, not three
    kept, used = budget.within(rows, limit)
    assert [r["id"] for r in kept] == ["a", "x"] and used <= limit


def test_budget_out_of_range_is_a_usage_error(cli, linked_store: Path) -> None:  # type: ignore[no-untyped-def]
    result = cli("context", "cache", "--budget", "-1", "--root", str(linked_store))
    assert result.code == 2 and "budget" in result.err.lower()


def test_a_result_larger_than_the_budget_is_shown_clipped_not_dropped(cli, store: Path,  # type: ignore[no-untyped-def]
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(store / "no-model"))
    title = "Rotate the signing keys " + "and say why at length " * 370  # about 8 KB, as `docir add` accepts it
    doc_id = add_doc(cli, store, "decision", title, "Signing keys rotate every day; old keys verify for a week.")
    for form in ([], ["--json"]):
        result = cli("context", "rotate the signing keys", "--root", str(store), "--budget", "1600", *form)
        assert result.code == 0, result.err
        if form:
            rows = result.json()["results"]
            assert [row["id"] for row in rows] == [doc_id] and rows[0]["title"].endswith("…")
            assert len(rows[0]["title"]) < 500 and result.json()["budget"]["used"] <= 1600
        else:
            assert doc_id in result.out and "held back" not in result.out and len(result.out) < 2000
    lint = cli("lint", "--root", str(store))
    assert "DOC027 title is " in lint.out and lint.code == 0, lint.out  # a warning: the commit goes on
