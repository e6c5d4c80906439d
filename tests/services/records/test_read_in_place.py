"""Folders of decision records read where they lie, in their team's format (docs: adr-0c5e2d8f1a47).

Real git repositories in temp folders, docir run in-process through its entry point. The records are
written the way adr-tools, MADR and log4brains write them; tests/git/test_adr_tools_round_trip.py runs
the real tools.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from docir.documents.records.in_place import record_id
from docir.documents.records.names import RecordFolder
from docir.schema import parse_schema

NYGARD = """# {n}. {title}

Date: 2024-03-0{n}

## Status

{status}

## Context

{context}

## Decision

We will {title_lower}.

## Consequences

Everyone knows where the decision lives.
"""

MADR2 = """# {title}

* Status: {status}
* Date: 2024-05-01

## Context and Problem Statement

{context}

## Decision Outcome

Chosen option: "{title}", because it is the simplest thing that works.
"""


def nygard(n: int, title: str, status: str = "Accepted", context: str = "") -> str:
    context = context or f"The team needs to settle {title.lower()} before the next release of the service."
    return NYGARD.format(n=n, title=title, status=status, context=context, title_lower=title.lower())


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def adr_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository as adr-tools leaves it: `.adr-dir` naming doc/adr, three records, 2 superseded by 3."""
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}.items():
        monkeypatch.setenv(key, value)
    repo = tmp_path / "repo"
    folder = repo / "doc" / "adr"
    folder.mkdir(parents=True)
    (repo / ".adr-dir").write_text("doc/adr\n", encoding="utf-8")
    (folder / "0001-record-architecture-decisions.md").write_text(
        nygard(1, "Record architecture decisions"), encoding="utf-8")
    (folder / "0002-implement-as-shell-scripts.md").write_text(nygard(
        2, "Implement as shell scripts",
        "Superseded by [3. Implement in Python](0003-implement-in-python.md)",
        "The tool is a handful of commands that create and link Markdown files from a shell."), encoding="utf-8")
    (folder / "0003-implement-in-python.md").write_text(nygard(
        3, "Implement in Python",
        "Accepted\n\nSupersedes [2. Implement as shell scripts](0002-implement-as-shell-scripts.md)",
        "Shell scripts grew hard to test, so the commands are reimplemented in Python instead of shell."),
        encoding="utf-8")
    (folder / "README.md").write_text("# Decisions\n\nSee the records in this folder.\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "records")
    monkeypatch.chdir(repo)
    return repo


def listed(cli: Any, *args: str) -> dict[str, dict[str, Any]]:
    result = cli("query", "--json", *args)
    assert result.code == 0, result.err
    return {item["path"]: item for item in result.json()["results"]}


def test_init_finds_the_folder_and_changes_no_record(adr_repo: Path, cli: Any) -> None:
    before = digests(adr_repo / "doc" / "adr")
    result = cli("init", "--json")
    assert result.code == 0, result.err
    report = result.json()
    assert report["records"] == [{"path": "doc/adr", "format": "adr-tools", "records": 3, "source": ".adr-dir"}]
    assert report["excluded"] == []
    assert digests(adr_repo / "doc" / "adr") == before
    assert git(adr_repo, "status", "--porcelain", "--", "doc") == ""
    schema, problems = parse_schema((adr_repo / "docs-schema.yaml").read_text(encoding="utf-8"))
    assert problems == [] and schema is not None
    assert schema.records == (RecordFolder("doc/adr", "decision", "adr-tools"),)


def test_every_record_is_found_once_with_its_status_and_links(adr_repo: Path, cli: Any) -> None:
    cli("init")
    everything = listed(cli, "--include-inactive")
    paths = sorted(everything)
    assert paths == [f"doc/adr/000{n}-{s}.md" for n, s in (
        (1, "record-architecture-decisions"), (2, "implement-as-shell-scripts"), (3, "implement-in-python"))]
    old, new = everything[paths[1]], everything[paths[2]]
    assert (old["status"], new["status"]) == ("superseded", "accepted")
    assert new["related"] == [{"kind": "supersedes", "id": old["id"]}]
    assert old["title"] == "Implement as shell scripts"  # no "2." and no adr-tools heading marks
    # Hidden by default: a superseded record is never listed as current.
    assert paths[1] not in listed(cli)
    lint = cli("lint", "--format", "json")
    assert lint.code == 0, lint.out


def test_ids_come_from_the_file_names_and_numbers_name_records(adr_repo: Path, cli: Any) -> None:
    cli("init")
    folder = RecordFolder("doc/adr", "decision", "adr-tools")
    path = "doc/adr/0002-implement-as-shell-scripts.md"
    expected = record_id("adr", folder, path)
    assert listed(cli, "--include-inactive")[path]["id"] == expected
    for ref in (expected, "2", "ADR 2", "adr-0002"):
        got = cli("get", ref, "--json")
        assert got.code == 0, (ref, got.err)
        assert [d["id"] for d in got.json()["documents"]] == [expected], ref


def test_a_record_written_after_init_is_read_with_no_docir_command(adr_repo: Path, cli: Any) -> None:
    cli("init")
    assert len(listed(cli)) == 2
    (adr_repo / "doc" / "adr" / "0004-use-json-for-output.md").write_text(
        nygard(4, "Use JSON for output", "Proposed"), encoding="utf-8")
    found = listed(cli)
    assert found["doc/adr/0004-use-json-for-output.md"]["status"] == "proposed"
    assert cli("lint").code == 0


def test_furniture_in_the_folder_is_no_record_and_no_error(adr_repo: Path, cli: Any) -> None:
    (adr_repo / "doc" / "adr" / "template.md").write_text("# N. Title\n\n## Status\n\nProposed | Accepted\n",
                                                          encoding="utf-8")
    cli("init")
    assert all(not p.endswith(("README.md", "template.md")) for p in listed(cli, "--include-inactive"))
    lint = cli("lint", "--format", "json")
    assert lint.code == 0, lint.out


def test_a_record_with_docirs_own_frontmatter_is_read_as_written(adr_repo: Path, cli: Any) -> None:
    cli("init")
    own = adr_repo / "doc" / "adr" / "0005-own.md"
    own.write_text("---\nid: adr-5555555555aa\ntype: decision\ntitle: Written by docir\n"
                   "description: A record that carries docir's frontmatter, read as it is written.\n"
                   "status: accepted\nowner: '@team'\n---\n\n## Decision\n\nKept.\n", encoding="utf-8")
    found = listed(cli)["doc/adr/0005-own.md"]
    assert (found["id"], found["title"], found["owner"]) == ("adr-5555555555aa", "Written by docir", "@team")


def test_the_folder_inside_docs_keeps_its_readme_out(tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "madr"
    folder = repo / "docs" / "adr"
    folder.mkdir(parents=True)
    (folder / "0001-use-postgres.md").write_text(MADR2.format(
        title="Use PostgreSQL", status="accepted", context="Orders need a transactional store."), encoding="utf-8")
    (folder / "0002-use-mongodb.md").write_text(MADR2.format(
        title="Use MongoDB", status="rejected", context="A document store was proposed for orders."),
        encoding="utf-8")
    (folder / "README.md").write_text("# ADRs\n\n* [Use PostgreSQL](0001-use-postgres.md)\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    report = cli("init", "--json").json()
    assert report["records"] == [{"path": "docs/adr", "format": "madr", "records": 2, "source": "usual place"}]
    assert (report["exclude"], report["excluded"]) == ([], [])  # its README is no record: nothing to leave out
    found = listed(cli, "--include-inactive")
    assert {p: d["status"] for p, d in found.items()} == {"docs/adr/0001-use-postgres.md": "accepted",
                                                          "docs/adr/0002-use-mongodb.md": "rejected"}
    assert cli("lint").code == 0


def test_log4brains_packages_are_read_where_they_lie(tmp_path: Path, cli: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "mono"
    (repo / "docs" / "adr").mkdir(parents=True)
    (repo / "packages" / "billing" / "adr").mkdir(parents=True)
    (repo / ".log4brains.yml").write_text(
        "project:\n  name: mono\n  tz: Europe/Paris\n  adrFolder: ./docs/adr\n  packages:\n"
        "    - name: billing\n      path: ./packages/billing\n      adrFolder: ./packages/billing/adr\n",
        encoding="utf-8")
    (repo / "docs" / "adr" / "20240101-use-log4brains.md").write_text(MADR2.format(
        title="Use Log4brains to manage the ADRs", status="accepted",
        context="We want to record decisions and publish them as a static site."), encoding="utf-8")
    (repo / "packages" / "billing" / "adr" / "20240202-invoice-numbers.md").write_text(MADR2.format(
        title="Number invoices per year", status="accepted",
        context="Invoices need gapless numbers that restart every year."), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    report = cli("init", "--json").json()
    assert [(r["path"], r["format"], r["source"]) for r in report["records"]] == [
        ("docs/adr", "log4brains", ".log4brains.yml"), ("packages/billing/adr", "log4brains", ".log4brains.yml")]
    assert sorted(listed(cli)) == ["docs/adr/20240101-use-log4brains.md",
                                   "packages/billing/adr/20240202-invoice-numbers.md"]
    context = cli("context", "gapless invoice numbering per year", "--json")
    assert context.code == 0, context.err
    assert context.json()["results"][0]["path"] == "packages/billing/adr/20240202-invoice-numbers.md"


def test_a_schema_change_reads_the_records_again(adr_repo: Path, cli: Any) -> None:
    """What a record reads as follows the schema: a type given another prefix names every record anew at
    once, though no record file changed (the index keeps what its rows were read with)."""
    cli("init")
    assert all(d["id"].startswith("adr-") for d in listed(cli, "--include-inactive").values())
    schema = adr_repo / "docs-schema.yaml"
    schema.write_text(schema.read_text(encoding="utf-8").replace("prefix: adr", "prefix: dec"), encoding="utf-8")
    after = listed(cli, "--include-inactive")
    assert len(after) == 3 and all(d["id"].startswith("dec-") for d in after.values())


def test_a_commit_of_a_new_record_passes_the_hook(adr_repo: Path, cli: Any) -> None:
    cli("init", "--hooks")
    git(adr_repo, "add", "-A")
    git(adr_repo, "commit", "-qm", "docir")
    (adr_repo / "doc" / "adr" / "0004-no-frontmatter.md").write_text(nygard(4, "Keep the records plain"),
                                                                     encoding="utf-8")
    git(adr_repo, "add", "-A")
    done = subprocess.run(["git", "commit", "-qm", "record 4"], cwd=adr_repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert git(adr_repo, "log", "-1", "--format=%s").strip() == "record 4"


@pytest.mark.parametrize(("entry", "message"), [
    ("{path: /abs, format: madr}", "must be a folder relative to the store root"),
    ("{path: ../up, format: madr}", "must be a folder relative to the store root"),
    ("{path: doc/adr, type: nope, format: madr}", "is not a type of this schema"),
    ("{path: doc/adr, format: nygard}", "use one of adr-tools, madr, log4brains"),
    ("{path: doc/adr, format: madr, colour: red}", "unknown key 'colour'"),
])
def test_a_records_entry_is_checked(entry: str, message: str) -> None:
    from docir.schema import default_schema_text

    schema, problems = parse_schema(default_schema_text() + f"\nrecords:\n  - {entry}\n")
    assert any(message in p.message for p in problems), [p.message for p in problems]
    assert json.dumps([p.line for p in problems])  # every problem has its line


def test_numbers_name_records_in_links_as_they_do_in_get(adr_repo: Path, cli: Any) -> None:
    cli("init")
    first = listed(cli)["doc/adr/0001-record-architecture-decisions.md"]["id"]
    added = cli("add", "decision", "--title", "Keep the records short", "--description",
                "Each record fits on one screen, so a reviewer reads it whole.", "--related", "relates-to:ADR 1",
                "--json")
    assert added.code == 0, added.err
    assert listed(cli)[added.json()["path"]]["related"] == [{"kind": "relates-to", "id": first}]
    missing = cli("add", "decision", "--title", "Another", "--description", "A decision that links no record.",
                  "--related", "relates-to:ADR 99")
    assert (missing.code, missing.err) == (2, "docir: error: --related relates-to:ADR 99: no document is numbered "
                                              "so; find ids with 'docir query'\n")
    wrong = cli("update", added.json()["id"], "--add-related", "relates-to:nope")
    assert wrong.code == 2 and wrong.err.startswith("docir: error: --add-related relates-to:nope: 'nope' is neither")


def test_every_command_that_takes_an_id_reads_a_records_number_as_get_does(adr_repo: Path, cli: Any) -> None:
    cli("init")
    first = listed(cli)["doc/adr/0001-record-architecture-decisions.md"]["id"]
    for spelled in ("ADR 1", "adr-1", "ADR-0001", "1"):
        assert cli("get", spelled, "--json").json()["documents"][0]["id"] == first, spelled
        done = cli("update", spelled, "--status", "accepted", "--json")
        assert done.code == 0 and done.json()["id"] == first, (spelled, done.err)
    third = listed(cli)["doc/adr/0003-implement-in-python.md"]["id"]
    linked = cli("query", "--related-to", "ADR 3", "--include-inactive", "--json")
    assert linked.code == 0 and {row["id"] for row in linked.json()["results"]} == {
        listed(cli, "--include-inactive")["doc/adr/0002-implement-as-shell-scripts.md"]["id"]}, linked.err
    assert third not in {row["id"] for row in linked.json()["results"]}
    missing = cli("update", "ADR 9", "--status", "accepted")
    assert (missing.code, missing.err) == (2, "docir: error: docir update ADR 9: no document is numbered so; "
                                              "find ids with 'docir query'\n")


def test_a_record_read_in_place_is_never_moved_by_archive(adr_repo: Path, cli: Any) -> None:
    cli("init")
    before = digests(adr_repo / "doc" / "adr")
    refused = cli("archive", "ADR 1")
    assert refused.code == 2 and "docir archive moves only documents under docs/" in refused.err, refused.err
    assert "docir update" in refused.err and len(refused.err.splitlines()) == 1
    assert digests(adr_repo / "doc" / "adr") == before and not (adr_repo / "docs" / "archive").exists()


def test_a_record_read_in_place_takes_only_a_status_from_update(adr_repo: Path, cli: Any) -> None:
    cli("init")
    path = "doc/adr/0001-record-architecture-decisions.md"
    doc_id = listed(cli)[path]["id"]
    before = (adr_repo / path).read_text(encoding="utf-8")
    refused = cli("update", doc_id, "--title", "Another title")
    assert refused.code == 2 and "docir update changes only its status" in refused.err
    assert (adr_repo / path).read_text(encoding="utf-8") == before
    done = cli("update", doc_id, "--status", "deprecated", "--json")
    assert done.code == 0, done.err
    assert (adr_repo / path).read_text(encoding="utf-8") == before.replace("## Status\n\nAccepted\n",
                                                                          "## Status\n\nDeprecated\n")
    assert cli("get", doc_id, "--json").json()["documents"][0]["status"] == "deprecated"


def test_adopt_of_a_folder_outside_docs_writes_it_where_it_lies(adr_repo: Path, cli: Any) -> None:
    """adopt never copies a folder of the repository out of place: its team's tool keeps writing there."""
    cli("init")
    before = digests(adr_repo / "doc" / "adr")
    refused = cli("adopt", "doc/adr", "--owner", "@arch")  # adr-tools keeps it: frontmatter would break its titles
    assert refused.code == 2 and refused.err.startswith("docir: error: doc/adr is adr-tools' folder (.adr-dir")
    assert digests(adr_repo / "doc" / "adr") == before
    (adr_repo / ".adr-dir").unlink()  # no one runs adr-tools on it any more
    adopted = cli("adopt", "doc/adr", "--owner", "@arch", "--json")
    assert adopted.code == 0, adopted.err
    assert not (adr_repo / "docs" / "decisions").exists() or not list((adr_repo / "docs" / "decisions").iterdir())
    text = (adr_repo / "doc" / "adr" / "0003-implement-in-python.md").read_text(encoding="utf-8")
    assert text.startswith("---\nid: adr-") and "\n# 3. Implement in Python\n" in text
    schema, _ = parse_schema((adr_repo / "docs-schema.yaml").read_text(encoding="utf-8"))
    assert schema is not None and [f.path for f in schema.records] == ["doc/adr"]
    found = listed(cli, "--include-inactive")
    assert sorted(found) == [f"doc/adr/000{n}-{s}.md" for n, s in (
        (1, "record-architecture-decisions"), (2, "implement-as-shell-scripts"), (3, "implement-in-python"))]
    assert found["doc/adr/0003-implement-in-python.md"]["owner"] == "@arch"  # its frontmatter, read as written
    again = cli("adopt", "doc/adr", "--owner", "@arch", "--json")
    assert again.code == 0, again.err
    schema, _ = parse_schema((adr_repo / "docs-schema.yaml").read_text(encoding="utf-8"))
    assert schema is not None and [f.path for f in schema.records] == ["doc/adr"]


def test_docir_s_own_fields_go_where_the_format_has_a_place_for_them(tmp_path: Path, cli: Any,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      adr_repo: Path) -> None:
    cli("init")
    nygard_add = cli("add", "decision", "--title", "Ship nightly builds", "--description",
                     "A build is published every night so that testers try what was merged that day.",
                     "--owner", "@release", "--tags", "builds")
    assert nygard_add.code == 0, nygard_add.err
    assert "not written: owner, tags (the records in doc/adr/ are adr-tools records" in nygard_add.err
    assert (adr_repo / "doc" / "adr" / "0004-ship-nightly-builds.md").read_text(encoding="utf-8").startswith(
        "# 4. Ship nightly builds\n")
    repo = tmp_path / "madr"
    (repo / "docs" / "decisions").mkdir(parents=True)
    (repo / "docs" / "decisions" / "0001-use-postgres.md").write_text(  # MADR 3: the facts in frontmatter
        "---\nstatus: accepted\ndate: 2024-05-01\n---\n# Use PostgreSQL\n\n## Context and Problem Statement\n\n"
        "Orders need one transactional store that the team already runs.\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    cli("init")
    added = cli("add", "decision", "--title", "Use pgbouncer", "--description",
                "Connections to PostgreSQL go through pgbouncer, which pools them per service.",
                "--owner", "@data", "--tags", "postgres,pooling", "--status", "accepted", "--json")
    assert added.code == 0 and "not written" not in added.err, added.err
    text = (repo / added.json()["path"]).read_text(encoding="utf-8")
    assert text.startswith("---\nstatus: accepted\ndate: ") and "\nowner: '@data'\ntags: [postgres, pooling]\n" in text
    found = listed(cli)[added.json()["path"]]
    assert (found["owner"], found["tags"], found["title"]) == ("@data", ["postgres", "pooling"], "Use pgbouncer")
    assert added.json()["path"] == "docs/decisions/0002-use-pgbouncer.md"
    # A MADR 2 folder states its facts in bullets: a new record does too, and docir's fields stay out of it.
    (repo / "docs" / "decisions" / "0003-use-mysql.md").write_text(MADR2.format(
        title="Use MySQL", status="rejected", context="A second database was proposed for reports."),
        encoding="utf-8")
    bullets = cli("add", "decision", "--title", "Use read replicas", "--description",
                  "Reports read from a replica, so they never slow the orders database down.", "--owner", "@data",
                  "--json")
    assert "not written: owner" in bullets.err
    assert (repo / bullets.json()["path"]).read_text(encoding="utf-8").startswith(
        "# Use read replicas\n\n* Status: proposed\n* Date: ")
