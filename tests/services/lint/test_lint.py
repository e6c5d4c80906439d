"""Lint: one broken fixture per rule, each asserting the exact line the rule prints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.caller import caller
from tests.conftest import FIXTURES, REPO

D = "docs/decisions"
EXPECTED = [
    f"{D}/doc001-invalid-frontmatter.md:4:8: DOC001 ",
    f"{D}/doc002-missing-frontmatter.md:1:1: DOC002 ",
    f"{D}/doc003-missing-field.md:1:1: DOC003 missing required field 'owner'",
    f"{D}/doc004-invalid-id.md:2:1: DOC004 ",
    f"{D}/doc005-id-prefix-mismatch.md:2:1: DOC005 ",
    f"{D}/doc006-duplicate-id-a.md:2:1: DOC006 id adr-000000000006 is also used by {D}/doc006-duplicate-id-b.md",
    f"{D}/doc006-duplicate-id-b.md:2:1: DOC006 id adr-000000000006 is also used by {D}/doc006-duplicate-id-a.md",
    f"{D}/doc007-unknown-type.md:3:1: DOC007 unknown type 'memo'",
    f"{D}/doc008-invalid-status.md:6:1: DOC008 status 'done' is not allowed for decision",
    f"{D}/doc009-invalid-date.md:8:1: DOC009 ",
    f"{D}/doc010-unknown-relation.md:8:1: DOC010 unknown relation kind 'inspired-by'",
    f"{D}/doc011-broken-link.md:9:1: DOC011 relates-to: adr-ffffffffffff points at no document",
    f"{D}/doc012-link-to-archived.md:8:1: DOC012 ",
    f"{D}/doc013-description-length.md:5:1: DOC013 ",
    f"{D}/doc014-stale.md:8:1: DOC014 ",
    f"{D}/doc015-successor-active.md:6:1: DOC015 adr-000000000115 replaces this document",
    f"{D}/doc016-unreadable-file.md:1:1: DOC016 ",
    f"{D}/doc017-malformed-related.md:7:1: DOC017 ",
    f"{D}/doc022-template-only-section.md:15:1: DOC022 section 'Decision Drivers' holds only template text",
    f"{D}/doc022-template-only-section.md:17:1: DOC022 section 'Considered Options' holds only template text",
    f"{D}/doc022-template-only-section.md:26:1: DOC022 section 'Confirmation' holds only template text",
    f"{D}/doc090-unused-suppression.md:11:1: DOC090 ignore[DOC014] suppresses nothing",
]


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    root = tmp_path / "lint"
    shutil.copytree(FIXTURES / "stores" / "lint", root)
    return root


def lint_lines(cli, root: Path, *args: str) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    result = cli("lint", "--root", str(root), *args)
    return result.code, result.out.splitlines()


@pytest.mark.parametrize("expected", EXPECTED,
                         ids=[e.split(": ")[1].split()[0] + "-" + e.split("/")[-1].split(".")[0] for e in EXPECTED])
def test_each_rule_prints_its_exact_line(cli, broken: Path, monkeypatch: pytest.MonkeyPatch, expected: str) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(broken)
    code, lines = lint_lines(cli, broken)
    assert code == 1
    assert any(line.startswith(expected) for line in lines), "\n".join(lines)


def test_every_finding_is_expected_and_the_summary_counts_them(cli, broken: Path,  # type: ignore[no-untyped-def]
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(broken)
    _, lines = lint_lines(cli, broken)
    findings, summary = lines[:-1], lines[-1]
    assert len(findings) == len(EXPECTED)
    # The files the findings are in, of the files checked: each count says what it counts.
    found_in = len({f.split(":")[0] for f in findings})
    assert summary == f"Found 15 errors and 7 warnings in {found_in} of 23 files checked."
    # The suppressed stale document and the good one say nothing.
    assert not any("suppressed-stale.md" in f or "good.md" in f for f in findings)


def test_docirs_own_docs_lint_clean(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("lint", "--root", str(REPO))
    files = len(list((REPO / "docs").rglob("*.md")))  # every document, however many docs/ holds today
    assert (result.code, result.out.splitlines()[-1]) == (0, f"All checks passed ({files} files checked).")


def test_paths_limit_the_report_but_not_the_cross_document_checks(cli, broken: Path,  # type: ignore[no-untyped-def]
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(broken)
    code, lines = lint_lines(cli, broken, f"{D}/doc006-duplicate-id-a.md", f"{D}/good.md")
    assert code == 1
    assert lines == [f"{D}/doc006-duplicate-id-a.md:2:1: DOC006 id adr-000000000006 is also used by "
                     f"{D}/doc006-duplicate-id-b.md",
                     "Found 1 error and 0 warnings in 1 of 2 files checked."]


def test_warnings_alone_exit_zero_and_exit_zero_flag(cli, broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(broken)
    assert lint_lines(cli, broken, f"{D}/doc014-stale.md")[0] == 0
    assert lint_lines(cli, broken, "--exit-zero")[0] == 0


def test_json_and_github_formats(cli, broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(broken)
    result = cli("lint", "--format", "json", f"{D}/doc008-invalid-status.md")
    payload = json.loads(result.out)
    assert payload["summary"] == {"errors": 1, "warnings": 0, "files": 1}
    finding = payload["findings"][0]
    assert {k: finding[k] for k in ("path", "line", "col", "code", "alias", "severity")} == {
        "path": f"{D}/doc008-invalid-status.md", "line": 6, "col": 1, "code": "DOC008",
        "alias": "invalid-status", "severity": "error"}
    github = cli("lint", "--format", "github", f"{D}/doc014-stale.md").out.splitlines()
    assert github[0].startswith(f"::warning file={D}/doc014-stale.md,line=8,col=1,"
                                "title=DOC014 stale::last verified 2019-05-01")


def test_severity_comes_from_the_schema(cli, broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(broken)
    schema = broken / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("severity: {}", "severity: {DOC014: error, DOC013: 'off'}"))
    code, lines = lint_lines(cli, broken, f"{D}/doc014-stale.md", f"{D}/doc013-description-length.md")
    assert code == 1
    assert lines == [f"{D}/doc014-stale.md:8:1: DOC014 last verified 2019-05-01, more than 365 days ago; "
                     "re-read it, then: docir update adr-000000000014 --verified",
                     "Found 1 error and 0 warnings in 1 of 2 files checked."]


def test_the_template_text_rule_can_be_turned_off(cli, broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(broken)
    target = f"{D}/doc022-template-only-section.md"
    assert sum("DOC022" in line for line in lint_lines(cli, broken, target)[1]) == 3
    schema = broken / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("severity: {}", "severity: {DOC022: 'off'}"))
    code, lines = lint_lines(cli, broken, target)
    assert code == 0 and not any("DOC022" in line for line in lines)


def test_the_schema_itself_is_linted(cli, broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(broken)
    schema = broken / "docs-schema.yaml"
    schema.write_text(schema.read_text().replace("    prefix: arch\n", "    prefix: ARCH\n"))
    code, lines = lint_lines(cli, broken, "docs-schema.yaml")
    line_no = schema.read_text().splitlines().index("    prefix: ARCH") + 1
    assert code == 1
    assert lines[0] == (f"docs-schema.yaml:{line_no}:5: "
                        "DOC020 type 'architecture' needs a prefix of 1-16 lowercase letters or digits")


def test_rule_explains_by_code_and_alias(cli) -> None:  # type: ignore[no-untyped-def]
    by_code = cli("rule", "DOC014", "--json")
    by_alias = cli("rule", "stale", "--json")
    assert by_code.code == 0 and by_code.out == by_alias.out
    assert json.loads(by_code.out)[0]["alias"] == "stale"
    unknown = cli("rule", "DOC999")
    assert unknown.code == 2 and unknown.err.startswith("docir: error: no rule 'DOC999'")


def test_pair_suppression_for_near_duplicates_is_reported_unused_without_deep(  # type: ignore[no-untyped-def]
        cli, broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(broken)
    doc = broken / D / "good.md"
    doc.write_text(doc.read_text() + "\n<!-- docir: ignore[DOC030:adr-000000000006] -->\n")
    _, lines = lint_lines(cli, broken, f"{D}/good.md")
    assert lines[0] == f"{D}/good.md:15:1: DOC090 ignore[DOC030:adr-000000000006] suppresses nothing"


def _findings(root: Path, paths: list[str] | None) -> list[dict[str, object]]:
    from docir.services.lint import checks
    from docir.store import Store

    report, _, corpus = checks.lint_store(Store(root), caller(), paths)
    checks.apply_suppressions(report, corpus, paths)
    return [dict(f.as_dict()) for f in report.findings]


def test_a_lint_of_one_file_finds_what_the_whole_lint_finds_there(broken: Path) -> None:
    """Its cross-document facts come from the index instead of every other file: the same findings."""
    whole = _findings(broken, None)
    for path in sorted(p.relative_to(broken).as_posix() for p in (broken / "docs").rglob("*.md")):
        assert _findings(broken, [path]) == [f for f in whole if f["path"] == path], path


def test_a_lint_of_one_file_reads_that_file_and_sees_the_others_as_the_walk_does(
        broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docir.documents import files
    from docir.services.indexing import convert
    from docir.services.lint import checks

    a, b = f"{D}/doc006-duplicate-id-a.md", f"{D}/doc006-duplicate-id-b.md"
    assert [f["code"] for f in _findings(broken, [a])] == ["DOC006"]  # the index is built by now
    read: list[str] = []

    def reading(path: Path) -> tuple[str, str]:
        read.append(path.relative_to(broken).as_posix())
        return files.read_text(path)

    monkeypatch.setattr(checks, "read_text", reading)
    monkeypatch.setattr(convert, "read_text", reading)
    assert [f["code"] for f in _findings(broken, [a])] == ["DOC006"]
    assert read == [a]  # not the 21 other documents: the index vouches for them
    other = broken / b
    other.write_text(other.read_text().replace("adr-000000000006", "adr-00000000006b"))
    read.clear()
    assert _findings(broken, [a]) == []  # the stat walk saw the other file change and re-read it, alone
    assert sorted(read) == [a, b]


def test_archiving_what_a_document_supersedes_leaves_it_no_warning(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    """A successor edge to an archived document is history (supersedes); another edge still warns (DOC012)."""
    root = str(sample_store)
    a1 = "docs/decisions/keep-sessions-in-the-database.md"  # supersedes adr-...a0, relates-to arch-...b1
    assert cli("archive", "adr-0000000000a0", "--root", root).code == 0
    for args in ((), (a1,)):  # the whole store, and the one file a commit hook would hand over
        report = json.loads(cli("lint", "--root", root, "--format", "json", *args).out)
        assert [f for f in report["findings"] if f["code"] == "DOC012"] == [], args
    assert cli("archive", "arch-0000000000b1", "--root", root).code == 0
    for args in ((), (a1,)):
        report = json.loads(cli("lint", "--root", root, "--format", "json", *args).out)
        linked = [(f["path"], f["message"]) for f in report["findings"] if f["code"] == "DOC012"]
        assert linked == [(a1, "relates-to: arch-0000000000b1 is archived "
                               "(docs/archive/architecture/session-service.md)")], args
