"""The lint rules and what lint emits are one list: every registered rule is emitted by a real store
that breaks it (through `docir lint`, `--staged` and `--deep`), and no finding is made but through a
rule (the code is walked for findings made, or codes written, anywhere else)."""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from docir.services.lint.rules import RULES, find_rule
from docir.services.lint.rules.reference import reference_markdown
from tests.conftest import REPO, add_doc

TODAY = dt.date.today().isoformat()
FIELDS = {"id": "adr-0000000000a1", "type": "decision", "title": "Use Postgres",
          "description": "Postgres is the one database of the service, for its transactions.",
          "status": "accepted", "owner": "'@team'", "verified": TODAY}
BODY = "## Decision\n\nWe use Postgres for every service.\n"


def document(body: str = BODY, drop: tuple[str, ...] = (), **fields: str) -> str:
    """A decision every rule passes, with `fields` changed and `drop` left out."""
    meta = {k: v for k, v in {**FIELDS, **fields}.items() if k not in drop}
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in meta.items()) + "---\n\n" + body


def write(root: Path, path: str, text: str | bytes) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(text, encoding="utf-8")


D = "docs/decisions"
A = f"{D}/a.md"
Case = Callable[[Path], tuple[str, int]]  # writes a broken store, returns where the finding must be


def doc001(root: Path) -> tuple[str, int]:
    write(root, A, document(title="[Use Postgres"))
    return A, 4


def doc002(root: Path) -> tuple[str, int]:
    write(root, A, "# Use Postgres\n\nWe use Postgres.\n")
    return A, 1


def doc003(root: Path) -> tuple[str, int]:
    write(root, A, document(drop=("owner",)))
    return A, 1


def doc004(root: Path) -> tuple[str, int]:
    write(root, A, document(id="adr-use-postgres"))
    return A, 2


def doc005(root: Path) -> tuple[str, int]:
    write(root, A, document(id="guide-0000000000a1"))
    return A, 2


def doc006(root: Path) -> tuple[str, int]:
    write(root, A, document())
    write(root, f"{D}/b.md", document())
    return A, 2


def doc007(root: Path) -> tuple[str, int]:
    write(root, A, document(type="memo"))
    return A, 3


def doc008(root: Path) -> tuple[str, int]:
    write(root, A, document(status="done"))
    return A, 6


def doc009(root: Path) -> tuple[str, int]:
    write(root, A, document(verified="1/12/2026"))
    return A, 8


def _linking(root: Path, kind: str, target: str) -> tuple[str, int]:
    write(root, f"{D}/b.md", document(id="adr-0000000000b2"))
    write(root, A, document(related=f"\n  - {kind}: {target}"))
    return A, 10


def doc010(root: Path) -> tuple[str, int]:
    return _linking(root, "inspired-by", "adr-0000000000b2")


def doc011(root: Path) -> tuple[str, int]:
    return _linking(root, "relates-to", "adr-ffffffffffff")


def doc012(root: Path) -> tuple[str, int]:
    write(root, "docs/archive/old.md", document(id="adr-0000000000c3"))
    write(root, A, document(related="\n  - depends-on: adr-0000000000c3"))
    return A, 10


def doc013(root: Path) -> tuple[str, int]:
    write(root, A, document(description="Database."))
    return A, 5


def doc014(root: Path) -> tuple[str, int]:
    write(root, A, document(verified="2019-05-01"))
    return A, 8


def doc015(root: Path) -> tuple[str, int]:
    write(root, A, document())
    write(root, f"{D}/b.md", document(id="adr-0000000000b2", related="\n  - supersedes: adr-0000000000a1"))
    return A, 6


def doc016(root: Path) -> tuple[str, int]:
    write(root, A, b"\xff\xfe\x00\x01 not text")
    return A, 1


def doc017(root: Path) -> tuple[str, int]:
    write(root, A, document(related="adr-0000000000b2"))
    return A, 9


def doc018(root: Path) -> tuple[str, int]:
    write(root, A, document(review="[description]"))
    return A, 9


def doc019(root: Path) -> tuple[str, int]:
    write(root, A, document(applies_to="[src/gone/**]"))
    return A, 9


def doc020(root: Path) -> tuple[str, int]:
    schema = root / "docs-schema.yaml"
    text = schema.read_text()
    schema.write_text(text.replace("    prefix: arch\n", "    prefix: ARCH\n"))
    write(root, A, document())
    return "docs-schema.yaml", text.splitlines().index("    prefix: arch") + 1


