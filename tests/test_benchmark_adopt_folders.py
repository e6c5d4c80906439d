"""benchmarks/adopt_folders.py, the parts that decide its figures: the description judge, the lost-line
and lost-key checks, and the metrics of a tiny folder whose adopted files are written by hand."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks import _harness as harness
from benchmarks import adopt_folders as bench

GOOD = [
    "Orders live in one PostgreSQL database owned by the orders service.",
    "Should the test framework be Locust or k6?",
    "We keep the `a | b` syntax; the parser already reads it (see [the RFC](rfc.md)).",
    'The team said "no more shared databases."',
    "Every service publishes its events to one bus (decided in 2023.)",
    "Releases go out weekly! Hotfixes may go out any day.",
]

BAD = {
    "too short": "Use Django.",
    "too long": "We store orders in PostgreSQL. " * 14,
    "ends with a colon": "Kafka is used for the following purposes:",
    "ends with an ellipsis": "The providers load data from Google Cloud Storage and then they load data\u2026",
    "three dots": "The providers load data from Google Cloud Storage and then...",
    "mid-word": "The providers load data from Google Cloud Storage and then they lo",
    "heading": "## Context and Problem Statement We need a database.",
    "list marker": "- Status: accepted, as the team agreed last week.",
    "numbered list": "1. The test framework supports the current load test design.",
    "table pipe": "| Status | Date | Author(s) | Accepted | 2025-01-07 |.",
    "link list": "See [ADR-1](0001-a.md) and [ADR-2](0002-b.md) for the background.",
    "reference links": "[EPSS][epss] is a signal published daily by [FIRST][first-org].",
    "HTML tag": "We render the page on the server <br> and send it whole.",
    "HTML comment": "<!-- markdownlint-disable --> We render the page on the server.",
    "moustache placeholder": "{{ CONTEXT }} describe the context and the problem here.",
    "brace placeholder": "Describe the {problem statement} in two or three sentences.",
    "bold metadata": "**Parent Requirement**: the registrar must keep every contact.",
    "bold metadata, colon inside": "**Status:** Accepted by the whole team on Monday.",
    "status line": "Status: Accepted by the architecture board.",
    "date line": "Date: 2024-05-22, back dated to the first meeting.",
    "deciders line": "Deciders: Nan Jiang, Raphael Pierzina and Katrina Anderson.",
    "fallback": "Use Django: adopted without a summary; describe it here.",
}


def test_the_judge_accepts_whole_sentences() -> None:
    for text in GOOD:
        assert bench.judge_description(text, "Some other title") == [], text


@pytest.mark.parametrize("shape", sorted(BAD))
def test_the_judge_rejects_each_bad_shape(shape: str) -> None:
    assert bench.judge_description(BAD[shape], "Some other title"), shape


def test_the_judge_names_why_and_checks_title_and_hint() -> None:
    assert bench.judge_description(None) == ["missing"]
    assert bench.judge_description("   ") == ["missing"]
    assert bench.judge_description("Kafka is used for the following purposes:") == ["ends with a colon"]
    title = "Use Markdown Architectural Decision Records"
    assert bench.judge_description("Use Markdown architectural decision records.", title) == ["repeats the title"]
    good = "We record every architectural decision in Markdown files next to the code."
    assert bench.judge_description(good, title, hint="We record every") == []
    assert bench.judge_description(good, title, hint="Decisions are") == ["does not start with 'Decisions are'"]
    # code spans hold pipes, tags and braces legitimately
    assert bench.judge_description("The `List<BibEntry> | {}` type stays as it is in every fetcher.") == []


def test_lost_lines_catch_a_dropped_a_reordered_and_a_changed_line() -> None:
    original = "# Title\n\none\ntwo\nthree\n"
    assert bench.lost_lines(original, original) == []
    assert bench.lost_lines(original, "---\nid: x\n---\n" + original + "more\n") == []  # added lines lose nothing
    assert bench.lost_lines(original, "# Title\n\none\nthree\n") == [(4, "two")]
    reordered = bench.lost_lines(original, "# Title\n\ntwo\none\nthree\n")
    assert len(reordered) == 1 and reordered[0][1] in ("one", "two")
    assert bench.lost_lines(original, "# Title\n\none\ntwo!\nthree\n") == [(4, "two")]
    assert bench.lost_lines(original, original.replace("\n", "\r\n")) != []  # line endings are bytes too
    assert [n for n, _ in bench.lost_lines("a\nb\nc\nd\ne\n", "a\nd\nc\ne\n")] in ([2, 3], [2, 4])


def test_lost_keys_accept_a_value_kept_as_its_original() -> None:
    before = bench.Doc.parse(b"---\nnav_order: 0032\nparent: Decisions\nstatus: on hold\n---\n# T\n")
    kept = bench.Doc.parse(b"---\nid: adr-1\nnav_order: 0032\nparent: Decisions\nstatus: proposed\n"
                           b"status_original: on hold\n---\n# T\n")
    assert before.raw is not None and kept.raw is not None
    assert bench.lost_keys(before.raw, kept.raw) == []
    rewritten = bench.Doc.parse(b"---\nnav_order: 26\nstatus: proposed\n---\n# T\n")  # octal read, then written
    assert rewritten.raw is not None
    assert bench.lost_keys(before.raw, rewritten.raw) == ["nav_order", "parent", "status"]


def test_frontmatter_is_only_at_the_start_and_a_bom_is_ignored() -> None:
    assert bench.split_frontmatter("\ufeff---\na: 1\n---\nbody\n---\nmore\n") == ("a: 1\n", "body\n---\nmore\n")
    assert bench.split_frontmatter("# T\n\n---\n\ntext\n") == (None, "# T\n\n---\n\ntext\n")
    assert bench.split_frontmatter("---\nunclosed\n") == (None, "---\nunclosed\n")


def test_titles_are_exact_unless_the_truth_made_them_up() -> None:
    assert bench.title_matches("Use `jabkit` Commands", "Use `jabkit` Commands", lenient=False)
    assert not bench.title_matches("Use jabkit commands", "Use `jabkit` Commands", lenient=False)
    assert bench.title_matches("Spec first REST API v2", "Spec-First REST API v2", lenient=True)
    assert bench.title_matches("ADR 7: Spec-First REST API v2", "Spec-First REST API v2", lenient=True)
    assert not bench.title_matches("Context", "Spec-First REST API v2", lenient=True)
    assert not bench.title_matches("Spec", "Spec-First REST API v2", lenient=False)
    assert not bench.title_matches("Spe", "Spec-First REST API v2", lenient=True)  # words, not letters
    assert not bench.title_matches(None, "Anything", lenient=True)


TRUTH = """\
schema_version: 1
folders:
  - folder: tiny
    format: "nygard and madr, made up"
    files:
      - file: "0001-use-x.md"
        kind: adr
        title: "Use X"
        status: superseded
        status_original: "Superseded by [2. Use Y](0002-use-y.md)"
        date: "2024-01-02"
        number: 1
        superseded_by: ["0002-use-y.md"]
      - file: "0002-use-y.md"
        kind: adr
        title: "Use Y"
        status: accepted
        status_original: "accepted"
        date: null
        number: 2
        description_hint: "Y is better"
        superseded_by: []
        supersedes: ["0001-use-x.md"]
      - file: "README.md"
        kind: other
        title: "Decisions"
        status: null
        superseded_by: []
