"""DOC025 description-not-a-sentence: a description that is a table of contents, a list, links, a heading,
a metadata line or a sentence cut off is reported at its line, with what to write instead; ordinary one- or
two-sentence descriptions, with or without a final stop, one link or inline code, are not."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from docir.services.lint.rules import RULES
from docir.services.lint.rules.descriptions import CLIP_MARGIN, description_problem

TODAY = dt.date.today().isoformat()
ADVICE = "say in a sentence what the document decides or explains"
FINISH = "finish the sentence, or end the description at the last whole one"
SENTENCES = "Orders are kept in PostgreSQL for its transactions. Sessions are kept in Redis, rebuilt on each start. "
# Two sentences, the second clipped; one sentence without a stop, as long.
PROSE_CLIPPED = "Orders are kept in PostgreSQL for its transactions. Sessions are kept in Redis, rebuilt on each st"
LONE_SENTENCE = "Orders are kept in PostgreSQL for its transactions while sessions are kept in Redis, rebuilt often"
CLIPPED = (SENTENCES * 4)[:400].rstrip()  # cut at the last word boundary before the default max_length, 400


def decision(number: int, description: str | list[str]) -> str:
    """A decision every other rule passes, with `description` written as YAML (quoted: '#', '*' or ': ' in a
    description would otherwise be YAML syntax)."""
    return (f"---\nid: adr-{number:012x}\ntype: decision\ntitle: Decision {number}\n"
            f"description: {json.dumps(description)}\nstatus: accepted\nowner: '@team'\nverified: {TODAY}\n---\n\n"
            f"## Decision\n\nWe decided it.\n")


def lint_descriptions(cli, store: Path, descriptions: list[str | list[str]]) -> dict[str, list[tuple[int, str, str]]]:  # type: ignore[no-untyped-def]
    """Lint a store holding one decision per description; each file's DOC025 findings as (line, severity,
    message), keyed by its description as written."""
    folder = store / "docs" / "decisions"
    folder.mkdir(parents=True, exist_ok=True)
    for number, description in enumerate(descriptions, start=1):
        (folder / f"d{number}.md").write_text(decision(number, description), encoding="utf-8")
    result = cli("lint", "--root", str(store), "--format", "json")
    assert result.out, result.err
    findings = json.loads(result.out)["findings"]
    assert [f for f in findings if f["code"] != "DOC025"] == []  # every other rule passes these documents
    return {json.dumps(description): [(f["line"], f["severity"], f["message"]) for f in findings
                                      if f["path"] == f"docs/decisions/d{number}.md"]
            for number, description in enumerate(descriptions, start=1)}


REPORTED: dict[str, str] = {
    "Overview; Motivation; Specification; Rationale": f"description reads as a table of contents; {ADVICE}",
    "Context · Decision Drivers · Considered Options": f"description reads as a table of contents; {ADVICE}",
    "* Maven * Gradle * Ant": f"description reads as a list; {ADVICE}",
    "[ADR 1](0001-use-postgres.md), [ADR 2](0002-use-kafka.md)":
        f"description is a list of links; {ADVICE}, and leave the links to the body",
    "See https://adr.github.io/madr/ and https://github.com/npryce/adr-tools":
        f"description is a list of links; {ADVICE}, and leave the links to the body",
    "# Context and Problem Statement": f"description is a Markdown heading; {ADVICE}",
    "Alpha -> Beta Graduation": f"description reads as a heading; {ADVICE}",
    "Status: accepted (2024-05-02)": f"description reads as a metadata field (Status: ...); {ADVICE}",
    "**Parent Requirement**: REQ-1": f"description reads as a metadata field (Parent Requirement: ...); {ADVICE}",
    "We need to choose where the orders service keeps its data:":
        f"description ends with ':', cut off mid-sentence; {FINISH}",
    "The orders service keeps its data in PostgreSQL, which…": f"description ends in an ellipsis, cut off "
                                                              f"mid-sentence; {FINISH}",
    "Orders are kept in PostgreSQL, and the": f"description ends on 'the', cut off mid-sentence; {FINISH}",
    CLIPPED: f"description ends without a stop at 399 of the 400 characters allowed, as if clipped; {FINISH}",
}
PASSED = [
    "Postgres is the one database of the service, for its transactions.",
    "Use PostgreSQL for orders",
    "Use Markdown Architectural Decision Records",
    "Orders are kept in [PostgreSQL](https://www.postgresql.org/) for its transactions.",
    "Run `docir lint --staged` before every commit, so a broken link never lands",
    "Orders are kept in PostgreSQL. Sessions are kept in Redis, rebuilt on each start",
    "Precompiles for BLS12-377 curve operations",
    "Note: the index is rebuilt from docs/ when its schema version changes.",
    "Retry failed webhooks; park them after a day; page the on-call engineer",
    "Every agent and every person working on the service must log in",
]


def test_each_shape_that_is_no_sentence_is_reported_at_the_description_with_what_to_write(  # type: ignore[no-untyped-def]
        cli, store: Path) -> None:
    assert len(CLIPPED) == 399
    found = lint_descriptions(cli, store, [*REPORTED, ["Maven", "Gradle", "Ant"]])
    expected = {json.dumps(d): [(5, "warning", message)] for d, message in REPORTED.items()}
    expected[json.dumps(["Maven", "Gradle", "Ant"])] = [(5, "warning", f"description is a YAML list; {ADVICE}")]
    assert found == expected


def test_sentences_with_or_without_a_stop_a_link_or_code_are_not_reported(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    found = lint_descriptions(cli, store, list(PASSED))
    assert found == {json.dumps(d): [] for d in PASSED}
    assert cli("lint", "--root", str(store)).code == 0


@pytest.mark.parametrize("limit", [len(PROSE_CLIPPED), len(PROSE_CLIPPED) + 1, len(PROSE_CLIPPED) + CLIP_MARGIN])
def test_prose_clipped_a_word_short_of_the_limit_is_reported_and_a_lone_sentence_there_is_not(limit: int) -> None:
    """Within CLIP_MARGIN of max_length without a stop: clipped when an earlier sentence ends in one (such
    prose ends its last sentence too); a single sentence near the limit without a stop only at the limit."""
    assert len(LONE_SENTENCE) == len(PROSE_CLIPPED)
    assert description_problem(PROSE_CLIPPED, limit) == (
        f"description ends without a stop at {len(PROSE_CLIPPED)} of the {limit} characters allowed, as if "
        f"clipped; {FINISH}")
    at_limit = limit == len(LONE_SENTENCE)
    assert (description_problem(LONE_SENTENCE, limit) is None) is not at_limit
    # Further off the limit than a clipped word: written so.
    assert description_problem(PROSE_CLIPPED, len(PROSE_CLIPPED) + CLIP_MARGIN + 1) is None


def test_a_title_case_phrase_is_a_heading_only_without_a_verb() -> None:
    assert description_problem("Service Mesh Adoption", 400) == f"description reads as a heading; {ADVICE}"
    assert description_problem("EOF - Code Validation", 400) == f"description reads as a heading; {ADVICE}"
    for sentence in ("Adopt a Service Mesh", "Optimize EOA EXTCODEHASH", "Why We Chose Kafka",
                     "EOF - Prepare for Address Space Extension", "Service Mesh Adoption."):
        assert description_problem(sentence, 400) is None, sentence


def test_the_rules_own_examples_are_reported_and_fixed() -> None:
    declared = RULES["DOC025"]
    assert description_problem(declared.bad.removeprefix("description: "), 400) == \
        f"description reads as a table of contents; {ADVICE}"
    assert description_problem(declared.good.removeprefix("description: "), 400) is None
