"""The generated pages (docs/README.markdown, docs/reference/) match the code (adr-247f7b01b95e)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from docir.cli import reference_pages as reference
from docir.commands import BY_NAME as COMMANDS
from docir.services.lint.rules import RULES
from tests.conftest import REPO


def test_the_checked_in_pages_are_what_the_code_makes_now() -> None:
    stale = reference.stale(REPO)
    assert stale == [], f"stale: {', '.join(stale)}; run: {reference.COMMAND}"


def test_a_changed_option_makes_its_page_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rel in ("docs", "docir", "hooks", ".ci"):
        shutil.copytree(REPO / rel, tmp_path / rel)
    shutil.copy(REPO / "docs-schema.yaml", tmp_path)
    assert reference.stale(tmp_path) == []
    page = tmp_path / reference.REFERENCE / "commands.markdown"
    page.write_text(page.read_text(encoding="utf-8").replace("| `--budget` |", "| `--spend` |"), encoding="utf-8")
    assert reference.stale(tmp_path) == [f"{reference.REFERENCE}/commands.markdown"]
    # The one command the message names brings the page back.
    monkeypatch.setattr(reference, "REPO", tmp_path)
    assert reference.main([]) == 0
    assert reference.main(["--check"]) == 0


def test_the_pages_cover_every_command_rule_and_document() -> None:
    pages = reference.pages(REPO)
    commands = pages[f"{reference.REFERENCE}/commands.markdown"]
    for name in COMMANDS:
        assert f"## docir {name}" in commands
    assert "`--sketch`" in commands and "| `--budget` | 0 ≤ integer ≤ 1000000 | `1600` |" in commands
    rules = pages[f"{reference.REFERENCE}/lint-rules.markdown"]
    assert all(f"{code} " in rules for code in RULES)
    shapes = pages[f"{reference.REFERENCE}/json.markdown"]
    assert "| `matched_section` |" in shapes
    for shape in ("GetJSON", "QueryJSON", "SearchJSON", "ContextJSON", "AddResult", "UpdateResult", "ArchiveResult"):
        assert f"## {shape}\n\n`docir.services." in shapes and f"printed by `{reference.PRINTED_BY[shape]}`" in shapes
    codes = pages[f"{reference.REFERENCE}/exit-codes.markdown"]
    assert "| 2 | `EXIT_USAGE` |" in codes and "| 130 | `EXIT_INTERRUPTED` |" in codes
    index = pages[reference.INDEX]
    documents = sorted((REPO / "docs").rglob("*.md"))
    assert len(documents) > 50
    assert all(f"]({path.relative_to(REPO / 'docs').as_posix()})" in index for path in documents)


def test_a_variable_docir_reads_without_a_description_stops_the_generator(tmp_path: Path) -> None:
    for rel in ("docs", "docir", "hooks", ".ci"):
        shutil.copytree(REPO / rel, tmp_path / rel)
    shutil.copy(REPO / "docs-schema.yaml", tmp_path)
    (tmp_path / "docir" / "new.py").write_text('import os\nos.environ.get("DOCIR_NEW_THING")\n', encoding="utf-8")
    with pytest.raises(SystemExit, match="describe DOCIR_NEW_THING in ENVIRONMENT"):
        reference.configuration_page(tmp_path)


def test_no_generated_page_is_a_document() -> None:
    # docir indexes every *.md under docs/; the pages are for people and must stay out of its ranking.
    assert all(not rel.endswith(".md") for rel in reference.pages(REPO))
