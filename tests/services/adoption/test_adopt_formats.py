"""docir adopt on folders shaped like the ones teams keep (fixtures/adopt/formats, with a truth file
recording what a careful reader takes from each): statuses, supersede and amend links, clean titles,
numbers, dates, templates left out; and what hostile frontmatter or a failed write leaves behind."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import FIXTURES

FORMATS = FIXTURES / "adopt" / "formats"
TRUTH = yaml.safe_load((FORMATS / "truth.yaml").read_text(encoding="utf-8"))
FOLDERS = {folder["folder"]: folder for folder in TRUTH["folders"]}


def front(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8").lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return {}
    loaded = yaml.safe_load(text.split("---\n", 2)[1])
    return loaded if isinstance(loaded, dict) else {}


def adopt(cli, store: Path, folder: str, *extra: str) -> tuple[Path, dict[str, Any]]:  # type: ignore[no-untyped-def]
    target = store / "docs" / "adr"
    shutil.copytree(FORMATS / folder, target)
    result = cli("adopt", str(target), "--owner", "@arch", "--root", str(store), "--json", *extra)
    assert result.code == 0, result.err
    return target, json.loads(result.out)


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_each_format_comes_in_as_a_careful_reader_reads_it(cli, store: Path, folder: str) -> None:  # type: ignore[no-untyped-def]
    target, report = adopt(cli, store, folder)
    entries = FOLDERS[folder]["files"]
    ids = {e["file"]: front(target / e["file"]).get("id") for e in entries if e["kind"] == "adr"}
    for entry in entries:
        path = target / entry["file"]
        if entry["kind"] != "adr":
            assert path.read_bytes() == (FORMATS / folder / entry["file"]).read_bytes(), entry["file"]
            continue
        meta = front(path)
        where = f"{folder}/{entry['file']}"
        if entry.get("title_source") == "filename":
            assert meta["title"].lower() == entry["title"].lower(), where
        else:
            assert meta["title"] == entry["title"], where
        if entry["status"] is not None:
            assert meta["status"] == entry["status"], where
        if entry["date"] is not None:
            assert str(meta["date"]) == entry["date"], where
        if entry.get("number") is not None:
            assert meta["number"] == entry["number"], where
        related = meta.get("related") or []
        for newer in entry["superseded_by"]:
            assert {"supersedes": ids[entry["file"]]} in (front(target / newer).get("related") or []), where
        for older in entry.get("supersedes", []):
            assert {"supersedes": ids[older]} in related, where
        for older in entry.get("amends", []):
            assert {"amends": ids[older]} in related, where
    # The renumbered folder links a record by the name it had before (0005-...): a broken link it held
    # before adopt, which never changes a body, and which lint names (DOC026); no other error anywhere.
    stale = 1 if folder == "renumbered" else 0
    assert report["lint"]["errors"] == stale
    findings = cli("lint", "--root", str(store), "--format", "json").json()["findings"]  # type: ignore[index]
    assert [(f["code"], f["path"].rsplit("/", 1)[-1]) for f in findings if f["severity"] == "error"] == [
        ("DOC026", "0008-keep-a-full-term-of-timetables-on-the-device.md")] * stale


def test_a_chain_of_three_supersedes_leaves_only_the_newest_current(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    target, _ = adopt(cli, store, "adr-tools")
    statuses = {p.name[:4]: front(p)["status"] for p in target.glob("000*.md")}
    assert (statuses["0002"], statuses["0004"], statuses["0006"]) == ("superseded", "superseded", "accepted")
    found = cli("context", "which database holds the catalogue", "--root", str(store), "--json").json()
    shown = {r["id"]: r["status"] for r in found["results"]}  # type: ignore[index]
    assert "superseded" not in shown.values()
    assert front(target / "0006-use-a-managed-postgresql-service-for-the-catalogue.md")["id"] in shown


def test_a_record_is_found_by_its_number(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    target, _ = adopt(cli, store, "adr-tools-emoji")
    wanted = front(target / "036-multi-cluster.md")["id"]
    for ref in ("ADR 36", "adr-036", "36"):
        got = cli("get", ref, "--root", str(store), "--json")
        assert got.code == 0, (ref, got.err)
        assert [d["id"] for d in got.json()["documents"]] == [wanted]  # type: ignore[index]
    assert cli("get", "ADR 99", "--root", str(store), "--json").json()["missing"] == ["ADR 99"]  # type: ignore[index]


def test_hostile_frontmatter_is_kept_as_written_and_every_read_answers(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    target, report = adopt(cli, store, "hostile")
    text = (target / "0001-date-as-flow-mapping.md").read_text(encoding="utf-8")
    assert "date: 2024-05-02\n" in text and "date_original: { 2024-05-02 }\n" in text
    odd = (target / "0006-odd-typed-keys.md").read_text(encoding="utf-8")
    assert "id_original: 0032\n" in odd and "tags_original: yes\n" in odd
    left = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    assert {"0011-empty.md", "0012-binary.md", "0013-frontmatter-is-a-list.md",
            "0014-unclosed-frontmatter.md"} <= set(left)
    assert "frontmatter" in left["0013-frontmatter-is-a-list.md"]
    some_id = front(target / "0001-date-as-flow-mapping.md")["id"]
    for args in (("query",), ("get", some_id), ("context", "audit logs"), ("search", "notifications")):
        result = cli(*args, "--root", str(store), "--json")
        assert result.code == 0 and "Traceback" not in result.err, (args, result.err)
    assert cli("lint", "--root", str(store), "--format", "json").json()["summary"]["errors"] == 0  # type: ignore[index]


def test_a_write_that_fails_midway_leaves_every_file_as_it_was(cli, store: Path,  # type: ignore[no-untyped-def]
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = store / "docs" / "adr"
    shutil.copytree(FORMATS / "adr-tools", target)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    real_replace, calls = os.replace, []

    def failing(src: Any, dst: Any) -> None:
        calls.append(dst)
        if len(calls) == 4:  # three records are in place when the fourth rename fails
            raise OSError(28, "No space left on device", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    result = cli("adopt", str(target), "--owner", "@arch", "--root", str(store))
    monkeypatch.setattr(os, "replace", real_replace)
    assert result.code != 0 and "Traceback" not in result.err
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    assert cli("adopt", str(target), "--owner", "@arch", "--root", str(store)).code == 0  # and then it goes through
    assert all(front(target / name).get("id") for name in before if name != "README.md")


def test_a_second_adopt_changes_nothing(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    target, _ = adopt(cli, store, "madr2-bullets")
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    again = cli("adopt", str(target), "--owner", "@arch", "--root", str(store), "--json").json()
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    assert not any(doc["changed"] for doc in again["documents"])  # type: ignore[index]


def test_a_folder_init_reads_in_place_is_adopted_and_its_furniture_stays_out(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "repo"
    shutil.copytree(FORMATS / "log4brains", root / "docs" / "adr")
    assert cli("init", "--root", str(root)).code == 0
    schema = yaml.safe_load((root / "docs-schema.yaml").read_text())
    # Its README, index page and template are no records of the folder: nothing to leave out by name.
    assert (schema["exclude"], [r["path"] for r in schema["records"]]) == ([], ["docs/adr"])
    count = FOLDERS["log4brains"]["adr_count"]  # type: ignore[index]
    assert cli("query", "--include-inactive", "--root", str(root), "--json").json()["count"] == count
    cli("adopt", str(root / "docs" / "adr"), "--owner", "@arch", "--root", str(root), "--json").json()
    assert yaml.safe_load((root / "docs-schema.yaml").read_text())["exclude"] == []
    listed = cli("query", "--include-inactive", "--root", str(root), "--json").json()
    assert listed["count"] == count
    assert all("format" not in doc for doc in listed["results"])  # docir's own frontmatter now


def test_unstated_statuses_take_the_status_asked_for(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    target, report = adopt(cli, store, "rfcs", "--unstated", "accepted")
    assert report["unstated"] == {"count": 4, "given": "accepted"}  # 0003 is superseded by 0004
    # asked for: nothing to review, but for the one another record says it replaces
    assert [doc["review"]["status"] for doc in report["documents"] if "status" in doc["review"]] == [
        "docs/adr/text/0004-incremental-builds.md says it supersedes this record, which says 'no status'"]
    statuses = sorted(front(p)["status"] for p in (target / "text").glob("*.md"))
    assert statuses == ["accepted"] * 4 + ["superseded"]  # 0004 supersedes 0003 in its summary


def test_an_unknown_status_word_is_flagged_never_guessed(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    target = store / "docs" / "adr"
    target.mkdir(parents=True)
    (target / "0001-x.md").write_text("# 1. Use X\n\n## Status\n\nFrobnicated\n\n## Context\n\nWe need an X "
                                      "for the orders.\n", encoding="utf-8")
    cli("adopt", str(target), "--owner", "@arch", "--root", str(store))
    meta = front(target / "0001-x.md")
    assert (meta["status"], meta["status_original"], meta["review"]) == ("proposed", "Frobnicated",
                                                                         ["description", "status"])


def test_a_dry_run_shows_the_ids_adopt_then_writes(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    target = store / "docs" / "adr"
    shutil.copytree(FORMATS / "adr-tools", target)
    plan = cli("adopt", str(target), "--owner", "@arch", "--root", str(store), "--dry-run", "--json").json()
    done = cli("adopt", str(target), "--owner", "@arch", "--root", str(store), "--json").json()
    planned = {d["path"]: (d["id"], d["description"]) for d in plan["documents"]}  # type: ignore[index]
    assert planned == {d["path"]: (d["id"], d["description"]) for d in done["documents"]}  # type: ignore[index]
    assert all(front(store / path)["id"] == doc_id for path, (doc_id, _) in planned.items())
