"""log4brains and docir on one folder, both ways round, with the real `log4brains` CLI (docs: adr-0c5e2d8f1a47).

The team keeps typing `log4brains adr new`; docir reads what it writes where it lies, and log4brains lists
the records docir writes, with their status. The CLI is npm's `log4brains` (.ci/run installs it and puts it
on PATH); where it is not installed these tests skip and say so, unless DOCIR_REQUIRE_TOOLS=1 asks that
they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TOOL = shutil.which("log4brains")
pytestmark = pytest.mark.skipif(
    TOOL is None and os.environ.get("DOCIR_REQUIRE_TOOLS") != "1",
    reason="log4brains is not installed ('npm install log4brains', then put it on PATH); its round trip is not run")


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x.org", "NO_COLOR": "1", "FORCE_COLOR": "0"}
    return subprocess.run(list(args), cwd=repo, capture_output=True, text=True, env=env, timeout=300)


def ok(repo: Path, *args: str) -> str:
    done = run(repo, *args)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout


def docir(repo: Path, *args: str) -> Any:
    return json.loads(ok(repo, sys.executable, "-m", "docir", *args, "--json"))


def listed(repo: Path) -> dict[str, str]:
    """log4brains' own list: each record's slug and its status as log4brains reads it."""
    rows = [line.split(",") for line in ok(repo, "log4brains", "adr", "list", "--raw").splitlines() if "," in line]
    return {row[0]: row[1] for row in rows}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """log4brains' own start: `log4brains init --defaults` and one record made by `adr new`, committed."""
    assert TOOL is not None, "DOCIR_REQUIRE_TOOLS=1 but log4brains is not installed"
    root = tmp_path / "repo"
    root.mkdir()
    (root / "package.json").write_text('{"name": "shop", "version": "1.0.0"}\n', encoding="utf-8")
    ok(root, "git", "init", "-q", "-b", "main")
    ok(root, "log4brains", "init", "--defaults")
    ok(root, "git", "add", "-A")
    ok(root, "git", "commit", "-qm", "log4brains")
    ok(root, "log4brains", "adr", "new", "--quiet", "Use PostgreSQL for orders")
    ok(root, "git", "add", "-A")
    ok(root, "git", "commit", "-qm", "a record")
    return root


def test_log4brains_records_are_read_and_docir_writes_are_listed_by_log4brains(repo: Path) -> None:
    report = docir(repo, "init", "--hooks")
    assert [(r["path"], r["format"]) for r in report["records"]] == [("docs/adr", "log4brains")]
    found = {d["title"]: d for d in docir(repo, "query", "--include-inactive")["results"]}
    # init's own first record and the one made since; not the README, index page or template beside them
    assert sorted(found) == ["Use Log4brains to manage the ADRs", "Use PostgreSQL for orders"]
    assert {d["status"] for d in found.values()} == {"proposed"}  # their status still lists the template's choices
    path = found["Use PostgreSQL for orders"]["path"]
    # The team decides: the record's own status line, as log4brains' template has it.
    record = repo / path
    text = record.read_text(encoding="utf-8")
    start = text.index("- Status:")
    record.write_text(text[:start] + "- Status: accepted" + text[text.index("\n", start):], encoding="utf-8")
    old = found["Use PostgreSQL for orders"]["id"]
    added = docir(repo, "add", "decision", "--title", "Use CockroachDB for orders", "--description",
                  "Orders move to CockroachDB, which survives the loss of a region without a failover.",
                  "--status", "accepted", "--related", f"supersedes:{old}")
    assert added["superseded"] == [old]
    new_slug = Path(added["path"]).stem
    statuses = listed(repo)
    assert statuses[new_slug] == "ACCEPTED"
    assert statuses[Path(path).stem] == "SUPERSEDED"
    assert "- Status: superseded by [Use CockroachDB for orders]" in record.read_text(encoding="utf-8")
    ok(repo, "git", "add", "-A")
    commit = run(repo, "git", "commit", "-qm", "CockroachDB")
    assert commit.returncode == 0, commit.stdout + commit.stderr
    shown = [r["id"] for r in docir(repo, "context", "which database keeps the orders", "--no-refs")["results"]]
    assert added["id"] in shown and old not in shown
