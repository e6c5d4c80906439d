"""applies_to: the documents that govern the files a task touches come first, and lint notices dead globs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from docir.documents.globs import matches, problem
from tests.conftest import add_doc


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=root, check=True,
                   capture_output=True)


def write(root: Path, rel: str, text: str = "x\n") -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


@pytest.fixture
def repo(store: Path, cli, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A git repository holding code and a store: three decisions that govern files, three that do not."""
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(store / "no-model"))
    for rel in ("src/auth/login.py", "src/billing/invoice.py", "api/v1/users.proto", "README.md"):
        write(store, rel)
    ids = {
        "auth": add_doc(cli, store, "decision", "Passwords are hashed with argon2id",
                        "How stored credentials are protected, and the parameters we chose.",
                        "--applies-to", "src/auth/**"),
        "proto": add_doc(cli, store, "decision", "Field numbers are never reused",
                         "Wire compatibility rules for every message definition we publish.",
                         "--applies-to", "*.proto"),
        "billing": add_doc(cli, store, "decision", "Money is stored as integer minor units",
                           "Amounts are integers of the currency's smallest unit, never floats.",
                           "--applies-to", "src/billing/"),
    }
    for n in range(3):
        add_doc(cli, store, "decision", f"Session cookies rule {n}",
                f"Session cookies are renewed on activity, variant {n} of the session renewal rules.",
                "--body", "session renewal " * (3 + n))
    git(store, "init", "-q")
    git(store, "add", "-A")
    git(store, "commit", "-q", "-m", "start")
    return {"root": store, "ids": ids}