def doc021(root: Path) -> tuple[str, int]:
    write(root, A, document(applies_to="[../elsewhere/**]"))
    return A, 9


def doc022(root: Path) -> tuple[str, int]:
    write(root, A, document(body=BODY + "\n## Consequences\n\n<!-- what follows from it -->\n"))
    return A, 15


def doc023(root: Path) -> tuple[str, int]:
    text = document()
    write(root, A, text.replace("status: accepted\n", "<<<<<<< HEAD\nstatus: accepted\n=======\n"
                                                     "status: superseded\n>>>>>>> other\n"))
    return A, 6


def doc024(root: Path) -> tuple[str, int]:
    write(root, A, document())
    (root / "docs" / "shared").symlink_to(root / "no-such-folder")
    return "docs/shared", 1


def doc025(root: Path) -> tuple[str, int]:
    write(root, A, document(description="Overview; Motivation; Specification; Rationale"))
    return A, 5


def doc026(root: Path) -> tuple[str, int]:
    write(root, A, document(body="## Decision\n\nSee [the plan](missing-plan.md).\n"))
    return A, 13


def doc027(root: Path) -> tuple[str, int]:
    write(root, A, document(title="Use Postgres " + "for every service of the platform " * 5))
    return A, 4


def doc090(root: Path) -> tuple[str, int]:
    write(root, A, document(body=BODY + "\n<!-- docir: ignore[DOC014] -->\n"))
    return A, 15


CASES: dict[str, Case] = {name.upper(): case for name, case in globals().items()
                          if name.startswith("doc0") and callable(case)}
DEEP_ONLY = {"DOC030"}  # near-duplicates need the model: test_a_near_duplicate_is_emitted_through_deep
NOT_STAGED = {"DOC024"}  # git stores a symlink as a link, not a document: the hook never reads through one


def lint_json(cli, *args: str) -> tuple[int, list[dict[str, object]]]:  # type: ignore[no-untyped-def]
    result = cli("lint", "--format", "json", *args)
    assert result.out, result.err
    return result.code, json.loads(result.out)["findings"]


def test_every_registered_rule_has_a_store_that_breaks_it() -> None:
    assert set(CASES) | DEEP_ONLY == set(RULES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_rule_is_emitted_where_its_store_breaks_it(cli, store: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                        code: str) -> None:
    monkeypatch.chdir(store)
    path, line = CASES[code](store)
    _, findings = lint_json(cli)
    assert {"code": code, "path": path, "line": line, "alias": RULES[code].name, "severity": RULES[code].severity} \
        in [{k: f[k] for k in ("code", "path", "line", "alias", "severity")} for f in findings], findings


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, timeout=60)


@pytest.mark.parametrize("code", sorted(set(CASES) - NOT_STAGED))
def test_each_rule_is_emitted_for_what_a_commit_would_hold(cli, store: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                           code: str) -> None:
    monkeypatch.chdir(store)
    git(store, "init", "-q", "-b", "main")
    path, line = CASES[code](store)
    (store / "src").mkdir()
    (store / "src" / "app.py").write_text("")
    git(store, "add", "-A")
    _, findings = lint_json(cli, "--staged")
    assert (code, path, line) in [(f["code"], f["path"], f["line"]) for f in findings], findings