"""

ORIGINAL = {
    "0001-use-x.md": "# 1. Use X\n\nDate: 2024-01-02\n\n## Status\n\nSuperseded by [2. Use Y](0002-use-y.md)\n\n"
                     "## Context\n\nWe need X.\nX is small.\n",
    "0002-use-y.md": "---\nnav_order: 0002\nstatus: accepted\n---\n# Use Y\n\n## Context\n\nY is better than X.\n",
    "README.md": "# Decisions\n\nThe list.\n",
}

ADOPTED = {
    # right status, title, date and number; one body line dropped
    "0001-use-x.md": "---\nid: adr-x\ntype: decision\ntitle: Use X\ndescription: We need X, and X is small enough "
                     "to run anywhere.\nstatus: superseded\nstatus_original: Superseded by [2. Use Y](0002-use-y.md)\n"
                     "date: 2024-01-02\nnumber: 1\n---\n"
                     + ORIGINAL["0001-use-x.md"].replace("We need X.\n", ""),
    # wrong status (kept as status_original), nav_order lost, number a string, a heading as description,
    # the supersede link right and one to a document that is not there
    "0002-use-y.md": "---\nid: adr-y\ntype: decision\ntitle: Use Y\ndescription: '## Context Y is better.'\n"
                     "status: proposed\nstatus_original: accepted\nnumber: '2'\n"
                     "related:\n  - supersedes: adr-x\n  - supersedes: adr-ghost\n---\n# Use Y\n\n## Context\n\n"
                     "Y is better than X.\n",
    "README.md": "---\nid: adr-readme\n---\n# Decisions\n\nThe list.\n",  # a non-ADR adopted
}


def _tiny(tmp_path: Path) -> tuple[bench.TruthFolder, Path]:
    truth_file = tmp_path / "truth.yaml"
    truth_file.write_text(TRUTH, encoding="utf-8")
    (tmp_path / "tiny").mkdir()
    for name, text in ORIGINAL.items():
        (tmp_path / "tiny" / name).write_text(text, encoding="utf-8")
    [folder] = bench.load_truth(truth_file)
    return folder, truth_file


def test_the_truth_file_gives_folders_beside_it_with_numbers_and_hints(tmp_path: Path) -> None:
    folder, _ = _tiny(tmp_path)
    assert folder.name == "tiny" and folder.path == tmp_path / "tiny"
    assert [f.number for f in folder.files] == [1, 2, None]
    assert folder.files[1].description_hint == "Y is better"
    assert folder.files[0].status == "superseded" and folder.files[2].status is None
    assert len(folder.adrs()) == 2
    assert folder.pairs() == {("0001-use-x.md", "0002-use-y.md")}  # stated on both sides, counted once


def test_the_metrics_of_a_tiny_folder(tmp_path: Path) -> None:
    folder, _ = _tiny(tmp_path)
    adopted = tmp_path / "store" / "docs" / "adr"
    adopted.mkdir(parents=True)
    for name, text in ADOPTED.items():
        (adopted / name).write_text(text, encoding="utf-8")
    runs = bench.Runs(
        lint_findings=[{"severity": "error", "code": "DOC001", "path": "docs/adr/README.md", "message": "no type"},
                       {"severity": "warning", "code": "DOC018", "path": "docs/adr/0001-use-x.md", "message": "x"}],
        contexts={"0001-use-x.md": [{"id": "adr-y", "path": "docs/adr/0002-use-y.md", "status": "proposed"},
                                    {"id": "adr-x", "path": "docs/adr/0001-use-x.md", "status": "accepted"}]},
        dry_run_changed=["docs/adr/README.md"])
    score = bench.score_folder(folder, folder.path, adopted, runs)
    ratios = {key: (r.hit, r.total) for key, r in score.ratios.items()}
    assert ratios == {"status": (1, 2), "status_non_accepted": (1, 1), "links": (1, 1), "titles": (2, 2),
                      "descriptions": (1, 2), "dates": (1, 1), "numbers": (1, 2)}
    assert score.counts == {"crash": 0, "links_wrong": 1, "lost_lines": 1, "lost_keys": 1, "non_adr_changed": 1,
                            "lint_errors": 1, "superseded_current": 1, "dry_run_changed": 1}
    assert score.details["status"] == [{"file": "0002-use-y.md", "got": "proposed", "want": "accepted",
                                        "original": "accepted"}]
    assert score.details["lost_lines"][0]["lines"] == [{"line": 11, "text": "We need X."}]
    assert score.details["lost_keys"] == [{"file": "0002-use-y.md", "keys": ["nav_order"]}]
    assert score.details["links_wrong"] == [{"older": "adr-ghost", "newer": "0002-use-y.md"}]
    assert score.details["superseded_current"][0]["rank"] == 2
    assert "a Markdown heading" in score.details["descriptions"][0]["why"]

    # the ALL row counts cases, and the targets read it
    both = bench.total([score, score])
    assert (both.ratios["status"].hit, both.ratios["status"].total, both.counts["lost_lines"]) == (2, 4, 2)
    verdicts = {t["name"]: t["status"] for t in bench.targets(both)}
    assert verdicts["supersede links recovered"] == "PASS" and verdicts["clean titles"] == "PASS"
    assert verdicts["status fidelity"] == "FAIL" and verdicts["adopt crashes"] == "PASS"
    assert verdicts["lost body lines"] == "FAIL"
    row = bench.row(both)
    assert row[0] == "ALL" and len(row) == len(bench.COLUMNS)


def test_a_file_adopt_left_alone_loses_nothing_and_a_vanished_one_loses_everything(tmp_path: Path) -> None:
    folder, _ = _tiny(tmp_path)
    adopted = tmp_path / "store" / "docs" / "adr"
    shutil.copytree(folder.path, adopted)
    (adopted / "0002-use-y.md").unlink()
    score = bench.score_folder(folder, folder.path, adopted, bench.Runs(contexts={"0001-use-x.md": []}))
    assert score.counts["non_adr_changed"] == 0 and score.counts["superseded_current"] == 0
    assert score.counts["lost_lines"] == len(ORIGINAL["0002-use-y.md"].split("---\n", 2)[2].split("\n"))
    assert score.counts["lost_keys"] == 2
    assert score.ratios["titles"].hit == 0 and score.ratios["links"].hit == 0


def test_a_crash_is_exit_3_a_signal_a_timeout_or_a_traceback() -> None:
    def outcome(code: int | None, err: str = "") -> bench.Outcome:
        return bench.Outcome(code, "", err, 0.1)

    assert [outcome(c).crashed for c in (0, 1, 2, 3, -9, None)] == [False, False, False, True, True, True]
    assert outcome(0, "Traceback (most recent call last):\n  File ...").crashed


FAKE_DOCIR = """\
import json, pathlib, sys
args = sys.argv[1:]
if args[0] == "init":
    pathlib.Path("docs").mkdir(exist_ok=True)
