"""benchmarks/org_store.py's quality part, the pure pieces: which corpora `--corpus` names, how many
repositories a corpus is split into, and the rows its table shows."""

from __future__ import annotations

import pytest

from benchmarks import org_store


def test_all_names_every_judged_corpus_once_and_keeps_the_order_given() -> None:
    assert org_store.parse_corpora("all") == ["quality", "docir", "madr", "cranfield", "eips"]
    assert org_store.parse_corpora("eips, docir,all") == ["eips", "docir", "quality", "madr", "cranfield"]
    assert org_store.parse_corpora("none") == []


def test_an_unknown_corpus_is_refused_with_the_known_ones() -> None:
    with pytest.raises(org_store.BenchmarkError, match="unknown corpus 'eip'; known: quality, docir"):
        org_store.parse_corpora("eip")


def test_forms_keep_their_order_and_refuse_an_unknown_one() -> None:
    assert org_store.parse_forms("poor, task") == ["task", "poor"]
    with pytest.raises(org_store.BenchmarkError, match="some of task, good, poor, not 'sketch'"):
        org_store.parse_forms("sketch")


def test_a_corpus_is_split_into_as_many_repositories_as_leave_none_empty() -> None:
    ids = [f"adr-{n:012x}" for n in range(200)]
    assert org_store.split_parts(ids) == 10
    few = ids[:4]  # split into 4 they leave part 1 empty (parts 2, 0, 3, 2); into 3 they fill every part
    assert [org_store.split_of(i, 4) for i in few] == [2, 0, 3, 2]
    assert org_store.split_parts(few) == 3
    assert org_store.split_parts(ids[:1]) == 1


def _found(local: float, org: float, forms: tuple[str, ...]) -> dict[str, object]:
    metrics = ("ndcg@10", "recall@10", "answer@1")
    means = {f"{form}/{side}": dict.fromkeys(metrics, value) for form in forms
             for side, value in (("local", local), ("org", org))}
    return {"documents": 83, "repositories": 10, "queries": 32, "forms": list(forms), "means": means,
            "difference": {form: dict.fromkeys(metrics, round(org - local, 4)) for form in forms}}


def test_the_table_has_a_row_per_form_and_the_difference_is_org_minus_local() -> None:
    rows = org_store.quality_rows({"docir": _found(0.9, 0.8, ("task", "good", "poor")),
                                   "cranfield": {"skipped": "not found"},
                                   "quality": _found(0.5, 0.75, ("task",))})
    assert [row[:5] if row else row for row in rows] == [
        ["docir", "83", "10", "32", "task alone"], ["", "", "", "", "+ good sketch"], ["", "", "", "", "+ poor sketch"],
        None, ["quality", "83", "10", "32", "task alone"]]
    assert rows[0] is not None and rows[0][5:8] == [0.9, 0.8, -0.1]
    assert rows[-1] is not None and rows[-1][5:8] == [0.5, 0.75, 0.25]
    assert len(org_store.QUALITY_COLUMNS) == len(rows[0])


def test_the_timing_parts_print_publish_then_context_per_setup() -> None:
    payload = {"config": {"repos": 200, "docs_per_repo": 100, "rounds": 1, "tasks": ["a", "b"], "repeat": 3,
                          "vectors": "synthetic"},
               "publish_one": {"p50_s": {"floor": 0.026, "publish": 0.317, "publish-wait": 0.62,
                                         "publish-unchanged": 0.301}},
               "context": {"path": "in-process", "results": {
                   "local-1": {"p50_ms": 10.6, "p95_ms": 18.3, "ratio_p50_to_local": 1.0},
                   "org-20k": {"p50_ms": 451.0, "p95_ms": 670.2, "ratio_p50_to_local": 42.55}}}}
    lines = org_store.speed_lines(payload)
    assert lines[0] == "organisation store: 200 repos x 100 docs, 1 rounds of 2 tasks; vectors synthetic"
    assert [line.split()[-1] for line in lines[3:7]] == ["s"] * 4
    assert lines[-2].startswith("  one local store (100 docs, no peers)") and lines[-2].endswith("1.0")
    assert lines[-1].startswith("  organisation store, 20,000 docs (200 repos)") and lines[-1].endswith("42.55")
