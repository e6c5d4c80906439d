"""Records written as their team's tool writes them, and read back by docir's own reader (adr-0c5e2d8f1a47)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from docir.documents.records import reading
from docir.documents.records.writing import Link, new_name, new_record, set_status, slug
from docir.errors import UsageError

DAY = dt.date(2026, 12, 7)


def read(text: str, name: str = "0004-x.md") -> reading.Foreign:
    return reading.parse(Path(name), text)


def test_new_names_follow_the_folder(tmp_path: Path) -> None:
    for name in ("001-first.md", "002-second.md", "README.md", "template.md"):
        (tmp_path / name).write_text("# x\n", encoding="utf-8")
    assert new_name(tmp_path, "adr-tools", "Use Rust, not C!", DAY) == ("003-use-rust-not-c.md", 3)
    assert new_name(tmp_path / "empty", "madr", "Use Postgres", DAY) == ("0001-use-postgres.md", 1)
    assert new_name(tmp_path, "log4brains", "Use Postgres", DAY) == ("20261207-use-postgres.md", None)
    assert slug("  Déjà vu: 2 ways ") == "d-j-vu-2-ways"  # adr-tools' own tr: letters and digits of ASCII only


@pytest.mark.parametrize("form", ["adr-tools", "madr", "log4brains"])
def test_a_new_record_reads_back_with_its_title_status_date_and_links(form: str) -> None:
    text = new_record(form, number=4, title="Use Postgres", date=DAY, status="accepted",
                      description="Orders need one transactional store that the team already runs.", body="",
                      links=[Link("Supersedes", "2. Use MySQL" if form == "adr-tools" else "Use MySQL",
                                  "0002-use-mysql.md")])
    src = read(text)
    assert src.kind == "adr"
    assert (src.title, src.date, src.status and src.status.word) == ("Use Postgres", DAY, "accepted")
    assert [(r.direction, r.file) for r in src.references] == [("supersedes", "0002-use-mysql.md")]
    if form == "adr-tools":
        assert text.startswith("# 4. Use Postgres\n\nDate: 2026-12-07\n\n## Status\n\nAccepted\n")


@pytest.mark.parametrize(("form", "text", "said"), [
    ("madr", "---\nstatus: accepted\ndate: 2024-01-02\n---\n# Use MySQL\n\n## Context\n\nOrders.\n",
     "status: superseded by [Use Postgres](0004-use-postgres.md)"),
    ("log4brains", "# Use MySQL\n\n- Status: accepted\n- Date: 2024-01-02\n\n## Context\n\nOrders.\n",
     "- Status: superseded by [Use Postgres](0004-use-postgres.md)"),
    ("adr-tools", "# 2. Use MySQL\n\nDate: 2024-01-02\n\n## Status\n\nAccepted\n\n## Context\n\nOrders.\n",
     "## Status\n\nSuperseded by [4. Use Postgres](0004-use-postgres.md)\n\n## Context"),
])
def test_a_supersede_is_written_where_the_record_states_its_status(form: str, text: str, said: str) -> None:
    title = "4. Use Postgres" if form == "adr-tools" else "Use Postgres"
    edited = set_status(form, text, "superseded", Link("Superseded by", title, "0004-use-postgres.md"))
    assert said in edited
    src = read(edited, "0002-use-mysql.md")
    assert "superseded" in ((src.status.word if src.status else None), "superseded" if src.superseded_in_links
                            else None)
    assert [(r.direction, r.file) for r in src.references] == [("superseded-by", "0004-use-postgres.md")]
    assert edited.count("Orders.") == 1 and edited.endswith("## Context\n\nOrders.\n")


def test_a_status_change_keeps_the_link_lines() -> None:
    text = ("# 3. B\n\nDate: 2024-01-02\n\n## Status\n\nProposed\n\nSupersedes [2. A](0002-a.md)\n\n"
            "## Context\n\nWhy.\n")
    edited = set_status("adr-tools", text, "accepted")
    assert "## Status\n\nAccepted\n\nSupersedes [2. A](0002-a.md)\n\n## Context" in edited


def test_a_status_table_is_not_rewritten() -> None:
    text = "| Status | Date |\n|---|---|\n| Accepted | 2024-01-02 |\n\n## Context\n\nWhy.\n"
    with pytest.raises(UsageError, match="by hand"):
        set_status("madr", text, "superseded")
