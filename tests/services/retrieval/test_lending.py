"""Candidates lend part of their fused score to the documents they build on (retrieval/lending.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docir.schema import default_schema_text, parse_schema
from docir.services.indexing.session import open_session
from docir.services.retrieval import fusion, local_ranking
from docir.services.vectors.query_source import NoModel
from tests.caller import caller

NO_MODEL = NoModel("the links are the point here, not the vectors")
TASK = "token bucket refill for tenant bursts on the ingest API"
FOUNDATION = "adr-00000000f001"
FOLLOW_UPS = ("adr-00000000a001", "adr-00000000b001")
BYSTANDER = "adr-00000000d001"


def _decision(root: Path, doc_id: str, title: str, body: str, related: str = "") -> None:
    (root / "docs" / "decisions" / f"{doc_id}.md").write_text(
        f"---\nid: {doc_id}\ntype: decision\ntitle: {title}\ndescription: {title}, as decided by the platform team.\n"
        f"status: accepted\nowner: '@platform'\n{related}---\n\n{body}\n", encoding="utf-8")


def _store(root: Path, kind: str) -> Path:
    (root / "docs" / "decisions").mkdir(parents=True, exist_ok=True)
    links = f"related:\n  - {kind}: {FOUNDATION}\n"
    _decision(root, FOUNDATION, "Admission control", "## Budget\n\nEach tenant gets a token bucket.\n")
    _decision(root, FOLLOW_UPS[0], "Burst credits on the ingest API",
              "## Refill\n\nThe token bucket of a tenant refills faster after quiet minutes, so bursts on the "
              "ingest API pass.\n", links)
    _decision(root, FOLLOW_UPS[1], "Refill schedule for tenant buckets",
              "## Bursts\n\nA tenant's token bucket refill runs every second; bursts on the ingest API spend "
              "credits.\n", links)
    _decision(root, BYSTANDER, "Quota dashboard",
              "## Panels\n\nA panel per tenant shows the token bucket and the token bucket refill rate.\n")
    return root


def _ranked(root: Path) -> list[dict[str, object]]:
    session = open_session(root, caller())
    try:
        result = local_ranking.context(session, [TASK], NO_MODEL, limit=10, expand=False, explain=True)
    finally:
        session.close()
    return [dict(row) for row in result.results]


@pytest.fixture
def two_stores(store: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The same four decisions twice: the follow-ups `depends-on` the foundation, or only `relates-to` it."""
    builds_on = _store(store, "depends-on")
    related = tmp_path / "related"
    related.mkdir()
    (related / "docs-schema.yaml").write_text((store / "docs-schema.yaml").read_text(encoding="utf-8"))
    return builds_on, _store(related, "relates-to")


def test_the_document_candidates_build_on_borrows_their_score_and_rises(two_stores: tuple[Path, Path]) -> None:
    builds_on, related = two_stores
    plain = [row["id"] for row in _ranked(related)]
    assert plain.index(BYSTANDER) < plain.index(FOUNDATION), plain  # alone, the foundation matches less

    rows = _ranked(builds_on)
    order = [row["id"] for row in rows]
    assert order.index(FOUNDATION) < order.index(BYSTANDER), order
    foundation = rows[order.index(FOUNDATION)]
    explain = foundation["explain"]
    assert isinstance(explain, dict)
    assert sorted(explain["rankings"]["lent_by"]) == sorted(FOLLOW_UPS)
    lenders = {row["id"]: row["score"] for row in rows if row["id"] in FOLLOW_UPS}
    assert explain["contributions"]["lent"] == pytest.approx(fusion.LEND_SHARE * sum(lenders.values()), abs=1e-3)
    assert sum(explain["contributions"].values()) == pytest.approx(foundation["score"], abs=1e-3)
    for row in rows:
        if row["id"] != FOUNDATION:
            assert row["explain"]["contributions"]["lent"] == 0.0  # type: ignore[index]


def test_a_symmetric_link_lends_nothing(two_stores: tuple[Path, Path]) -> None:
    _, related = two_stores
    for row in _ranked(related):
        explain = row["explain"]
        assert isinstance(explain, dict)
        assert explain["contributions"]["lent"] == 0.0 and "lent_by" not in explain["rankings"]


def test_the_kinds_that_lend_are_the_directed_non_successor_relations() -> None:
    schema, problems = parse_schema(default_schema_text())
    assert schema is not None and not problems
    assert schema.building_kinds == {"amends", "depends-on", "implements", "resolves"}
    assert not schema.building_kinds & schema.successor_kinds
