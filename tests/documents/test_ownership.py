"""Which files under docs/ are the store's documents (documents/ownership.py), and the walk that asks it."""

from __future__ import annotations

from pathlib import Path

import pytest

from docir.documents.ownership import Ownership, problem
from docir.documents.scan import scan_docs

OWNED = ["decisions/a.md", "README.md.bak/x.md", "guides/api/keep.md", "archive/decisions/b.md"]


@pytest.mark.parametrize(("exclude", "left_out"), [
    ((), []),
    (("/README.md",), ["README.md"]),  # a leading '/' anchors the name to docs/
    (("README.md",), ["README.md", "api/README.md"]),  # a name without '/' matches at any depth
    (("api",), ["api/README.md", "api/orders.md", "guides/api/keep.md"]),  # a folder, at any depth
    (("api/**",), ["api/README.md", "api/orders.md"]),
    (("api/", "!api/orders.md"), ["api/README.md", "guides/api/keep.md"]),  # the last glob that matches decides
    (("!api/orders.md", "api/**"), ["api/README.md", "api/orders.md"]),
    (("**/*.md", "!decisions"), ["README.md", "api/README.md", "api/orders.md", "guides/api/keep.md",
                                 "README.md.bak/x.md"]),  # archive/decisions/ too: a name at any depth
    (("**/*.md", "!/decisions"), ["README.md", "api/README.md", "api/orders.md", "guides/api/keep.md",
                                  "README.md.bak/x.md", "archive/decisions/b.md"]),
])
def test_the_last_glob_that_matches_a_path_decides(exclude: tuple[str, ...], left_out: list[str]) -> None:
    owned = Ownership(exclude)
    paths = ["README.md", "api/README.md", "api/orders.md", *OWNED]
    assert sorted(p for p in paths if owned.excluded(p)) == sorted(left_out)
    assert sorted(p for p in paths if not owned.owns(f"docs/{p}")) == sorted(left_out)


def test_owns_is_the_walk_s_rule_for_names_too() -> None:
    owned = Ownership()
    assert owned.owns("docs/a.md") and owned.owns("docs/x/y/z.md")
    assert not owned.owns("docs/a.markdown") and not owned.owns("README.md") and not owned.owns("docs/.hidden/a.md")
    assert not owned.owns("docs/x/.a.md")


@pytest.mark.parametrize(("glob", "why"), [
    ("", "'' is an empty glob"),
    ("!", "'!' is an empty glob"),
    ("../other/*.md", "'../other/*.md' leaves docs/ ('..')"),
    ("C:\\docs\\a.md", "'C:\\docs\\a.md' is absolute; write it relative to docs/"),
    ("docs/api/**", "'docs/api/**' starts with docs/; the globs are relative to docs/ (write 'api/**')"),
])
def test_a_glob_that_can_name_nothing_under_docs_is_a_problem(glob: str, why: str) -> None:
    assert problem(glob) == why
    assert problem("/docs/api/**") is None and problem("!api/x.md") is None


def tree(root: Path, paths: list[str]) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("# x\n")


def test_the_walk_neither_lists_nor_returns_what_is_excluded(tmp_path: Path) -> None:
    tree(tmp_path, ["docs/a.md", "docs/README.md", "docs/api/x.md", "docs/api/deep/y.md", "docs/site/z.md"])
    listed: list[str] = []

    found = scan_docs(tmp_path, tmp_path / "docs", on_folder=listed.append,
                      owned=Ownership(["/README.md", "api/**", "site"]))

    assert sorted(found) == ["docs/a.md"]
    # Neither api/ nor site/ is listed: every path in them is excluded.
    assert sorted(Path(p).relative_to(tmp_path).as_posix() for p in listed) == ["docs"]


def test_a_folder_is_left_unlisted_only_when_nothing_in_it_can_count(tmp_path: Path) -> None:
    tree(tmp_path, ["docs/api/x.md", "docs/api/v2/y.md", "docs/apiary/z.md"])
    listed: list[str] = []
    found = scan_docs(tmp_path, tmp_path / "docs", on_folder=listed.append, owned=Ownership(["api/*.md"]))
    assert sorted(found) == ["docs/api/v2/y.md", "docs/apiary/z.md"]
    assert "docs/api" in [Path(p).relative_to(tmp_path).as_posix() for p in listed]
    for glob in ("api/**", "/api/**"):
        assert Ownership([glob]).skips_folder("api") and not Ownership([glob]).skips_folder("guides/api")
    assert Ownership(["**/api/**"]).skips_folder("guides/api")
    assert not Ownership(["api/**", "!api/keep.md"]).skips_folder("api")


def test_a_negated_glob_keeps_every_folder_walked(tmp_path: Path) -> None:
    tree(tmp_path, ["docs/api/x.md", "docs/api/adr/0001.md"])
    found = scan_docs(tmp_path, tmp_path / "docs", owned=Ownership(["api", "!api/adr"]))
    assert sorted(found) == ["docs/api/adr/0001.md"]
