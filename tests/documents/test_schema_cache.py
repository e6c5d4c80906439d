"""Every command loads the schema; an unchanged text is parsed once, an edited one at once again."""

from __future__ import annotations

from pathlib import Path

import pytest

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
