"""adr-tools and docir on one folder, both ways round, with the real `adr` command (docs: adr-0c5e2d8f1a47).

The team keeps typing `adr new`; docir reads what it writes where it lies and blocks no commit, and the
team's tool still reads its folder after docir has been set up. The tool is Debian's `adr-tools` package
(.ci/run installs it); where it is not installed these tests skip and say so, unless DOCIR_REQUIRE_TOOLS=1
asks that they fail.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ADR = shutil.which("adr")
pytestmark = pytest.mark.skipif(
    ADR is None and os.environ.get("DOCIR_REQUIRE_TOOLS") != "1",
    reason="adr-tools is not installed ('apt-get install adr-tools'); the round trip with it is not run")


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EDITOR": "true", "VISUAL": "true", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x.org"}
    return subprocess.run(list(args), cwd=repo, capture_output=True, text=True, env=env, timeout=120)


def ok(repo: Path, *args: str) -> str:
    done = run(repo, *args)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout


def docir(repo: Path, *args: str) -> Any:
    out = ok(repo, sys.executable, "-m", "docir", *args, "--json")
    return json.loads(out)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """adr-tools' own start: `adr init doc/adr` and two records, committed; then `docir init --hooks`."""
    assert ADR is not None, "DOCIR_REQUIRE_TOOLS=1 but adr-tools is not installed"
    root = tmp_path / "repo"
    root.mkdir()
    ok(root, "git", "init", "-q", "-b", "main")
    ok(root, "adr", "init", "doc/adr")
    ok(root, "adr", "new", "Implement as shell scripts")
    ok(root, "adr", "new", "Single command with subcommands")
    ok(root, "git", "add", "-A")
    ok(root, "git", "commit", "-qm", "records")
    return root


def titles(toc: str) -> list[str]:
    return [line.split("](")[0].split("[", 1)[1] for line in toc.splitlines() if line.startswith("* [")]


def test_docir_set_up_changes_nothing_adr_tools_reads(repo: Path) -> None:
    folder = repo / "doc" / "adr"
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}
    toc_before = ok(repo, "adr", "generate", "toc")
    report = docir(repo, "init", "--hooks")
    assert [r["path"] for r in report["records"]] == ["doc/adr"]
    assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()} == before
    assert ok(repo, "adr", "generate", "toc") == toc_before
    assert titles(toc_before) == ["1. Record architecture decisions", "2. Implement as shell scripts",
                                  "3. Single command with subcommands"]
    assert ok(repo, "adr", "list").split() == sorted(f"doc/adr/{name}" for name in before)


def test_adr_new_superseding_is_read_committed_and_ranked(repo: Path) -> None:
    docir(repo, "init", "--hooks")
    ok(repo, "git", "add", "-A")
    ok(repo, "git", "commit", "-qm", "docir")
    ok(repo, "adr", "new", "-s", "2", "Implement in Python")
    ok(repo, "adr", "new", "-l", "3:Amends:Amended by", "Use argparse for subcommands")
    ok(repo, "git", "add", "-A")
    commit = run(repo, "git", "commit", "-qm", "adr new")  # through docir's pre-commit hook
    assert commit.returncode == 0, commit.stdout + commit.stderr
    paths = {d["path"].rsplit("/", 1)[-1][:4]: d for d in docir(repo, "query", "--include-inactive")["results"]}
    old, new, amending = paths["0002"], paths["0004"], paths["0005"]
    assert (old["status"], new["status"], amending["status"]) == ("superseded", "accepted", "accepted")
    assert {"kind": "supersedes", "id": old["id"]} in new["related"]
    assert any(link["id"] == paths["0003"]["id"] for link in amending["related"])
    lint = json.loads(ok(repo, sys.executable, "-m", "docir", "lint", "--format", "json"))
    assert lint["summary"]["errors"] == 0, lint["findings"]
    context = docir(repo, "context", "reimplement adr in Python instead of shell", "--no-refs")
    shown = [r["id"] for r in context["results"]]
    assert new["id"] in shown
    assert old["id"] not in shown  # superseded: never ranked as current
    toc = ok(repo, "adr", "generate", "toc")
    assert titles(toc)[3:] == ["4. Implement in Python", "5. Use argparse for subcommands"]


