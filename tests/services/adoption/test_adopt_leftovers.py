"""What real folders left adopt to mend: a status still in the template's braces, a title still the template's
placeholder over a body a person wrote, a date no one can read, and the id a Docusaurus site names a page by.

Each record is written the way a team writes it from MADR's template (MADR 3/4 frontmatter) or by hand
after adr-tools; each folder is adopted in a real git repository, then linted, as a team does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from docir.documents.records import reading

SESSIONS = """---
status: {status}
date: 2024-04-02
deciders: Anna Svensson, Ravi Patel
---
# Use PostgreSQL for sessions

## Context and Problem Statement

Sessions live in the memory of each web node, so a deploy logs every user out and a node that dies takes
its sessions with it. We need one shared store for sessions that survives a deploy.

## Considered Options

* PostgreSQL
* Redis
* Sticky sessions

## Decision Outcome

Chosen option: "PostgreSQL", because we already run it with backups and failover, and sessions add a few
hundred writes a second.
"""

# A record begun from MADR 4's template whose author wrote the sections but never the title line.
UNTITLED = """---
{title}status: accepted
date: 2024-04-02
---

# {{short title, representative of solved problem and found solution}}

## Context and Problem Statement

Sessions live in the memory of each web node, so a deploy logs every user out and a node that dies takes
its sessions with it. We need one shared store for sessions that survives a deploy.

## Decision Outcome

Chosen option: "PostgreSQL", because we already run it with backups and failover.
"""

# The same template, copied and given a status, but not one word of its own.
UNWRITTEN = """---
status: proposed
date: 2024-04-09
---

# {short title, representative of solved problem and found solution}

## Context and Problem Statement

{Describe the context and problem statement, e.g., in free form using two to three sentences or in the form of
an illustrative story. You may want to articulate the problem in form of a question and add links to
collaboration boards or issue management systems.}

<!-- This is an optional element. Feel free to remove. -->
## Decision Drivers

* {decision driver 1, e.g., a force, facing concern, …}
* {decision driver 2, e.g., a force, facing concern, …}

## Considered Options

* {title of option 1}
* {title of option 2}

## Decision Outcome

Chosen option: "{title of option 1}", because {justification. e.g., only option, which meets k.o. criterion
decision driver | which resolves force {force} | … | comes out best (see below)}.

### Consequences

* Good, because {positive consequence, e.g., improvement of one or more desired qualities, …}
* Bad, because {negative consequence, e.g., compromising one or more desired qualities, …}
"""

# adr-tools' own layout, written by hand: a Date line and a Status section.
NYGARD = """# 3. Expire idle sessions after a day

Date: 2024-04-10

## Status

Accepted

## Context

A session store that keeps every session for ever grows without bound, and old sessions are a risk.

## Decision

Sessions idle for 24 hours are deleted by a nightly job.
"""

# A Docusaurus site's record: its `id` names the page in sidebars and gives its URL.
DOCUSAURUS = """---
id: {team_id}
title: Use PostgreSQL for sessions
sidebar_label: Sessions in PostgreSQL
{slug}status: accepted
date: 2024-04-02
---

## Context and Problem Statement

Sessions live in the memory of each web node, so a deploy logs every user out and a node that dies takes
its sessions with it. We need one shared store for sessions that survives a deploy.

## Decision Outcome