def test_a_broken_link_to_a_document_the_commit_deletes_is_emitted_on_the_linking_one(  # type: ignore[no-untyped-def]
        cli, store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The staged lint's own path: the linking document is not staged, only the deletion is."""
    monkeypatch.chdir(store)
    git(store, "init", "-q", "-b", "main")
    _linking(store, "relates-to", "adr-0000000000b2")
    git(store, "add", "-A")
    git(store, "commit", "-qm", "two documents")
    assert cli("reindex").code == 0
    git(store, "rm", "-q", f"{D}/b.md")
    code, findings = lint_json(cli, "--staged")
    assert code == 1
    assert [(f["code"], f["path"], f["line"]) for f in findings] == [("DOC011", A, 10)]
    # The count says the file the finding is in, checked for its links, not "in 0 files".
    assert cli("lint", "--staged").out.splitlines()[-1] == "Found 1 error and 0 warnings in 1 of 1 file checked."


def test_a_near_duplicate_is_emitted_through_deep(cli, store: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                  model_cache: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.chdir(store)
    body = "## Decision\n\nWhen a webhook delivery fails, we retry it with exponential backoff for at most a day."
    first = add_doc(cli, store, "decision", "Retry failed webhook deliveries with exponential backoff",
                    "Webhook calls that fail are retried with exponential backoff for up to a day.", "--body", body)
    second = add_doc(cli, store, "decision", "Retry failed webhook deliveries with exponential back-off",
                     "Webhook deliveries that fail are retried with exponential back-off for at most one day.",
                     "--body", body.replace("backoff", "back-off"))
    code, findings = lint_json(cli, "--deep")
    assert code == 0
    found = [(f["code"], f["alias"], f["severity"], str(f["message"]).split(" (")[0]) for f in findings]
    assert sorted(found) == sorted([("DOC030", "near-duplicate", "warning", f"near-duplicate of {first}"),
                                    ("DOC030", "near-duplicate", "warning", f"near-duplicate of {second}")])


REGISTRY_MODULE = "docir/services/lint/registry.py"  # where Rule.findings makes every finding


def _calls_named(node: ast.AST, name: str) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name)


def test_no_finding_is_made_and_no_code_is_written_but_by_a_rule() -> None:
    """A Finding is made in Rule.findings alone, and a code (DOC000) is written only where a rule declares it:
    a check that named a code, or made its own finding, could emit one that no rule documents."""
    made, written, declared = [], [], []
    for path in sorted((REPO / "docir").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_declaration: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                for deco in node.decorator_list:
                    if _calls_named(deco, "rule") and isinstance(deco, ast.Call) and deco.args:
                        in_declaration.add(id(deco.args[0]))
                        declared.append(ast.literal_eval(deco.args[0]))
            if isinstance(node, ast.Call) and _calls_named(node, "Finding") and rel != REGISTRY_MODULE:
                made.append(f"{rel}:{node.lineno}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) == 6
                    and node.value.startswith("DOC") and node.value[3:].isdigit() and id(node) not in in_declaration):
                written.append(f"{rel}:{node.lineno} {node.value}")
    assert made == []
    assert written == []
    assert sorted(declared) == sorted(RULES)  # the walk saw every declaration


def test_a_rule_cannot_be_declared_twice_or_malformed() -> None:
    from docir.services.lint.registry import REGISTRY, rule

    before = dict(REGISTRY)
    for code, name, severity in (("DOC014", "stale-again", "warning"), ("DOC099", "stale", "warning"),
                                 ("DOC14", "new-rule", "warning"), ("DOC099", "new-rule", "fatal")):
        with pytest.raises(ValueError):
            rule(code, name, severity, "s", "e", bad="b", good="g")(lambda: iter(()))
    assert REGISTRY == before


def test_rule_json_carries_the_examples_the_text_shows(cli) -> None:  # type: ignore[no-untyped-def]
    shown = json.loads(cli("rule", "malformed-related", "--json").out)
    assert shown == [{"code": "DOC017", "alias": "malformed-related", "severity": "error",
                      "summary": RULES["DOC017"].summary, "explanation": RULES["DOC017"].explanation,
                      "bad": "related: adr-4c21693aac55", "good": "related:\n  - supersedes: adr-4c21693aac55"}]
    assert find_rule("  DOC017 ") is find_rule("MALFORMED-RELATED") is RULES["DOC017"]


def test_the_reference_page_documents_every_rule_and_lints_clean(cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    page = reference_markdown()
    headings = [line for line in page.splitlines() if line.startswith("## DOC")]
    assert headings == [f"## {r.code} {r.name}" for r in RULES.values()]
    for rule in RULES.values():
        section = page.split(f"## {rule.code} {rule.name}\n\n")[1].split("\n## DOC")[0]
        assert section.startswith(f"{rule.severity.capitalize()} by default. ")
        assert "Reported:" in section and "Fixed:" in section
    write(store, "docs/guides/lint-rules.md",
          document(body=page, id="guide-0000000000d4", type="guide", title="Lint rules", status="current",
                   description="Every rule docir lint checks, with its code, severity and an example of each."))
    result = cli("lint", "--root", str(store))
    assert (result.code, result.out) == (0, "All checks passed (1 file checked).\n"), result.out


def test_the_readme_table_of_rules_if_any_is_the_registered_list() -> None:
    """A table written by hand would drift from the rules; where the README keeps one, it must be RULES."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| DOC")]
    assert [(code, alias.split(" (")[0], severity) for code, alias, severity in rows] in (
        [], [(r.code, r.name, r.severity) for r in RULES.values()])
