"""lint --deep with the real offline model: paraphrases flagged, unrelated and linked pairs not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import add_doc

WEBHOOK_BODY = """## Decision

When a webhook delivery fails, we retry it with exponential backoff, starting after one minute and doubling,
for at most twenty-four hours. After that the delivery is dropped and logged."""
PARAPHRASE_BODY = """## Decision

When a webhook delivery fails, we retry it with exponential back-off: the first retry after one minute, each delay
doubling, for at most one day. After that the delivery is dropped and written to the log."""


@pytest.fixture
def deep_store(cli, store: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> dict[str, str]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.chdir(store)
    ids = {
        "original": add_doc(cli, store, "decision", "Retry failed webhook deliveries with exponential backoff",
                            "Webhook calls that fail are retried with exponential backoff "
                            "for up to a day before being dropped.",
                            "--body", WEBHOOK_BODY),
        "paraphrase": add_doc(cli, store, "decision", "Retry failed webhook deliveries with exponential back-off",
                              "Webhook deliveries that fail are retried with exponential back-off "
                              "for at most one day before they are dropped.",
                              "--body", PARAPHRASE_BODY),
        "unrelated": add_doc(cli, store, "decision", "Store uploaded images in object storage",
                             "User uploads go to the object store with a CDN in front; "
                             "the database keeps only the key.",
                             "--body",
                             "## Decision\n\nImages are uploaded to object storage and served through the CDN."),
    }
    return ids


def findings(cli, *args: str) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    result = cli("lint", "--deep", "--format", "json", *args)
    assert result.code == 0, result.err
    return [f for f in json.loads(result.out)["findings"] if f["code"] == "DOC030"]


def test_paraphrased_pair_is_flagged_and_unrelated_is_not(cli, deep_store: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    found = findings(cli)
    messages = " ".join(f["message"] for f in found)
    assert len(found) == 2  # reported on both documents of the one pair
    assert deep_store["original"] in messages and deep_store["paraphrase"] in messages
    assert deep_store["unrelated"] not in messages


def test_a_linked_pair_is_not_flagged(cli, deep_store: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    linked = cli("update", deep_store["paraphrase"], "--add-related", f"supersedes:{deep_store['original']}")
    assert linked.code == 0, linked.err
    assert findings(cli) == []


def test_pair_suppression(cli, store: Path, deep_store: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    path = next(store.glob("docs/decisions/*back-off*.md"))
    path.write_text(path.read_text() + f"\n<!-- docir: ignore[DOC030:{deep_store['original']}] -->\n")
    found = findings(cli)
    assert [f["path"] for f in found] == [next(store.glob("docs/decisions/*backoff.md")).relative_to(store).as_posix()]


def test_no_model_says_so_and_exits_zero_unless_required(cli, store: Path,  # type: ignore[no-untyped-def]
                                                          deep_store: dict[str, str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(store / "no-model"))
    result = cli("lint", "--deep")
    assert result.code == 0
    assert "near-duplicate check skipped: semantic layer is off" in result.err
    assert cli("lint", "--deep", "--require-model").code == 2