Chosen option: "PostgreSQL", because we already run it with backups and failover.
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def front(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    loaded = yaml.safe_load(text.split("---\n", 2)[1]) if text.startswith("---\n") else {}
    return loaded if isinstance(loaded, dict) else {}


@pytest.fixture
def repo(tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository: the team's folder goes in before `docir init`, as in a repository that has one."""
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    monkeypatch.chdir(root)
    return root


def adopt(cli: Any, repo: Path, files: dict[str, str]) -> tuple[Path, dict[str, Any]]:
    """`files` in the repository's docs/adr, committed; `docir init` (which reads the folder where it lies),
    then `docir adopt` of it."""
    folder = repo / "docs" / "adr"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the team's records")
    assert cli("init").code == 0
    result = cli("adopt", "docs/adr", "--owner", "@arch", "--json")
    assert result.code == 0, result.err
    report: dict[str, Any] = result.json()
    return folder, report


def lint_errors(cli: Any) -> list[tuple[str, str]]:
    findings = cli("lint", "--format", "json").json()["findings"]
    return [(f["code"], f["path"].rsplit("/", 1)[-1]) for f in findings if f["severity"] == "error"]


def documents(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {Path(d["path"]).name: d for d in report["documents"]}


@pytest.mark.parametrize("word", ["accepted", "rejected", "deprecated"])
def test_a_status_left_in_the_templates_braces_is_the_status(cli: Any, repo: Path, word: str) -> None:
    folder, report = adopt(cli, repo, {"0001-use-postgres-for-sessions.md": SESSIONS.format(status=f"{{ {word} }}")})
    meta = front(folder / "0001-use-postgres-for-sessions.md")
    assert (meta["status"], meta["status_original"]) == (word, {word: None})  # kept as written: `{ accepted }`
    assert f"status_original: {{ {word} }}\n" in (folder / "0001-use-postgres-for-sessions.md").read_text()
    assert "status" not in documents(report)["0001-use-postgres-for-sessions.md"]["review"]
    assert lint_errors(cli) == []


def test_a_status_in_braces_reads_the_same_in_place(tmp_path: Path) -> None:
    path = tmp_path / "0001-use-postgres-for-sessions.md"
    path.write_text(SESSIONS.format(status="{accepted}"), encoding="utf-8")
    read = reading.read(path).status
    assert read is not None and (read.word, read.unknown) == ("accepted", False)


def test_a_record_under_the_templates_title_is_adopted_and_a_bare_template_is_not(cli: Any, repo: Path) -> None:
    folder, report = adopt(cli, repo, {
        "0007-use-postgres-for-sessions.md": UNTITLED.format(title=""),
        "0008-sessions-in-postgres.md": UNTITLED.format(title="title: Keep sessions in PostgreSQL\n"),
        "0009-new-decision.md": UNWRITTEN,
        "0010-show-the-title-in-the-header.md": NYGARD.replace("3. Expire idle sessions after a day",
                                                               "10. Show the title in the header"),
    })
    named, titled = front(folder / "0007-use-postgres-for-sessions.md"), front(folder / "0008-sessions-in-postgres.md")
    assert named["title"] == "Use postgres for sessions"  # from the file's name
    assert titled["title"] == "Keep sessions in PostgreSQL"  # from its frontmatter
    assert "title" in named["review"] and "title" in titled["review"]
    plain = front(folder / "0010-show-the-title-in-the-header.md")  # a title that says "title" is no placeholder
    assert plain["title"] == "Show the title in the header" and "title" not in plain.get("review", [])
    why = documents(report)["0007-use-postgres-for-sessions.md"]["review"]["title"]
    assert "placeholder" in why and "file name" in why
    assert {Path(s["path"]).name: s["reason"] for s in report["skipped"]} == {
        "0009-new-decision.md": "a template: its title is a placeholder"}
    assert lint_errors(cli) == []


def test_a_date_no_one_can_read_is_left_out_flagged_and_lint_passes(cli: Any, repo: Path) -> None:
    folder, report = adopt(cli, repo, {
        "0001-use-postgres-for-sessions.md": SESSIONS.format(status="accepted").replace(
            "date: 2024-04-02", "date: 2024-023-2706"),
        "0003-expire-idle-sessions-after-a-day.md": NYGARD.replace("Date: 2024-04-10", "Date: 2024-023-2706"),
    })
    for name in ("0001-use-postgres-for-sessions.md", "0003-expire-idle-sessions-after-a-day.md"):
        meta = front(folder / name)
        assert "date" not in meta and meta["date_original"] == "2024-023-2706", name
        assert "date" in meta["review"], name
        said = documents(report)[name]
        assert said["date"] is None and "2024-023-2706" in said["review"]["date"], name
    assert report["lint"]["errors"] == 0 and report["review"]["date"] == 2
    assert lint_errors(cli) == []


def test_a_docusaurus_id_keeps_its_page_where_the_site_has_it(cli: Any, repo: Path) -> None:
    folder, report = adopt(cli, repo, {
        "0001-use-postgres-for-sessions.md": DOCUSAURUS.format(team_id="sessions-in-postgres", slug=""),
        "0002-expire-sessions.md": DOCUSAURUS.format(team_id="expire-sessions", slug="slug: /sessions/expiry\n"),
    })
    meta = front(folder / "0001-use-postgres-for-sessions.md")
    assert meta["id"].startswith("adr-") and meta["id_original"] == "sessions-in-postgres"
    assert meta["slug"] == "sessions-in-postgres"  # relative: the folder, then the old id, as the id gave it
    said = documents(report)["0001-use-postgres-for-sessions.md"]
    assert "slug" in said["added"] and "sessions-in-postgres" in said["review"]["id"]
    kept = front(folder / "0002-expire-sessions.md")  # the site gives it its URL by its own slug already
    assert (kept["slug"], kept["id_original"]) == ("/sessions/expiry", "expire-sessions")
    assert cli("get", meta["id"], "--json").code == 0
    assert lint_errors(cli) == []


def test_a_record_read_in_place_keeps_its_own_id(cli: Any, repo: Path) -> None:
    folder = repo / "docs" / "decisions"
    folder.mkdir(parents=True)
    path = folder / "0001-use-postgres-for-sessions.md"
    path.write_text(DOCUSAURUS.format(team_id="sessions-in-postgres", slug=""), encoding="utf-8")
    assert cli("init").code == 0  # finds the folder: read in place from now on
    found = cli("query", "--json").json()["results"]
    assert [d["path"] for d in found] == ["docs/decisions/0001-use-postgres-for-sessions.md"]
    assert cli("update", found[0]["id"], "--status", "deprecated").code == 0
    added = cli("add", "decision", "--title", "Keep sessions in Redis", "--description",
                "Sessions move to Redis, which expires them by itself and is already in every region.",
                "--status", "accepted", "--related", f"supersedes:{found[0]['id']}", "--json")
    assert added.code == 0, added.err
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\nid: sessions-in-postgres\n") and "id_original" not in text
    assert lint_errors(cli) == []


@pytest.mark.parametrize("text", [
    # adr-tools' template, copied under a record's name: its sections hold the template's own sentences.
    "# 4. TITLE\n\nDate: DATE\n\n## Status\n\nSTATUS\n\n## Context\n\nThe issue motivating this decision, and any "
    "context that influences or constrains the decision.\n\n## Decision\n\nThe change that we're proposing or have "
    "agreed to implement.\n\n## Consequences\n\nWhat becomes easier or more difficult to do and any risks or "
    "mitigations that need to be considered.\n",
    # MADR 2's template with only its status filled in.
    "# [short title of solved problem and solution]\n\n* Status: proposed\n* Deciders: [list everyone involved in "
    "the decision] <!-- optional -->\n\nTechnical Story: [description | ticket/issue URL] <!-- optional -->\n\n"
    "## Context and Problem Statement\n\n[Describe the context and problem statement, e.g., in free form using two "
    "to three sentences. You may want to articulate the problem in form of a question.]\n\n## Decision Outcome\n\n"
    "Chosen option: \"[option 1]\", because [justification. e.g., only option, which meets k.o. criterion decision "
    "driver | which resolves force force | … | comes out best (see below)].\n",
])
def test_a_template_under_a_records_name_is_still_a_template(tmp_path: Path, text: str) -> None:
    src = reading.parse(tmp_path / "0004-new-decision.md", text)
    assert (src.kind, src.reason) == ("other", "a template: its title is a placeholder")
