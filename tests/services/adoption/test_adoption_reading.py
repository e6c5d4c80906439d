"""Reading one foreign record by its format: status wording, dates, titles and numbers, descriptions."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from docir.documents.records import dates, describe, reading, statuses


@pytest.mark.parametrize(("written", "word", "links"), [
    ("Accepted", "accepted", []),
    ("✅ **Accepted**", "accepted", []),
    ("_accepted_", "accepted", []),
    ("Approved", "accepted", []),
    ("In Review", "proposed", []),
    ("on hold", "proposed", []),
    ("❌ Rejected", "rejected", []),
    ("⚠️ Deprecated", "deprecated", []),
    ("Accepted (2021-05-11)", "accepted", []),
    ("⌛️ Superseded by [036. Multi-cluster](036-multi-cluster.md)", "superseded",
     [("superseded-by", "[036. Multi-cluster](036-multi-cluster.md)")]),
    ("superseded by ADR-0057", "superseded", [("superseded-by", "ADR-0057")]),
    ("Superceded by ADR 7", "superseded", [("superseded-by", "ADR 7")]),
    ("accepted; supersedes ADR-0045", "accepted", [("supersedes", "ADR-0045")]),
    ("Accepted\nAmended by [3. Use X which replaces Y](0003-x.md)", "accepted",
     [("amended-by", "[3. Use X which replaces Y](0003-x.md)")]),
    ("Superseded by [Use X which replaces Y](0003-x.md)", "superseded",
     [("superseded-by", "[Use X which replaces Y](0003-x.md)")]),
])
def test_a_status_is_read_from_its_first_words_whatever_decorates_it(written: str, word: str,
                                                                    links: list[tuple[str, str]]) -> None:
    read = statuses.read(written)
    assert (read.word, [(link.direction, link.ref) for link in read.links]) == (word, links)
    assert not read.unknown and not read.template


@pytest.mark.parametrize("written", [
    "Proposed, Accepted, Rejected, Deprecated, Superseded",
    "[proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)]",
    "{{ STATUS }}",
    "{proposed | rejected | accepted}",
])
def test_a_status_that_lists_the_choices_is_a_template(written: str) -> None:
    assert statuses.read(written).template


def test_a_status_word_adopt_does_not_know_is_unknown_not_guessed() -> None:
    read = statuses.read("Frobnicated")
    assert (read.word, read.unknown, read.original) == (None, True, "Frobnicated")


@pytest.mark.parametrize(("value", "date", "swapped"), [
    ("2021-05-11", dt.date(2021, 5, 11), False),
    ("2024-05-22 (back dated)", dt.date(2024, 5, 22), False),
    ("2023-13-10", dt.date(2023, 10, 13), True),  # YYYY-DD-MM: the month as written cannot be one
    ("11.05.2021", dt.date(2021, 5, 11), False),
    ("May 11, 2021", dt.date(2021, 5, 11), False),
    ("11 May 2021", dt.date(2021, 5, 11), False),
    ({dt.date(2024, 5, 2): None}, dt.date(2024, 5, 2), False),  # `date: { 2024-05-02 }`
    (dt.datetime(2024, 5, 2, 10, 30), dt.date(2024, 5, 2), False),
    ("yyyy-mm-dd", None, False),
    (42, None, False),
])
def test_dates_as_teams_write_them(value: object, date: dt.date | None, swapped: bool) -> None:
    assert dates.read(value) == (date, swapped)


@pytest.mark.parametrize(("written", "number", "title"), [
    ("21. Multi-cluster", 21, "Multi-cluster"),
    ("ADR001: Architecture Decision Record (ADR) log", 1, "Architecture Decision Record (ADR) log"),
    ("ADR-12 Use Kafka", 12, "Use Kafka"),
    ("n. Django Templates", None, "Django Templates"),
    ("[Superseded by ADR-7] Use MySQL - ADR 008", 8, "Use MySQL"),
    ("2FA for admins", None, "2FA for admins"),
    ("Use `--input` Flag Consistently", None, "Use `--input` Flag Consistently"),
])
def test_a_title_loses_its_number_and_markers(written: str, number: int | None, title: str) -> None:
    assert reading.split_title(written) == (number, title)


def record(tmp_path: Path, name: str, text: str) -> reading.Foreign:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return reading.read(path)


def test_an_example_status_in_a_fence_or_deep_in_the_body_is_not_the_records(tmp_path: Path) -> None:
    src = record(tmp_path, "0008-add-status-field.md", (
        "# Add Status Field\n\n## Context and Problem Statement\n\nADRs have a status. Should this be tracked?\n\n"
        "```yaml\n---\nstatus: accepted\n---\n```\n\nStatus: Accepted\n"))
    assert src.status is None and src.number == 8 and src.title == "Add Status Field"


def test_a_heading_inside_a_fence_is_not_the_title(tmp_path: Path) -> None:
    src = record(tmp_path, "004-file-storage-plugin.md", (
        "| Status | Date | Author(s) |\n|:--|:--|:--|\n| Accepted | 2025-01-29 | [@a](https://x) |\n\n"
        "## Context\n\n```properties\n# Defines the file storage extension to use.\nx=y\n```\n"))
    assert (src.title, src.number, src.status and src.status.word, src.date) == (
        "File storage plugin", 4, "accepted", dt.date(2025, 1, 29))


def test_a_links_list_says_what_replaced_a_record_whose_status_line_is_stale(tmp_path: Path) -> None:
    src = record(tmp_path, "20240219-revisit.md", (
        "# Revisit\n\n- Status: accepted\n- Date: 2024-02-19\n\n## Context and Problem Statement\n\nText here.\n\n"
        "## Links\n\n- Superseded by [Use Scalar](20241023-use-scalar.md)\n- [A rule](https://example.com)\n"))
    assert src.superseded_in_links and src.number is None  # a YYYYMMDD name is a date, not a number
    assert [(r.direction, r.file) for r in src.references] == [("superseded-by", "20241023-use-scalar.md")]


@pytest.mark.parametrize(("name", "text"), [
    ("README.md", "# Decisions\n\nThe log of our decisions.\n"),
    ("adr-template.md", "# {short title}\n\n## Context\n"),
    ("000-template.md", "| Status | Date |\n|--|--|\n| Proposed, Accepted, Rejected | yyyy-mm-dd |\n"),
    ("0099-whatever.md", "# Title\n\n* Status: [proposed | rejected | accepted]\n"),
    ("index.md", "---\nhas_children: true\n---\n# Decisions\n"),
])
def test_templates_and_index_pages_are_not_records(tmp_path: Path, name: str, text: str) -> None:
    assert record(tmp_path, name, text).kind == "other"


def test_a_file_named_for_its_subject_is_still_a_record(tmp_path: Path) -> None:
    src = record(tmp_path, "0039-use-apache-velocity-as-template-engine.md", "# Use Velocity\n\nText of it.\n")
    assert src.kind == "adr"


def describe_text(tmp_path: Path, body: str) -> str:
    return describe.describe(record(tmp_path, "0001-x.md", body), 20, 400).text


def test_a_description_is_whole_sentences_from_the_context(tmp_path: Path) -> None:
    text = describe_text(tmp_path, (
        "# Use Postgres\n\nDate: 2021-01-01\n\n## Status\n\nAccepted\n\n## Context\n\n"
        "**Parent Requirement**: REQ-12\n\nWe need a database for orders.\nIt must survive the loss of a\n"
        "region. Cost matters less"))
    assert text == "We need a database for orders. It must survive the loss of a region."


def test_a_lead_in_and_its_short_list_make_one_sentence(tmp_path: Path) -> None:
    text = describe_text(tmp_path, (
        "# X\n\n## Context and Problem Statement\n\nWe need to decide when an order gets a courier:\n\n"
        "- at checkout,\n- at night, for all of the next\n  day's orders at once,\n- or when it is packed.\n"))
    assert text == ("We need to decide when an order gets a courier: at checkout; at night, for all of the next "
                    "day's orders at once; or when it is packed.")


def test_a_lead_in_whose_list_says_more_than_a_sentence_is_skipped(tmp_path: Path) -> None:
    text = describe_text(tmp_path, (
        "# X\n\n## Context\n\nKafka is used for the following purposes:\n\n* **Dispatch**. Each notification\n"
        "  is consumed from a topic.\n\nOperating Kafka has gotten easier over the years.\n"))
    assert text == "Operating Kafka has gotten easier over the years."


def test_a_summary_the_source_has_is_used_as_written(tmp_path: Path) -> None:
    src = record(tmp_path, "0001-x.md", "---\nsummary: Orders live in PostgreSQL, owned by one service.\n---\n# X\n")
    found = describe.describe(src, 20, 400)
    assert (found.text, found.derived) == ("Orders live in PostgreSQL, owned by one service.", False)


def test_madrs_chosen_option_is_a_decision_not_a_metadata_line(tmp_path: Path) -> None:
    text = describe_text(tmp_path, (
        "# X\n\n## Context and Problem Statement\n\nThe primary uses are to:\n\n1. Encapsulate queries. Often.\n\n"
        "## Decision Outcome\n\nChosen option: **Option 1 - Store specs in the domain**, as it keeps logic there.\n"))
    assert text == "Chosen option: Option 1 - Store specs in the domain, as it keeps logic there."


def test_a_record_with_no_prose_still_gets_a_sentence(tmp_path: Path) -> None:
    text = describe_text(tmp_path, "# Use Gradle\n\n## Considered Options\n\n* Maven\n* Gradle\n")
    assert text == "Records the decision: Use Gradle."


def test_a_notice_at_the_top_and_a_title_marker_say_a_record_was_replaced(tmp_path: Path) -> None:
    src = record(tmp_path, "adr013-use-node-fetch.md", (
        "---\nid: adrs-adr013\ntitle: 'ADR013: [superseded] Proper use of fetch libraries'\n---\n\n"
        ":::note Superseded\n\nThis ADR has been superseded by [ADR014](./adr014-use-fetch.md) and no longer "
        "applies.\n\n:::\n\n## Context\n\nWe fetch data in many places.\n"))
    assert (src.title, src.number, src.title_status, src.superseded_in_links) == (
        "Proper use of fetch libraries", 13, "superseded", True)
    assert [(r.direction, r.file) for r in src.references] == [("superseded-by", "adr014-use-fetch.md")]


@pytest.mark.parametrize(("name", "heading", "title"), [
    ("adr-002-configuration.md", "# Architecture Decision Record: Configuration", "Configuration"),
    ("034-EKS-Fargate.md", "# 34 EKS Fargate", "EKS Fargate"),
    ("0003-2fa-for-admins.md", "# 2FA for admins", "2FA for admins"),  # a number that is not the file's
])
def test_a_title_loses_what_names_the_kind_of_record_or_its_bare_number(tmp_path: Path, name: str, heading: str,
                                                                        title: str) -> None:
    assert record(tmp_path, name, f"{heading}\n\n## Context\n\nText of it.\n").title == title


def test_a_date_line_without_its_colon_and_a_status_section_with_notes_after_it(tmp_path: Path) -> None:
    src = record(tmp_path, "0012-one-cluster.md", (
        "# 12. One cluster\n\nDate 09/04/2018\n\n## Status\n\n✅ Accepted\n\n**June 2020 Update** We now run "
        "several clusters, see [21](021-multi-cluster.md).\n\n## Context\n\nWe run one cluster.\n"))
    assert src.date == dt.date(2018, 4, 9)
    assert src.status is not None and (src.status.word, src.status.original) == ("accepted", "Accepted")


def test_a_sentence_that_starts_like_a_field_is_prose(tmp_path: Path) -> None:
    text = describe_text(tmp_path, (
        "# X\n\n## Decision\n\nProposed: **Option 1** — remove the in-memory cache entirely and retrieve the\n"
        "file ID from PostgreSQL when needed.\n"))
    assert text == ("Proposed: Option 1 — remove the in-memory cache entirely and retrieve the file ID from "
                    "PostgreSQL when needed.")


def test_a_lead_in_that_ends_on_because_runs_on_into_its_reasons(tmp_path: Path) -> None:
    text = describe_text(tmp_path, (
        "# X\n\n## Decision Outcome\n\nChosen option: \"ADR number\", because\n\n- It is short\n"
        "- Other tools use it\n"))
    assert text == 'Chosen option: "ADR number", because it is short; Other tools use it.'
