"""DOC026: relative links in a document's body, to files and to their headings, checked (adr-0c5e2d8f1a47)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from docir.documents.body_links import anchors, links

BODY = """## Context

See [ADR 7](0007-use-postgres.md), [its decision](0007-use-postgres.md#decision-outcome) and
[the rollout](#rollout-plan). ![Diagram](img/flow.png)

```text
[in a fence](missing-in-fence.md)
```

Inline code `[not a link](nope.md)`, a footnote[^1], [a site](https://example.org/x.md) and
[mail](mailto:a@b.c) are not checked. <!-- [in a comment](gone.md) -->

[ref]: ../guides/setup.md#install
[^1]: Inside joke, not a link definition.

## Rollout plan

Soon.
"""


def test_links_are_read_as_a_renderer_reads_them() -> None:
    found = [(link.line, link.target, link.anchor) for link in links(BODY)]
    assert found == [(3, "0007-use-postgres.md", None), (3, "0007-use-postgres.md", "decision-outcome"),
                     (4, "", "rollout-plan"), (4, "img/flow.png", None), (13, "../guides/setup.md", "install")]


def test_anchors_are_the_slugs_a_git_host_gives() -> None:
    assert anchors("## Decision Outcome\n\n## Pros & Cons: `x`\n\n## Decision Outcome\n") == {
        "decision-outcome", "pros--cons-x", "decision-outcome-1"}


RECORD = """# 8. Use a queue

Date: 2024-03-01

## Status

Accepted

Amends [7. Use Postgres]({target})

## Context

Orders arrive in bursts; see [the plan](#context) and [the outcome]({target}#{anchor}).
"""
SEVEN = "# 7. Use Postgres\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n## Decision Outcome\n\nPostgres.\n"


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any) -> Path:
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}.items():
        monkeypatch.setenv(key, value)
    repo = tmp_path / "repo"
    (repo / "doc" / "adr").mkdir(parents=True)
    (repo / ".adr-dir").write_text("doc/adr\n", encoding="utf-8")
    (repo / "doc" / "adr" / "0007-use-postgres.md").write_text(SEVEN, encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    monkeypatch.chdir(repo)
    assert cli("init", "--hooks").code == 0
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=repo, check=True)
    return repo


def commit(repo: Path, target: str, anchor: str) -> subprocess.CompletedProcess[str]:
    (repo / "doc" / "adr" / "0008-use-a-queue.md").write_text(RECORD.format(target=target, anchor=anchor),
                                                              encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    return subprocess.run(["git", "commit", "-qm", "record 8"], cwd=repo, capture_output=True, text=True)


def test_a_broken_link_in_a_staged_record_blocks_the_commit_at_its_line(records: Path) -> None:
    refused = commit(records, "0007-use-postgress.md", "decision-outcome")
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert "doc/adr/0008-use-a-queue.md:9:1: DOC026 links to 0007-use-postgress.md, which does not exist" in said
    assert "doc/adr/0008-use-a-queue.md:13:1: DOC026" in said


def test_a_link_to_a_missing_heading_blocks_it_and_a_good_one_passes(records: Path) -> None:
    refused = commit(records, "0007-use-postgres.md", "decision")
    assert refused.returncode != 0
    assert ("doc/adr/0008-use-a-queue.md:13:1: DOC026 links to #decision in 0007-use-postgres.md, which has "
            "no such heading") in refused.stdout + refused.stderr
    done = commit(records, "0007-use-postgres.md", "decision-outcome")
    assert done.returncode == 0, done.stdout + done.stderr