def test_adr_link_is_read_as_a_typed_link(repo: Path) -> None:
    docir(repo, "init")
    ok(repo, "adr", "link", "3", "Amends", "1", "Amended by")
    found = {d["path"].rsplit("/", 1)[-1][:4]: d for d in docir(repo, "query")["results"]}
    assert found["0003"]["related"] == [{"kind": "amends", "id": found["0001"]["id"]}]


def ids_by_number(repo: Path) -> dict[int, dict[str, Any]]:
    return {int(d["path"].rsplit("/", 1)[-1][:4]): d for d in docir(repo, "query", "--include-inactive")["results"]}


def test_docir_add_writes_a_record_adr_tools_reads_and_marks_the_old_one_in_its_words(repo: Path) -> None:
    docir(repo, "init", "--hooks")
    old = ids_by_number(repo)[2]["id"]
    added = docir(repo, "add", "decision", "--title", "Implement in Python", "--description",
                  "The commands are reimplemented in Python, which is easier to test than shell.",
                  "--status", "accepted", "--related", f"supersedes:{old}")
    assert (added["path"], added["superseded"]) == ("doc/adr/0004-implement-in-python.md", [old])
    assert added["files"] == [added["path"], "doc/adr/0002-implement-as-shell-scripts.md"]  # both to stage
    record = (repo / added["path"]).read_text(encoding="utf-8")
    assert record.startswith("# 4. Implement in Python\n\nDate: ")
    assert "\n## Status\n\nAccepted\n\nSupersedes [2. Implement as shell scripts]" \
           "(0002-implement-as-shell-scripts.md)\n" in record
    replaced = (repo / "doc/adr/0002-implement-as-shell-scripts.md").read_text(encoding="utf-8")
    assert "\n## Status\n\nSuperseded by [4. Implement in Python](0004-implement-in-python.md)\n\n## Context" \
           in replaced  # as `adr new -s 2` leaves it: "Accepted" gone, the link line in its place
    # adr-tools reads docir's record as its own: title, list, and its links.
    assert titles(ok(repo, "adr", "generate", "toc"))[-1] == "4. Implement in Python"
    assert "doc/adr/0004-implement-in-python.md" in ok(repo, "adr", "list").split()
    assert "Implement_in_Python" in ok(repo, "adr", "generate", "graph") or "Implement in Python" in ok(
        repo, "adr", "generate", "graph")
    # ... and docir reads it back as it wrote it, the replaced record hidden, lint clean, commit through the hook.
    found = ids_by_number(repo)
    assert (found[2]["status"], found[4]["status"], found[4]["id"]) == ("superseded", "accepted", added["id"])
    ok(repo, "git", "add", "-A")
    commit = run(repo, "git", "commit", "-qm", "Implement in Python")
    assert commit.returncode == 0, commit.stdout + commit.stderr
    # adr-tools keeps numbering after docir's record.
    ok(repo, "adr", "new", "Use argparse")
    assert (repo / "doc/adr/0005-use-argparse.md").is_file()


def test_a_proposed_record_replaces_its_predecessor_when_accepted(repo: Path) -> None:
    docir(repo, "init")
    old = ids_by_number(repo)[3]["id"]
    added = docir(repo, "add", "decision", "--title", "Subcommands as plugins", "--description",
                  "Each subcommand is a plugin found on the PATH, so teams can add their own.",
                  "--related", f"supersedes:{old}")
    assert (added["superseded"], added["replaces_when_accepted"]) == ([], [old])
    assert ids_by_number(repo)[3]["status"] == "accepted"
    assert "\n## Status\n\nProposed\n" in (repo / added["path"]).read_text(encoding="utf-8")
    accepted = docir(repo, "update", added["id"], "--status", "accepted")
    assert accepted["superseded"] == [old]
    assert accepted["files"] == [added["path"], "doc/adr/0003-single-command-with-subcommands.md"], accepted
    assert "\n## Status\n\nAccepted\n" in (repo / added["path"]).read_text(encoding="utf-8")
    assert ids_by_number(repo)[3]["status"] == "superseded"
    assert titles(ok(repo, "adr", "generate", "toc"))[-1] == "4. Subcommands as plugins"
