"""context with the real offline model: paraphrases found, sections matched, the graph followed."""

from __future__ import annotations

import pytest

from docir.services.retrieval import local_ranking

# Each query shares no content word with its answer's title, description or headings.
PARAPHRASES = [
    ("refresh token handling", "adr-5e5510000001"),
    ("speed up slow database reads", "adr-5e5510000003"),
    ("what happens when the payment provider is down", "adr-5e5510000004"),
    ("how do we roll back a bad release", "guide-5e5510000005"),
    ("keep secrets out of the repository", "adr-5e5510000006"),
    ("customers get too many emails", "adr-5e5510000007"),
    ("make the app work without internet", "arch-5e5510000008"),
]


def ids(result: local_ranking.ContextResult) -> list[str]:
    return [r["id"] for r in result.results]


@pytest.mark.parametrize(("query", "answer"), PARAPHRASES)
def test_paraphrase_is_found_in_the_top_three(semantic_session, query: str, answer: str) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    result = local_ranking.context(session, [query], source, limit=3, expand=False)
    assert answer in ids(result)
    assert result.semantic == "on"


@pytest.mark.parametrize(("query", "answer"), PARAPHRASES)
def test_paraphrase_is_invisible_to_lexical_ranking_alone(semantic_session, query: str, answer: str) -> None:  # type: ignore[no-untyped-def]
    """The fixture is honest: without vectors these answers are not first."""
    session, source = semantic_session
    lexical = local_ranking.context(session, [query], source, limit=1, expand=False, mode="lexical")
    assert ids(lexical) != [answer]


def test_answer_in_the_last_section_of_a_long_document(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    result = local_ranking.context(session, ["who is on call on saturday"], source, limit=3, expand=False)
    top = result.results[0]
    assert top["id"] == "guide-5e5510000013"
    assert top["matched_section"] == "Weekend paging rotation"
    assert top["similarity"] > 0.3
    # What reading costs: the whole document, or just the section that matched.
    assert 0 < top["matched_section_size"]["tokens"] < top["size"]["tokens"] // 5
    assert top["size"]["bytes"] > 4000


def test_a_replaced_decision_brings_its_successor(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    result = local_ranking.context(session, ["crontab entries on the batch host"], source, limit=1)
    assert result.results[0]["id"] == "adr-5e5510000009"
    expanded = {r["id"]: r["via"] for r in result.results[1:]}
    assert expanded["adr-5e5510000010"] == {"id": "adr-5e5510000009", "kind": "supersedes", "direction": "successor"}


def test_successors_come_before_outgoing_edges(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    result = local_ranking.context(session, ["crontab entries on the batch host"], source, limit=1)
    directions = [r["via"]["direction"] for r in result.results[1:]]
    assert directions == sorted(directions, key=lambda d: d != "successor")


def test_a_resolved_issue_never_comes_back_through_an_edge(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    query = ["how the workflow engine schedules and records batch jobs"]
    result = local_ranking.context(session, query, source, limit=8)
    assert "arch-5e5510000011" in ids(result)
    assert "issue-5e5510000012" not in ids(result)
    widened = local_ranking.context(session, query, source, limit=8, include_inactive=True)
    assert "issue-5e5510000012" in ids(widened)


def test_several_queries_take_turns(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    first = ids(local_ranking.context(session, ["card processor outage"], source, limit=1, expand=False))[0]
    second = ids(local_ranking.context(session, ["phone client without connectivity"], source, limit=1,
                                       expand=False))[0]
    both = local_ranking.context(session, ["card processor outage", "phone client without connectivity"], source,
                           limit=4, expand=False)
    assert ids(both)[:2] == [first, second]
    assert len(set(ids(both))) == len(ids(both))  # no document twice
    # What either task matched, and nothing else to fill the limit with.
    alone = [set(ids(local_ranking.context(session, [task], source, limit=4, expand=False)))
             for task in ("card processor outage", "phone client without connectivity")]
    assert set(ids(both)) == alone[0] | alone[1]


def test_explain_carries_both_rankings(semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    result = local_ranking.context(session, ["token bucket limits"], source, limit=3, expand=False, explain=True)
    top = result.results[0]
    assert top["id"] == "arch-5e5510000002"
    explain = top["explain"]
    assert explain["lexical_rank"] == 1
    assert explain["vector_rank"] >= 1
    assert explain["fts_score"] > 0
    assert explain["similarity"] == top["similarity"]
    assert "token" in explain["matched_terms"] and "bucket" in explain["matched_terms"]
    assert explain["chunk"] is not None


def test_score_is_the_sum_of_each_rankings_contribution_and_similarity_is_the_cosine(
        semantic_session) -> None:  # type: ignore[no-untyped-def]
    session, source = semantic_session
    result = local_ranking.context(session, ["offline mode for the mobile client"], source, limit=5, expand=False,
                             explain=True)
    scores = [r["score"] for r in result.results]
    assert scores == sorted(scores, reverse=True)
    for row in result.results:
        parts = row["explain"]["contributions"]
        assert abs(sum(parts.values()) - row["score"]) < 1e-3, row["explain"]
        if row["similarity"] is not None:
            assert row["explain"]["rankings"]["vector"]["cosine"] == row["similarity"]
    assert -1.0 <= result.results[0]["similarity"] <= 1.0
