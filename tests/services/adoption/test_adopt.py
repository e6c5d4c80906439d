"""docir adopt: MADR, log4brains and foreign-frontmatter documents come in with nothing lost."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import FIXTURES

ADR = FIXTURES / "adopt" / "adr"


def front(path: Path) -> dict:  # type: ignore[type-arg]
    text = path.read_text()
    return yaml.safe_load(text.split("---\n", 2)[1]) if text.startswith("---\n") else {}


@pytest.fixture
def adopted(cli, store: Path) -> Path:  # type: ignore[no-untyped-def]
    shutil.copytree(ADR, store / "docs" / "adr")
    result = cli("adopt", str(store / "docs" / "adr"), "--owner", "@arch", "--root", str(store))
    assert result.code == 0, result.err
    return store


def test_lint_lists_only_documents_flagged_for_review(cli, adopted: Path) -> None:  # type: ignore[no-untyped-def]
    result = cli("lint", "--root", str(adopted), "--format", "json")
    payload = json.loads(result.out)
    assert result.code == 0
    assert {f["code"] for f in payload["findings"]} == {"DOC018"}
    assert payload["summary"]["errors"] == 0


def test_every_original_field_and_body_is_kept(adopted: Path) -> None:
    for original in sorted(ADR.glob("*.md")):
        new = adopted / "docs" / "adr" / original.name
        before, after = original.read_text(), new.read_text()
        if not before.startswith("---\n"):
            assert after.endswith("---\n\n" + before)  # the whole original text, byte for byte
            continue
        old_meta, new_meta = front(original), front(new)
        for key, value in old_meta.items():
            if key in ("status", "type") and new_meta[key] != value:
                assert new_meta[f"{key}_original"] == value  # mapped, and the original kept beside it
            else:
                assert new_meta[key] == value, (original.name, key)
        assert after.split("---\n", 2)[2] == before.split("---\n", 2)[2]  # body unchanged


def test_statuses_are_mapped_and_superseded_by_becomes_an_edge(adopted: Path) -> None:
    docs = {p.name: front(p) for p in (adopted / "docs" / "adr").glob("*.md")}
    old_pg, managed = docs["0002-use-postgres.md"], docs["0004-use-a-managed-database.md"]
    assert old_pg["status"] == "superseded"
    assert old_pg["status_original"] == "superseded by [ADR-0004](0004-use-a-managed-database.md)"
    assert {"supersedes": old_pg["id"]} in managed["related"]
    log4brains, successor = docs["0003-log4brains-style.md"], docs["0005-docs-site-in-the-monorepo.md"]
    assert log4brains["status"] == "superseded"
    assert {"supersedes": log4brains["id"]} in successor["related"]
    assert docs["0001-record-architecture-decisions.md"]["status"] == "accepted"
    assert docs["0001-record-architecture-decisions.md"]["title"] == "Record architecture decisions"
    rfc = docs["rfc-foreign-frontmatter.md"]
    assert (rfc["type"], rfc["type_original"], rfc["status"], rfc["status_original"]) == (
        "decision", "Standards Track", "accepted", "Final")
    assert rfc["description"].startswith("Every API key gets a token bucket")
    assert rfc["review"] == ["description"]


def test_dry_run_writes_nothing(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(ADR, store / "docs" / "adr")
    before = {p: p.read_bytes() for p in (store / "docs").rglob("*.md")}
    result = cli("adopt", str(store / "docs" / "adr"), "--owner", "@arch", "--dry-run", "--root", str(store), "--json")
    assert result.code == 0, result.err
    plan = json.loads(result.out)
    assert plan["dry_run"] is True and plan["count"] == 6
    assert {p: p.read_bytes() for p in (store / "docs").rglob("*.md")} == before


def test_a_folder_outside_docs_is_copied_in_and_left_untouched(cli, store: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "rfcs"
    outside.mkdir()
    for number, requires in ((4, None), (9, None), (17, "4, 9")):
        extra = f"requires: {requires}\n" if requires else ""
        (outside / f"rfc-{number}.md").write_text(
            f"---\nrfc: {number}\ntitle: RFC {number}\nstatus: Final\n{extra}---\n"
            f"\n## Abstract\n\nRFC {number} says a thing worth saying.\n")
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    result = cli("adopt", str(outside), "--owner", "@arch", "--key", "rfc", "--relation", "requires=depends-on",
                 "--root", str(store), "--json")
    assert result.code == 0, result.err
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before
    adopted = {front(p)["rfc"]: front(p) for p in (store / "docs" / "decisions").glob("rfc-*.md")}
    assert adopted[17]["related"] == [{"depends-on": adopted[4]["id"]}, {"depends-on": adopted[9]["id"]}]
    assert adopted[17]["requires"] == "4, 9"
    assert cli("query", "--related-to", adopted[4]["id"], "--root", str(store), "--json").json()["count"] == 1


def test_a_crlf_file_with_a_bom_keeps_both(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    folder = store / "docs" / "adr"
    folder.mkdir()
    body = "# Use CRLF\r\n\r\n## Context\r\n\r\nWritten on Windows, kept as written.\r\n"
    path = folder / "0001-use-crlf.md"
    path.write_bytes(("\ufeff" + body).encode("utf-8"))

    result = cli("adopt", str(folder), "--owner", "@arch", "--root", str(store))

    assert result.code == 0, result.err
    after = path.read_bytes()
    assert after.startswith("\ufeff---\r\n".encode())
    assert after.endswith(body.encode("utf-8"))
    assert after.count(b"\n") == after.count(b"\r\n")
    assert after.count("\ufeff".encode()) == 1


def test_a_field_updated_by_hand_leaves_the_review_list(cli, adopted: Path) -> None:  # type: ignore[no-untyped-def]
    """An update that sets a field adopt filled in is the review DOC018 asked for: the field leaves `review:`,
    and the line goes with its last field."""
    flagged = [p for p in sorted((adopted / "docs" / "adr").glob("*.md"))
               if isinstance(front(p).get("review"), list) and "description" in front(p)["review"]]
    assert flagged
    path = flagged[0]
    meta = front(path)
    rest = [field for field in meta["review"] if field != "description"]
    updated = cli("update", meta["id"], "--description", "Checked by a person: the decision, said in one sentence.",
                  "--root", str(adopted), "--json")
    assert updated.code == 0, updated.err
    assert updated.json()["changed"] == ["description", "review"]
    assert front(path).get("review") == (rest or None)
    for field in rest:  # set each other flagged field as it is: reviewed too
        value = front(path)[field]
        cli("update", meta["id"], "--field", f"{field}={value}", "--root", str(adopted))
    assert "review" not in front(path)
    codes = {(f["code"], f["path"]) for f in cli("lint", "--root", str(adopted), "--format", "json").json()["findings"]}
    assert ("DOC018", path.relative_to(adopted).as_posix()) not in codes
