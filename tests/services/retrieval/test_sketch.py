"""A need in three forms, with the real offline model: the sketch fused into one ranking, and kept in its place."""

from __future__ import annotations

import pytest

from docir.services.retrieval import fusion, local_ranking
from docir.services.retrieval.need import Need

# The task's words and meaning point elsewhere; the sketch says what the answer says.
TASK = "why did customers get two bills"
SKETCH = "The invoice export ran twice on one night because two batch hosts had the same crontab schedule."
CRON = "adr-5e5510000009"  # Use cron for nightly jobs: nightly batch jobs run from crontab entries on the batch host

# A strong task match, and a sketch that guessed another document entirely.
RATE_TASK = "token bucket limits per API key"
RATE_ANSWER = "arch-5e5510000002"  # Token bucket rate limiter
WRONG_SKETCH = "Each user receives at most three marketing messages per week across all channels."
CAPS = "adr-5e5510000007"  # Notification frequency caps: what the wrong sketch describes


def ids(result: local_ranking.ContextResult) -> list[str]:
    return [r["id"] for r in result.results]


def task_part(row: dict) -> float:  # type: ignore[type-arg]
    parts = row["explain"]["contributions"]
    return float(sum(value for name, value in parts.items() if name in ("sections", "near", "vector")))


def test_a_document_only_the_sketch_finds_comes_first(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    alone = local_ranking.context(session, [TASK], source, limit=5, expand=False)
    assert CRON not in ids(alone)
    both = local_ranking.context(session, [Need(TASK, SKETCH)], source, limit=5, expand=False, explain=True)
    first = both.results[0]
    assert first["id"] == CRON
    # One ranking, not turns: the task alone gave it nothing, the sketch's rankings put it first.
    assert task_part(first) == 0.0  # type: ignore[arg-type]
    assert first["explain"]["contributions"]["sketch vector"] > 0
    assert first["explain"]["sketch"]["weight"] > 0.5


def test_the_score_is_the_sum_of_every_forms_parts(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    terms = "invoice export twice"
    result = local_ranking.context(session, [Need(TASK, SKETCH, terms)], source, limit=5, expand=False, explain=True)
    for row in result.results:
        parts = row["explain"]["contributions"]
        assert abs(sum(parts.values()) - row["score"]) < 1e-3, parts
    assert any(row["explain"]["contributions"].get("terms sections", 0) > 0 for row in result.results)
    assert result.results[0]["explain"]["terms"]["weight"] > 0.5
    assert result.to_json()["sketch"] == SKETCH and result.to_json()["terms"] == terms


def test_terms_unrelated_to_the_task_get_no_weight(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    alone = local_ranking.context(session, [RATE_TASK], source, limit=3, expand=False)
    found = local_ranking.context(session, [Need(RATE_TASK, terms="crontab marketing")], source, limit=3, expand=False,
                            explain=True)
    assert ids(found) == ids(alone)
    assert found.results[0]["explain"]["terms"]["weight"] == 0.0


def test_a_sketch_about_something_else_does_not_bury_a_strong_task_match(
        semantic_session, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    guarded = local_ranking.context(session, [Need(RATE_TASK, WRONG_SKETCH)], source, limit=3, expand=False,
                                    explain=True)
    assert ids(guarded)[0] == RATE_ANSWER
    assert guarded.results[0]["explain"]["sketch"]["weight"] < 0.5
    # The same sketch at full weight would have put what it describes first: the weight is what protects.
    monkeypatch.setattr(fusion, "RELATEDNESS_RAMP", (-2.0, -1.0))
    monkeypatch.setattr(fusion, "CONFIDENT_CUT", 0.0)
    unguarded = local_ranking.context(session, [Need(RATE_TASK, WRONG_SKETCH)], source, limit=3, expand=False)
    assert ids(unguarded)[0] == CAPS


def test_also_still_takes_turns_beside_a_sketch(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    other = "phone client without connectivity"
    second = ids(local_ranking.context(session, [other], source, limit=1, expand=False))[0]
    both = local_ranking.context(session, [Need(TASK, SKETCH), Need(other)], source, limit=4, expand=False)
    assert ids(both)[:2] == [CRON, second]
    assert both.to_json()["also"] == [other]


def test_without_a_model_the_sketch_ranks_by_its_words(semantic_session) -> None:  # type: ignore[no-untyped-def]
    from docir.services.vectors.query_source import NoModel

    session, _ = semantic_session
    task = "the export job ran two times on the batch hosts"
    sketch = "Nightly batch jobs run from crontab entries on the batch host, one schedule per host."
    alone = local_ranking.context(session, [task], NoModel("test"), limit=3, expand=False)
    found = local_ranking.context(session, [Need(task, sketch)], NoModel("test"), limit=3, expand=False, explain=True)
    first = found.results[0]
    assert first["id"] == CRON == alone.results[0]["id"]
    assert first["score"] > alone.results[0]["score"]  # type: ignore[operator]
    # Counted out of the few documents the task's words found, not out of ten; and no cosine to weigh.
    assert first["explain"]["sketch"]["agreement"] >= 0.75
    assert first["explain"]["sketch"]["relatedness"] is None
    assert first["explain"]["contributions"]["sketch sections"] > 0