elif args[0] == "adopt" and "--dry-run" not in args:
    print("Traceback (most recent call last):\\n  ...\\nKeyError: 'status'", file=sys.stderr)
    sys.exit(3)
elif args[0] == "lint":
    print(json.dumps({"findings": []}))
elif args[0] == "context":
    print(json.dumps({"results": []}))
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_crashing_adopt_is_the_folder_s_crash_not_the_benchmark_s(tmp_path: Path) -> None:
    folder, _ = _tiny(tmp_path)
    fake = tmp_path / "fake_docir.py"
    fake.write_text(textwrap.dedent(FAKE_DOCIR), encoding="utf-8")
    settings = bench.Settings((sys.executable, str(fake)), harness.git_env(), 60)
    score = bench.measure(folder, settings, False, lambda _text: None)
    assert score.error == "" and score.adopt_code == 3 and score.counts["crash"] == 1
    assert "KeyError" in score.details["adopt"][0]["error"]
    assert score.counts["lost_lines"] == 0 and score.counts["non_adr_changed"] == 0
    # the files are as they were: only the one whose own frontmatter says `status: accepted` is right
    assert (score.ratios["status"].hit, score.ratios["status"].total, score.counts["lint_errors"]) == (1, 2, 0)
    assert bench.row(score)[2] == "3"
