"""Every command loads the schema; an unchanged text is parsed once, an edited one at once again,
in one process and, through the session's cache file, from one command to the next."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docir import schema as schema_module
from docir.errors import SchemaError
from docir.schema import default_schema_text, load_schema


def test_an_unchanged_schema_is_parsed_once_and_an_edit_is_seen_by_the_next_load(tmp_path: Path) -> None:
    path = tmp_path / "docs-schema.yaml"
    text = default_schema_text()
    path.write_text(text, encoding="utf-8")
    first = load_schema(path)
    assert load_schema(path) is first
    path.write_text(text.replace("max_age_days: 365", "max_age_days: 30", 1), encoding="utf-8")
    edited = load_schema(path)
    assert edited is not first
    assert 30 in {spec.max_age_days for spec in edited.types.values()}
    path.write_text(text + "\nnonsense: [\n", encoding="utf-8")
    with pytest.raises(SchemaError):
        load_schema(path)


# --- the parsed schema kept in .docir/run/schema.json (adr-d5e80517405b) ---------------------------

# Every field away from its default, so a field the cache drops or mistypes shows as a difference.
FULL = default_schema_text().replace(
    "  model_path: null ", "  model_path: models/minilm ").replace(
    "  vectors_from: null ", "  vectors_from: ci/vectors ").replace(
    "  severity: {} ", "  severity: {DOC010: error, DOC003: warning} ").replace(
    "min_length: 20", "min_length: 30").replace("near_duplicate_threshold: 0.88", "near_duplicate_threshold: 0.9")


def _store(tmp_path: Path, text: str = FULL) -> tuple[Path, Path]:
    """A schema file and where a session keeps its parse (the state folder exists, as after any command)."""
    path = tmp_path / "docs-schema.yaml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / ".docir").mkdir()
    return path, tmp_path / ".docir" / "run" / "schema.json"


def _next_command() -> None:
    """What a new process starts with: nothing parsed in memory."""
    schema_module.parsed_schema.cache_clear()


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str) -> object:
        raise AssertionError("the schema was parsed although the cache holds it")

    monkeypatch.setattr(schema_module, "parse_schema", refuse)


def test_the_next_command_takes_the_schema_from_the_cache_without_parsing_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, cache = _store(tmp_path)
    parsed = load_schema(path, cache=cache)
    assert (parsed.model_path, parsed.vectors_from) == ("models/minilm", "ci/vectors")
    assert (parsed.lint.description_min, parsed.lint.near_duplicate_threshold) == (30, 0.9)
    assert parsed.lint.severity == {"DOC010": "error", "DOC003": "warning"}
    assert json.loads(cache.read_text(encoding="utf-8"))["text"] == FULL
    _next_command()
    _no_parsing(monkeypatch)
    cached = load_schema(path, cache=cache)
    assert cached == parsed  # every field, types and relations included
    assert cached.successor_kinds == parsed.successor_kinds and cached.building_kinds == parsed.building_kinds
    assert isinstance(cached.types["decision"].inactive_statuses, frozenset)
    assert isinstance(cached.types["decision"].statuses, tuple)


def test_an_edit_that_keeps_the_size_and_the_mtime_is_still_seen(tmp_path: Path) -> None:
    """The key is the whole text, not stat: a same-length edit with its mtime put back is read afresh."""
    path, cache = _store(tmp_path)
    load_schema(path, cache=cache)
    before = path.stat()
    path.write_text(FULL.replace("max_age_days: 365", "max_age_days: 730", 1), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    _next_command()
    assert load_schema(path, cache=cache).types["decision"].max_age_days == 730
    assert "max_age_days: 730" in json.loads(cache.read_text(encoding="utf-8"))["text"]  # and kept for the next


def _valid_cache_with(cache: Path, change: Callable[[dict[str, Any]], None]) -> bytes:
    data = json.loads(cache.read_text(encoding="utf-8"))
    change(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize("spoil", [
    lambda cache: b"",
    lambda cache: b"\xff\xfe not utf-8 \x00",
    lambda cache: b'{"format": 1, "text": ',
    lambda cache: b"[1, 2, 3]",
    lambda cache: _valid_cache_with(cache, lambda d: d["schema"].update(types="not a mapping")),
    lambda cache: _valid_cache_with(cache, lambda d: d["schema"]["types"]["decision"].pop("prefix")),
    lambda cache: _valid_cache_with(cache, lambda d: d["schema"]["lint"].update(unknown=1)),
    lambda cache: _valid_cache_with(cache, lambda d: d.update(format=0)),
    lambda cache: _valid_cache_with(cache, lambda d: d.update(docir="0.0.0")),
    lambda cache: _valid_cache_with(cache, lambda d: d.update(code=[[0, 0], [0, 0]])),  # another docir's parser
], ids=["empty", "binary", "torn", "a list", "types-not-a-mapping", "field-missing", "field-unknown",
        "other-format", "other-version", "other-code"])
def test_a_spoiled_or_foreign_cache_is_ignored_and_rewritten(tmp_path: Path,
                                                            spoil: Callable[[Path], bytes]) -> None:
    path, cache = _store(tmp_path)
    parsed = load_schema(path, cache=cache)
    good = cache.read_bytes()
    cache.write_bytes(spoil(cache))
    _next_command()
    assert load_schema(path, cache=cache) == parsed
    assert cache.read_bytes() == good
    assert [p.name for p in cache.parent.iterdir()] == ["schema.json"]  # no temp file left beside it


def test_an_unwritable_cache_folder_only_means_parsing_every_time(tmp_path: Path) -> None:
    path, _ = _store(tmp_path)
    blocked = tmp_path / ".docir" / "run"
    blocked.write_text("a file where the folder should be\n", encoding="utf-8")  # refuses even root
    cache = blocked / "schema.json"
    first = load_schema(path, cache=cache)
    _next_command()
    assert load_schema(path, cache=cache) == first
    assert blocked.read_text(encoding="utf-8") == "a file where the folder should be\n"
    assert sorted(p.name for p in (tmp_path / ".docir").iterdir()) == ["run"]


def test_without_a_state_folder_nothing_is_written(tmp_path: Path) -> None:
    """.docir/ is made only by ensure_state_dir, which writes its .gitignore first."""
    path = tmp_path / "docs-schema.yaml"
    path.write_text(FULL, encoding="utf-8")
    load_schema(path, cache=tmp_path / ".docir" / "run" / "schema.json")
    assert not (tmp_path / ".docir").exists()


def test_an_invalid_schema_is_never_cached_and_a_cached_one_does_not_hide_it(tmp_path: Path) -> None:
    path, cache = _store(tmp_path)
    load_schema(path, cache=cache)
    good = cache.read_bytes()
    path.write_text(FULL.replace("prefix: adr", "prefix: ADR"), encoding="utf-8")
    _next_command()
    with pytest.raises(SchemaError, match="prefix"):
        load_schema(path, cache=cache)
    assert cache.read_bytes() == good