def context(cli, root: Path, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    result = cli("context", *args, "--root", str(root), "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert isinstance(payload, dict)
    return payload


def test_path_puts_the_governing_document_first_and_names_the_glob(cli, repo: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    root, ids = repo["root"], repo["ids"]
    plain = context(cli, root, "session renewal")
    assert ids["auth"] not in [r["id"] for r in plain["results"]]  # the words alone never find it
    found = context(cli, root, "session renewal", "--path", str(root / "src/auth/login.py"), "--explain")
    first = found["results"][0]
    assert first["id"] == ids["auth"] and first["matched_glob"] == "src/auth/**"
    assert first["explain"]["applies_to"] == {"glob": "src/auth/**", "path": "src/auth/login.py"}
    assert [r["id"] for r in found["results"][1:]] == [r["id"] for r in plain["results"]]  # the rest keeps its order
    assert all("matched_glob" not in r for r in found["results"][1:])


def test_a_ranked_document_that_governs_the_path_moves_to_the_top(cli, repo: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    root, ids = repo["root"], repo["ids"]
    task = "session cookies renewed on activity, renewal rules 1, money"  # "1" weighs: rule 1 comes first
    plain = [r["id"] for r in context(cli, root, task)["results"]]
    assert ids["billing"] in plain and plain[0] != ids["billing"]
    found = context(cli, root, task, "--path", str(root / "src/billing/invoice.py"))
    assert [r["id"] for r in found["results"]][0] == ids["billing"]
    assert sorted(r["id"] for r in found["results"]) == sorted(plain)


def test_path_alone_lists_what_governs_the_files(cli, repo: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    root, ids = repo["root"], repo["ids"]
    monkeypatch.chdir(root / "src")  # a path typed on the command line is relative to the current folder
    found = context(cli, root, "--path", "auth/login.py", "--path", "../api/v1/users.proto")
    assert {r["id"]: r["matched_glob"] for r in found["results"]} == {ids["auth"]: "src/auth/**",
                                                                      ids["proto"]: "*.proto"}
    ungoverned = cli("context", "--path", "../README.md", "--root", str(root), "--json")
    assert ungoverned.json()["results"] == [] and "no document's applies_to matches" in ungoverned.err  # type: ignore[index]
    missing = cli("context", "--root", str(root))
    assert missing.code == 2 and "--path" in missing.err


def test_changed_reads_staged_unstaged_and_new_files_from_git(cli, repo: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    root, ids = repo["root"], repo["ids"]
    assert context(cli, root, "--changed")["results"] == []  # a clean worktree governs nothing
    write(root, "src/auth/login.py", "changed, not staged\n")
    found = context(cli, root, "--changed")
    assert [r["id"] for r in found["results"]] == [ids["auth"]]
    write(root, "src/billing/invoice.py", "changed and staged\n")
    git(root, "add", "src/billing/invoice.py")
    write(root, "api/v2/orders.proto", "new, untracked\n")
    found = context(cli, root, "--changed", "--explain")
    assert {r["id"]: r["explain"]["applies_to"]["path"] for r in found["results"]} == {
        ids["auth"]: "src/auth/login.py", ids["billing"]: "src/billing/invoice.py",
        ids["proto"]: "api/v2/orders.proto"}


def test_changed_outside_git_is_a_usage_error(cli, store: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(store.parent))
    result = cli("context", "--changed", "--root", str(store))
    assert result.code == 2 and "git repository" in result.err and len(result.err.splitlines()) == 1


def test_lint_warns_about_a_glob_that_matches_nothing(cli, repo: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    root = repo["root"]
    add_doc(cli, root, "decision", "The legacy API answers in XML",
            "Why the v0 endpoints kept XML responses until their retirement.", "--applies-to", "legacy/v0/**")
    result = cli("lint", "--root", str(root), "--format", "json")
    findings = json.loads(result.out)["findings"]
    assert result.code == 0  # a warning: the build still passes
    assert [(f["code"], f["alias"], f["severity"]) for f in findings] == [
        ("DOC019", "applies-to-matches-nothing", "warning")]
    assert "legacy/v0/**" in findings[0]["message"]
    assert cli("rule", "DOC019").code == 0


def test_update_replaces_the_globs_and_the_warning_goes(cli, repo: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    root = repo["root"]
    doc_id = add_doc(cli, root, "decision", "The legacy API answers in XML",
                     "Why the v0 endpoints kept XML responses until their retirement.", "--applies-to", "legacy/**")
    assert "DOC019" in cli("lint", "--root", str(root)).out
    result = cli("update", doc_id, "--applies-to", "src/auth/**", "--applies-to", "*.proto", "--root", str(root),
                 "--json")
    assert result.code == 0 and result.json()["changed"] == ["applies_to"], result.err  # type: ignore[index]
    assert cli("lint", "--root", str(root)).code == 0 and "DOC019" not in cli("lint", "--root", str(root)).out
    found = context(cli, root, "--path", str(root / "api/v1/users.proto"))
    assert doc_id in [r["id"] for r in found["results"]]


def test_add_refuses_a_glob_outside_the_repository(cli, repo: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    result = cli("add", "decision", "--title", "Absolute", "--description", "A decision with an absolute glob in it.",
                 "--owner", "@a", "--applies-to", "/etc/**", "--root", str(repo["root"]))
    assert result.code == 2 and "relative to the repository root" in result.err


def test_adopt_keeps_applies_to(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    write(store, "src/a.py")
    write(store, "docs/adr/0001-x.md", "---\ntitle: Use x\nstatus: accepted\napplies_to: [src/*.py]\n---\n\n"
          "## Context\n\nWe needed x for the service that does y.\n")
    assert cli("adopt", str(store / "docs" / "adr"), "--owner", "@a", "--root", str(store)).code == 0
    assert "applies_to: [src/*.py]" in (store / "docs/adr/0001-x.md").read_text()
    found = cli("context", "--path", str(store / "src/a.py"), "--root", str(store), "--json").json()
    assert [r["matched_glob"] for r in found["results"]] == ["src/*.py"]  # type: ignore[index]


@pytest.mark.parametrize("glob, path, expected", [
    ("src/auth/**", "src/auth/login.py", True), ("src/auth/**", "src/authx/a.py", False),
    ("*.proto", "api/v1/x.proto", True), ("*.proto", "x.proto", True), ("src/*.py", "src/a/b.py", False),
    ("src/**/test_*.py", "src/test_a.py", True), ("src/**/test_*.py", "src/a/b/test_a.py", True),
    ("src/auth", "src/auth/a/b.py", True), ("src/auth/", "src/auth/a.py", True), ("Makefile", "a/Makefile", True),
    ("src/[ab].py", "src/a.py", True), ("src/[!ab].py", "src/a.py", False), ("/abs", "abs", False),
])
def test_globs_read_like_gitignore(glob: str, path: str, expected: bool) -> None:
    assert matches(glob, path) is expected


def test_unusable_globs_say_why() -> None:
    assert problem("src/**") is None
    assert "absolute" in (problem("/etc/x") or "") and ".." in (problem("../x/**") or "") and problem(" ")
