"""What the schema's checker says of a `types:` or `relations:` section it cannot use."""

from __future__ import annotations

from docir.schema import default_schema_text, parse_schema


def messages(text: str) -> list[tuple[int, str]]:
    schema, problems = parse_schema(text)
    assert (schema is None) == bool(problems)
    return [(p.line, p.message) for p in problems]


def test_the_default_schema_has_no_problem() -> None:
    assert messages(default_schema_text()) == []


def test_types_must_be_a_non_empty_mapping_and_relations_a_mapping() -> None:
    assert messages("types: {}\nrelations: [a]\n") == [
        (2, "'relations' must map each relation kind to its settings"),
        (1, "'types' must map each document type to its settings"),
    ]


def test_a_badly_named_type_or_relation_kind_is_named_and_the_rest_still_read() -> None:
    text = (
        "types:\n"
        "  Bad Name: {prefix: bad, statuses: [draft], default_status: draft}\n"
        "  note: {prefix: note, statuses: [draft], default_status: draft}\n"
        "relations:\n"
        "  Relates_To: {}\n"
        "  cites: {}\n"
    )
    assert messages(text) == [
        (5, "relation kind 'Relates_To' must be lowercase letters, digits, '-' or '_'"),
        (2, "type name 'Bad Name' must be lowercase letters, digits, '-' or '_'"),
    ]
    text = "\n".join(line for line in text.splitlines() if "Bad" not in line and "Relates_To" not in line)
    schema, problems = parse_schema(text)
    assert problems == [] and schema is not None
    assert list(schema.types) == ["note"] and list(schema.relations) == ["cites"]
