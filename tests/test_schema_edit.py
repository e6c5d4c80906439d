"""The exclude list of docs-schema.yaml rewritten in place (docir/schema_edit.py): exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from docir.errors import InputError, SchemaError
from docir.schema import default_schema_text, parse_schema
from docir.schema_edit import Included, edited, include_again
from docir.store import Store

HEAD = "# ours\nversion: 1\n"
TAIL = "types:\n  note: {prefix: note, statuses: [draft]}   # kept as written\n"


@pytest.mark.parametrize(("listed", "remove", "add", "expected"), [
    ("exclude: []   # why\n", (), ["api/**", "/README.md", "**/draft-*.md"],
     "exclude:   # why\n  - api/**\n  - /README.md\n  - '**/draft-*.md'\n"),
    ("exclude:\n  - api/**    # generated\n  # the site\n  - site/**\n", (0,), ["!site/adr"],
     "exclude:\n  # the site\n  - site/**\n  - '!site/adr'\n"),
    ("exclude:\n  - a\n  - b   # c\n", (0, 1), (), "exclude: []\n"),
    ("exclude:   # kept\n- a\n- b\n", (1,), ["c"], "exclude:   # kept\n- a\n- c\n"),
    ("exclude: [a, b,\n   c]\n", (1,), (), "exclude:\n  - a\n  - c\n"),
    ("exclude:\n", (), ["q"], "exclude:\n  - q\n"),
    ("exclude: null\n", (), (), "exclude: null\n"),
])
def test_only_the_list_s_own_lines_change(listed: str, remove: tuple[int, ...], add: list[str],
                                          expected: str) -> None:
    assert edited(HEAD + listed + TAIL, remove, add) == HEAD + expected + TAIL


def test_a_schema_without_the_list_gets_it_at_its_end() -> None:
    assert edited(HEAD + TAIL, (), ["api/**"]) == HEAD + TAIL + "\nexclude:\n  - api/**\n"
    assert edited("version: 1", (), ["a"]) == "version: 1\n\nexclude:\n  - a\n"


def test_line_endings_and_a_bom_stay() -> None:
    text = "\ufeffversion: 1\r\nexclude:\r\n  - a\r\ntypes: {}\r\n"
    assert edited(text, (), ["b"]) == "\ufeffversion: 1\r\nexclude:\r\n  - a\r\n  - b\r\ntypes: {}\r\n"
    assert edited(text, (0,), ()) == "\ufeffversion: 1\r\nexclude: []\r\ntypes: {}\r\n"


def test_the_default_schema_takes_a_list_and_stays_valid() -> None:
    text = edited(default_schema_text(), (), ["/README.md", "api/**"])
    schema, problems = parse_schema(text)
    assert problems == [] and schema is not None and schema.exclude == ("/README.md", "api/**")
    assert text.replace("exclude:\n  - /README.md\n  - api/**\n", "exclude: []\n") == default_schema_text()


def test_a_list_that_is_not_one_is_left_to_a_person() -> None:
    with pytest.raises(InputError, match="'exclude:' is not a list; fix it by hand"):
        edited("exclude: api/**\n", (), ["x"])


def store_with(tmp_path: Path, exclude: str, files: list[str]) -> Store:
    root = tmp_path / "store"
    for path in files:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("# plain\n")
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "docs-schema.yaml").write_text(default_schema_text().replace("exclude: []\n", exclude))
    return Store(root)


def listed(store: Store) -> tuple[str, ...]:
    schema, _ = parse_schema(store.schema_path.read_text())
    assert schema is not None
    return schema.exclude


def test_adopting_a_folder_takes_off_the_globs_that_name_only_it(tmp_path: Path) -> None:
    store = store_with(tmp_path, "exclude:\n  - /README.md   # ours\n  - adr/**\n  - adr/0002-b.md\n",
                       ["docs/README.md", "docs/adr/0001-a.md", "docs/adr/0002-b.md"])
    before = store.schema_path.read_text()

    assert include_again(store, [store.root / "docs" / "adr"]) == Included(("adr/**", "adr/0002-b.md"), ())

    assert store.schema_path.read_text() == before.replace("  - adr/**\n  - adr/0002-b.md\n", "")
    assert listed(store) == ("/README.md",)


def test_adopting_a_file_a_broader_glob_names_takes_it_back_with_a_negation(tmp_path: Path) -> None:
    store = store_with(tmp_path, "exclude: [design/**]\n", ["docs/design/adr/0001-a.md", "docs/design/ui.md"])

    assert include_again(store, ["docs/design/adr"]) == Included((), ("!design/adr",))
    assert listed(store) == ("design/**", "!design/adr")
    # The rest of the folder adopted later: both globs go, the negation having nothing left to take back.
    assert include_again(store, ["docs/design"]) == Included(("design/**", "!design/adr"), ())
    assert listed(store) == ()


def test_a_path_about_to_be_written_counts(tmp_path: Path) -> None:
    """adopt copies a file from outside docs/ to a path the list names: it is taken off first."""
    store = store_with(tmp_path, "exclude: [/0001-a.md, old/**]\n", ["docs/old/x.md"])
    assert include_again(store, ["docs/0001-a.md"]) == Included(("/0001-a.md",), ())
    assert listed(store) == ("old/**",)


def test_nothing_to_take_back_writes_nothing(tmp_path: Path) -> None:
    store = store_with(tmp_path, "exclude: [api/**]\n", ["docs/api/a.md", "docs/b.md"])
    before = store.schema_path.stat().st_mtime_ns, store.schema_path.read_bytes()
    assert include_again(store, ["docs/b.md", tmp_path / "elsewhere" / "c.md", "src/x.md"]) == Included((), ())
    assert (store.schema_path.stat().st_mtime_ns, store.schema_path.read_bytes()) == before


def test_an_invalid_schema_is_a_schema_error(tmp_path: Path) -> None:
    store = store_with(tmp_path, "exclude: 3\n", [])
    with pytest.raises(SchemaError, match=r"docs-schema.yaml:\d+:1: exclude must be a list"):
        include_again(store, ["docs/a.md"])
