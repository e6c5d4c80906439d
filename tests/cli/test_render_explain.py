"""`--explain` on a terminal shows what adds up to each score, and who lent what."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

from docir.cli import render
from docir.invocation import here

ROW: dict[str, Any] = {
    "id": "adr-000000001e91", "type": "decision", "status": "accepted", "title": "Transaction Gas Limit Cap",
    "description": "A protocol-level cap on the gas of one transaction.", "score": 9.5976, "similarity": 0.71,
    "matched_section": "Specification", "via": None,
    "explain": {
        "rankings": {"sections": {"rank": 8}, "near": {"rank": 5}, "vector": {"rank": 1},
                     "lent_by": ["adr-000000001fbb", "adr-000000001fcd"]},
        "contributions": {"sections": 0.8044, "near": 0.8424, "vector": 4.6149, "lent": 3.336},
    },
}


def _shown(rows: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> str:
    out = io.StringIO()
    monkeypatch.setattr(render, "_console",
                        lambda invocation, stderr=False: Console(file=out, width=240, highlight=False, soft_wrap=False))
    render.skeleton_table(rows, heading="context: gas cap", invocation=here())
    return out.getvalue()


def test_each_part_of_the_score_shows_with_its_rankings_place_and_the_lenders(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _shown([ROW], monkeypatch)
    assert ("score 9.60 = sections 0.80 (#8) + near 0.84 (#5) + vector 4.61 (#1)"
            " + lent 3.34 from adr-000000001fbb, adr-000000001fcd") in shown


def test_without_explain_or_with_nothing_to_add_no_line_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = {key: value for key, value in ROW.items() if key != "explain"}
    governing_only = {**plain, "explain": {"applies_to": {"glob": "src/**", "path": "src/a.py"}}}
    for row in (plain, governing_only):
        assert "score " not in _shown([row], monkeypatch)
