"""The AGENTS.md block: created, refreshed in place, never duplicated, the rest byte-identical."""

from __future__ import annotations

from pathlib import Path

from docir.services.integrations import agents


def test_created_when_absent(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    assert agents.write_block(path) == "created"
    assert path.read_text() == agents.render_block()
    assert "docir context" in path.read_text() and "docir get ID1 ID2" in path.read_text()


def test_appended_to_an_existing_file_and_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    original = "# Agents\n\nRun `make test` before pushing.\n"
    path.write_text(original)
    assert agents.write_block(path) == "updated"
    once = path.read_text()
    assert once.startswith(original) and once.count(agents.BEGIN) == 1
    assert agents.write_block(path) == "unchanged"
    assert path.read_text() == once


def test_an_outdated_block_is_replaced_in_place(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    before, after = "# Agents\n\nIntro.\n\n", "\n## Style\n\nNo tabs.\r\nKeep this line: ends without newline"
    path.write_bytes((before + f"{agents.BEGIN}\nold advice\n{agents.END}\n" + after).encode())
    assert agents.write_block(path) == "updated"
    text = path.read_bytes().decode()
    assert text == before + agents.render_block() + after
    assert text.count(agents.BEGIN) == 1 and "old advice" not in text


def test_init_writes_it_and_the_agents_command_refreshes(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "store"
    assert cli("init", "--root", str(root)).code == 0
    assert (root / "AGENTS.md").read_text() == agents.render_block()
    assert cli("init", "--root", str(root)).code == 0
    assert (root / "AGENTS.md").read_text().count(agents.BEGIN) == 1
    printed = cli("agents")
    assert printed.out == agents.render_block()
    refreshed = cli("agents", "--write", "--root", str(root), "--json").json()
    assert refreshed["action"] == "unchanged"
