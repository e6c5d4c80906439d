"""What context returns is what the task matched, by its words or by a meaning that stands out of the
store's background; on a small store that is not every document. With the real offline model."""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

import pytest

from docir.services.retrieval import fusion, local_ranking
from tests.conftest import FIXTURES, embedded

# Six active documents of fixtures/stores/semantic, none linking another.
SIX = {"adr-5e5510000001": "session-renewal-strategy", "arch-5e5510000002": "token-bucket-rate-limiter",
       "adr-5e5510000003": "replica-fan-out-for-orders",
       "adr-5e5510000004": "checkout-fallback-during-processor-outages",
       "adr-5e5510000006": "credential-storage-in-the-vault", "adr-5e5510000007": "notification-frequency-caps"}
TASKS = ["what happens when the payment provider is down", "refresh token handling", "customers get too many emails",
         "keep secrets out of the repository", "speed up slow database reads", "kubernetes pod autoscaling",
         "quarterly marketing budget review", "how many requests may a client send"]


@pytest.fixture(scope="module")
def six(tmp_path_factory: pytest.TempPathFactory, model_cache: Path):  # type: ignore[no-untyped-def]
    """A store of six documents, indexed and embedded with the real model."""
    root = tmp_path_factory.mktemp("six") / "store"
    shutil.copytree(FIXTURES / "stores" / "semantic", root)
    for path in (root / "docs").rglob("*.md"):
        if path.stem not in SIX.values():
            path.unlink()
    with embedded(root, model_cache) as (session, source):
        yield session, source, root


def ids(result: local_ranking.ContextResult) -> list[str]:
    return [r["id"] for r in result.results]


@pytest.mark.parametrize("task", TASKS)
def test_context_returns_what_matched_by_words_or_stands_out_by_meaning(six, task: str) -> None:  # type: ignore[no-untyped-def]
    """The oracle is read off the single-side rankings, which still list every document: the words'
    candidates, and each document's best cosine, which stands out when it is more than BACKGROUND_SD
    standard deviations above the mean of the other five."""
    session, source, _ = six
    by_words = set(ids(local_ranking.context(session, [task], source, limit=50, expand=False, mode="lexical")))
    cosines = {r["id"]: r["similarity"]
               for r in local_ranking.context(session, [task], source, limit=50, expand=False, mode="vector").results}
    assert set(cosines) == set(SIX)  # every document has a vector, and the vector side lists them all

    def stands_out(doc: str) -> bool:
        others = [cosine for other, cosine in cosines.items() if other != doc]
        line = statistics.fmean(others) + fusion.BACKGROUND_SD * statistics.pstdev(others)
        assert abs(cosines[doc] - line) > 1e-3  # not so close that the rounded cosines could decide
        return cosines[doc] > line

    expected = by_words | {doc for doc in cosines if stands_out(doc)}
    found = ids(local_ranking.context(session, [task], source, limit=50, expand=False))
    assert set(found) == expected
    assert len(found) < len(SIX)


def test_a_task_put_in_other_words_finds_its_answer_and_not_the_rest(six) -> None:  # type: ignore[no-untyped-def]
    session, source, _ = six
    result = local_ranking.context(session, ["what happens when the payment provider is down"], source, limit=8,
                             expand=False)
    assert ids(result)[0] == "adr-5e5510000004"
    assert all(r["score"] > 0 for r in result.results)  # nothing found by its words: no padding at score 0
    assert len(result.results) <= 2


def test_the_command_returns_only_the_matches(six, cli, model_cache: Path,  # type: ignore[no-untyped-def]
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, root = six
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    result = cli("context", "what happens when the payment provider is down", "--root", str(root), "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["semantic"] == "on"
    assert [row["id"] for row in payload["results"]][0] == "adr-5e5510000004"
    assert payload["count"] < len(SIX)


def test_the_background_line_is_its_mean_and_spread() -> None:
    cosines = [0.1, 0.2, 0.3, 0.2]
    line = fusion.background_line(sum(cosines), sum(c * c for c in cosines), len(cosines))
    assert line == pytest.approx(statistics.fmean(cosines) + fusion.BACKGROUND_SD * statistics.pstdev(cosines))
    # One other document has no spread to stand out of: in a store of two, each cosine counts.
    assert fusion.background_line(0.3, 0.09, 1) == fusion.background_line(0.0, 0.0, 0) == float("-inf")
