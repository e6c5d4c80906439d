"""The first five minutes: `add` works without --owner in a git repository, and tells a person what is next."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.helpers import frontmatter_of, one_line

DESCRIPTION = "Session signing keys rotate every Monday; two stay valid during the overlap."


@pytest.fixture(autouse=True)
def _no_system_git_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")  # HOME is a temp folder already: only the repository's config


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def add(cli, root: Path, *extra: str):  # type: ignore[no-untyped-def]
    return cli("add", "decision", "--title", "Rotate session keys weekly", "--description", DESCRIPTION,
               "--root", str(root), "--json", *extra)


def test_add_without_owner_takes_the_git_users_email_and_says_so(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    git(store, "init", "-q")
    git(store, "config", "user.email", "ana@example.com")
    git(store, "config", "user.name", "Ana")
    result = add(cli, store)
    assert result.code == 0, result.err
    assert frontmatter_of(store / result.json()["path"])["owner"] == "ana@example.com"
    line = one_line(result.err, "warning")
    assert "ana@example.com" in line and "--owner" in line
    given = add(cli, store, "--owner", "@platform", "--path", "docs/decisions/other.md")
    assert given.code == 0 and given.err == ""
    assert frontmatter_of(store / "docs/decisions/other.md")["owner"] == "@platform"


def test_add_without_owner_falls_back_to_the_git_users_name(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    git(store, "init", "-q")
    git(store, "config", "user.name", "Ana Lima")
    result = add(cli, store)
    assert result.code == 0, result.err
    assert frontmatter_of(store / result.json()["path"])["owner"] == "Ana Lima"


def test_add_without_owner_or_git_user_is_one_usage_error(cli, store: Path,  # type: ignore[no-untyped-def]
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(store.parent))
    result = add(cli, store)
    assert result.code == 2
    line = one_line(result.err, "error")
    assert "--owner" in line and "user.email" in line
    assert not list((store / "docs" / "decisions").glob("*.md"))


def test_add_on_a_terminal_prints_the_next_command(cli, store: Path,  # type: ignore[no-untyped-def]
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("docir.invocation.Invocation.wants_json", lambda call: call.json)  # as on a terminal
    result = cli("add", "decision", "--title", "Rotate session keys weekly", "--description", DESCRIPTION,
                 "--owner", "@platform", "--root", str(store))
    assert result.code == 0, result.err
    created, hint = result.out.splitlines()
    doc_id, path = created.split()
    assert hint.startswith("next: ") and f"docir update {doc_id} --replace-body" in hint and f"lint {path}" in hint
    with_body = cli("add", "decision", "--title", "Keep two keys valid", "--description", DESCRIPTION,
                    "--owner", "@platform", "--body", "## Decision\n\nTwo keys.", "--root", str(store))
    path = with_body.out.split()[1]
    assert with_body.out.splitlines()[1] == f"next: docir lint {path} && git add {path}"
    # A write that marks another document superseded names both files: staging the new one alone would
    # commit the successor without the replaced document's status.
    replaced_id, replaced = with_body.out.split()[:2]
    successor = cli("add", "decision", "--title", "Keep three keys valid", "--description", DESCRIPTION,
                    "--owner", "@platform", "--status", "accepted", "--related", f"supersedes:{replaced_id}",
                    "--body", "## Decision\n\nThree keys.", "--root", str(store))
    new = successor.out.split()[1]
    assert successor.out.splitlines()[1] == f"next: docir lint {new} {replaced} && git add {new} {replaced}"
    monkeypatch.chdir(store / "docs")  # paths as the caller's shell sees them
    inside = cli("add", "decision", "--title", "Keep four keys valid", "--description", DESCRIPTION,
                 "--owner", "@platform", "--body", "## Decision\n\nFour keys.", "--root", str(store))
    assert inside.out.split()[1].startswith("decisions/") and (store / "docs" / inside.out.split()[1]).is_file()


def test_adopt_without_owner_takes_the_git_user_too(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    git(store, "init", "-q")
    git(store, "config", "user.email", "ana@example.com")
    folder = store / "docs" / "adr"
    folder.mkdir(parents=True)
    (folder / "0001-use-x.md").write_text("# Use x\n\n## Context\n\nWe needed x for the service that does y.\n")
    result = cli("adopt", str(folder), "--root", str(store))
    assert result.code == 0, result.err
    assert frontmatter_of(folder / "0001-use-x.md")["owner"] == "ana@example.com"
    assert "ana@example.com" in one_line(result.err, "warning")


def test_a_flush_off_a_terminal_says_each_stage_on_stderr_and_its_json_stays_whole(
        cli, store: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    for n in range(3):
        assert cli("add", "decision", "--title", f"Rotate keys every {n + 2} weeks", "--description", DESCRIPTION,
                   "--owner", "@platform", "--body", f"## Decision\n\nEvery {n + 2} weeks.\n\n## Why\n\nLeaks.",
                   "--root", str(store)).code == 0
    flushed = cli("embed", "--flush", "--root", str(store))
    assert flushed.code == 0, flushed.err
    assert json.loads(flushed.out)["due"] == 0  # stdout is the JSON alone
    stages = [line for line in flushed.err.splitlines() if line.startswith("docir: embedding: ")]
    # Before the first slice's seconds: what it is doing, then what is due; one line each, none per slice.
    assert stages[:2] == ["docir: embedding: loading the model", "docir: embedding: documents, 3 texts due"], stages
    assert len(stages) == len(set(stages))
