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
    """Six decisions about caching, each linked to its own architecture note; lexical ranking only."""
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(store / "no-model"))
    for n in range(6):
        note = add_doc(cli, store, "guide", f"Storage tier {n}",
                       f"How tier {n} of the storage layer is laid out and operated day to day.")
        add_doc(cli, store, "decision", f"Cache invalidation rule {n}",
                "When cached workspace settings are invalidated" + " and why" * n + ".",
                "--related", f"relates-to:{note}", "--body", "cache invalidation " * (6 - n))
    return store


def context(cli, root: Path, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    result = cli("context", "cache invalidation", "--root", str(root), "--json", *args)
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
        assert spent(rows) == found["budget"]["used"] <= limit, limit
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
