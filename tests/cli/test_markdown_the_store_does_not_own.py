"""Markdown under docs/ that docir did not write: `exclude:` in docs-schema.yaml (adr-547a50927c6b).

`docir init` lists what it finds there; a listed file is never indexed, linted or returned, and a
commit is never blocked for it; an edit of the list counts from the next command on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import ids, one_line

DOCUMENT = """---
id: {id}
type: decision
title: {title}
description: A decision written beside Markdown that docir does not own, long enough to lint.
status: accepted
owner: "@team"
---

## Decision

{body}
"""


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
                       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}.items():
        monkeypatch.setenv(key, value)
    return dict(os.environ)


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=check)


def docir(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "docir", *args], cwd=root, capture_output=True, text=True,
                          timeout=120)


def with_plain_markdown(root: Path) -> Path:
    """A repository whose docs/ already holds a README and an API folder, none of it with frontmatter."""
    (root / "docs" / "api").mkdir(parents=True)
    (root / "README.md").write_text("# The service\n")  # outside docs/: never the store's business
    (root / "docs" / "README.md").write_text("# Our docs\n\nStart with the API pages.\n")
    (root / "docs" / "api" / "orders.md").write_text("# Orders API\n\nPOST /orders creates an order.\n")
    (root / "docs" / "api" / "refunds.md").write_text("---\ntitle: Refunds API\n---\n# Refunds\n")
    return root


def test_init_leaves_plain_markdown_out_in_one_line_and_the_first_commit_passes(tmp_path: Path,
                                                                                 env: dict[str, str]) -> None:
    root = with_plain_markdown(tmp_path / "repo")
    git(root, "init", "-q", "-b", "main")

    done = docir(root, "init", "--hooks", "--json")

    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "docir: left 3 existing Markdown files under docs/ out of the store (exclude: in docs-schema.yaml); "
        "'docir adopt PATH' brings ADRs in"]
    shown = json.loads(done.stdout)
    assert shown["exclude"] == ["/README.md", "api/**"]
    assert shown["excluded"] == ["docs/README.md", "docs/api/orders.md", "docs/api/refunds.md"]
    assert "exclude:\n  - /README.md\n  - api/**\n" in (root / "docs-schema.yaml").read_text()
    git(root, "add", "-A")
    first = git(root, "commit", "-qm", "docir init", check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    # Edited and staged again: still not the store's, still never in the way.
    (root / "docs" / "api" / "orders.md").write_text("# Orders API\n\nstatus: whatever\n")
    (root / "docs" / "README.md").write_text("no heading at all\n")
    (root / "docs" / "api" / "new.md").write_text("# New\n")
    git(root, "add", "-A")
    second = git(root, "commit", "-qm", "edit the API pages", check=False)
    assert second.returncode == 0, second.stdout + second.stderr
    assert docir(root, "lint", "--staged").returncode == 0


def test_lint_of_an_excluded_file_reports_nothing(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = with_plain_markdown(tmp_path / "store")
    assert cli("init", "--root", str(root)).code == 0

    named = cli("lint", "--root", str(root), "--format", "json", str(root / "docs" / "api" / "orders.md"))
    everything = cli("lint", "--root", str(root), "--format", "json")

    for result in (named, everything):
        assert result.code == 0, result.out + result.err
        assert json.loads(result.out)["findings"] == []
        assert result.err == ""


def test_an_excluded_file_is_never_in_query_search_get_or_context(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "store"
    assert cli("init", "--root", str(root)).code == 0
    schema = root / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("exclude: []", "exclude: [drafts/**]"))
    drafts = root / "docs" / "drafts"
    drafts.mkdir()
    # Frontmatter docir would index, in a folder the store does not own.
    (drafts / "zebra.md").write_text(DOCUMENT.format(id="adr-00000000d0d0", title="Zebra crossings stay painted",
                                                     body="Zebra crossings are repainted every spring."))
    everything = ["--root", str(root), "--json"]

    assert ids(cli("query", *everything).json()) == []
    assert ids(cli("search", "zebra", *everything).json()) == []
    assert ids(cli("context", "repaint the zebra crossings", "--no-refs", *everything).json()) == []
    assert cli("get", "adr-00000000d0d0", *everything).code == 1

    schema.write_text(schema.read_text().replace("exclude: [drafts/**]", "exclude: []"))
    assert ids(cli("query", *everything).json()) == ["adr-00000000d0d0"]  # taken back: indexed at once
    schema.write_text(schema.read_text().replace("exclude: []", "exclude: [zebra.md]"))
    assert ids(cli("query", *everything).json()) == []  # left out again: gone from the index at once
    assert ids(cli("search", "zebra", *everything).json()) == []


def test_a_cold_command_leaves_out_what_the_schema_excludes(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A command in its own process walks docs/ in a forked child (prewalk.py): it reads the list too."""
    root = tmp_path / "store"
    assert cli("init", "--root", str(root)).code == 0
    (root / "docs" / "kept.md").write_text(DOCUMENT.format(id="adr-0000000000aa", title="Kept", body="Kept."))
    (root / "docs" / "left.md").write_text(DOCUMENT.format(id="adr-0000000000bb", title="Left", body="Left."))
    assert ids(cli("query", "--root", str(root), "--json").json()) == ["adr-0000000000aa", "adr-0000000000bb"]
    schema = root / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("exclude: []", "exclude: [/left.md]"))

    listed = docir(root, "query", "--json")

    assert listed.returncode == 0, listed.stderr
    assert ids(json.loads(listed.stdout)) == ["adr-0000000000aa"]


def test_taking_a_file_off_the_list_makes_lint_check_it_on_the_next_run(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = with_plain_markdown(tmp_path / "store")
    assert cli("init", "--root", str(root)).code == 0
    orders = str(root / "docs" / "api" / "orders.md")
    assert cli("lint", "--root", str(root), orders).code == 0
    schema = root / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("  - api/**\n", ""))

    named = cli("lint", "--root", str(root), "--format", "json", orders)
    everything = cli("lint", "--root", str(root), "--format", "json")

    assert named.code == 1
    assert [(f["path"], f["code"]) for f in json.loads(named.out)["findings"]] == [("docs/api/orders.md", "DOC002")]
    assert {(f["path"], f["code"]) for f in json.loads(everything.out)["findings"]} >= {
        ("docs/api/orders.md", "DOC002"), ("docs/api/refunds.md", "DOC003")}
    assert not any(f["path"] == "docs/README.md" for f in json.loads(everything.out)["findings"])


@pytest.mark.parametrize(("listed", "where", "message"), [
    ("exclude: api/**\n", "1:1", "exclude must be a list of globs relative to docs/, e.g. [api/**, /README.md]"),
    ("exclude:\n  - api/**\n  - ../secrets/*.md\n", "3:5", "exclude: '../secrets/*.md' leaves docs/ ('..')"),
    ("exclude: [api/**, 7]\n", "1:19", "exclude: 7 is not a glob (quote it)"),
    ("exclude:\n  - docs/api/**\n", "2:5",
     "exclude: 'docs/api/**' starts with docs/; the globs are relative to docs/ (write 'api/**')"),
])
def test_a_malformed_exclude_is_one_schema_error_with_its_place(tmp_path: Path, cli, listed: str, where: str,  # type: ignore[no-untyped-def]
                                                                message: str) -> None:
    root = tmp_path / "store"
    assert cli("init", "--root", str(root)).code == 0
    schema = root / "docs-schema.yaml"
    text = schema.read_text()
    line = text[:text.index("exclude: []")].count("\n")  # lines before the list
    schema.write_text(text.replace("exclude: []\n", listed))
    row, col = where.split(":")
    place = f"docs-schema.yaml:{line + int(row)}:{col}"

    queried = cli("query", "--root", str(root))
    linted = cli("lint", "--root", str(root))

    assert queried.code == 2
    assert one_line(queried.err, "error") == f"docir: error: {place}: {message}"
    assert linted.code == 1
    assert f"{place}: DOC020" in linted.out and message in linted.out


def test_a_broken_schema_still_leaves_out_what_its_exclude_list_names(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = with_plain_markdown(tmp_path / "store")
    assert cli("init", "--root", str(root)).code == 0
    schema = root / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("default_status: proposed", "default_status: nonsense"))

    linted = cli("lint", "--root", str(root), "--format", "json")

    assert [f["code"] for f in json.loads(linted.out)["findings"]] == ["DOC020"]


def test_init_again_keeps_a_hand_edited_list_and_says_what_it_leaves_in(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = with_plain_markdown(tmp_path / "store")
    assert cli("init", "--root", str(root)).code == 0
    schema = root / "docs-schema.yaml"
    edited = schema.read_text().replace("  - /README.md\n", "  # the README is ours now\n")
    schema.write_text(edited)
    (root / "docs" / "api" / "later.md").write_text("# Added after init\n")

    again = cli("init", "--root", str(root), "--json")

    assert again.code == 0, again.err
    assert schema.read_text() == edited
    assert again.json()["exclude"] == [] and again.json()["plain_markdown"] == ["docs/README.md"]
    assert again.err.splitlines() == [
        "docir: lint reports 1 existing Markdown file under docs/ without docir frontmatter: list them under "
        "exclude: in docs-schema.yaml, or bring them in with 'docir adopt PATH'"]


def test_init_names_plain_files_one_by_one_in_a_folder_docir_writes_into(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """An ADR folder not yet adopted may be the decisions' own folder: `decisions/**` would hide every
    decision added there later."""
    root = tmp_path / "store"
    (root / "docs" / "decisions").mkdir(parents=True)
    (root / "docs" / "decisions" / "0001-record-decisions.md").write_text("# 1. Record decisions\n")
    (root / "docs" / "site" / "theme").mkdir(parents=True)
    (root / "docs" / "site" / "index.md").write_text("# Home\n")
    (root / "docs" / "site" / "theme" / "notes.md").write_text("# Theme\n")
    (root / "docs" / "guides").mkdir()
    (root / "docs" / "guides" / "ours.md").write_text(DOCUMENT.format(id="adr-0000000000cc", title="Ours",
                                                                      body="Ours."))
    (root / "docs" / "guides" / "theirs.md").write_text("# Theirs\n")

    made = cli("init", "--root", str(root), "--json")

    assert made.json()["exclude"] == ["decisions/0001-record-decisions.md", "guides/theirs.md", "site/**"]
    added = cli("add", "decision", "--title", "Added after init", "--description",
                "A decision docir writes into the folder that held plain Markdown.", "--owner", "@team",
                "--root", str(root), "--json")
    assert added.code == 0, added.err
    listed = ids(cli("query", "--root", str(root), "--json").json())
    assert sorted(listed) == sorted([added.json()["id"], "adr-0000000000cc"])


def test_add_refuses_a_path_the_store_does_not_own(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    schema = store / "docs-schema.yaml"
    schema.write_text(schema.read_text(encoding="utf-8").replace("exclude: []", "exclude: [api/**]"),
                      encoding="utf-8")
    result = cli("add", "decision", "--title", "Use REST", "--description", "The public API is REST over HTTPS.",
                 "--owner", "@api", "--path", "docs/api/use-rest.md", "--root", str(store))
    assert result.code == 2 and "exclude:" in result.err and "Traceback" not in result.err
    assert not (store / "docs" / "api" / "use-rest.md").exists()
