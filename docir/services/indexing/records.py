"""What the rows of records read in place were read with: the schema's parts and the code they follow.

A record read in place (adr-0c5e2d8f1a47) becomes a row through its format's readers and the schema (its
type's statuses and prefix, the relation kinds): change either and the same file reads differently. The
index keeps the stamp of what its rows were read with; a session whose stamp differs reads them again.
"""

from __future__ import annotations

import json
from pathlib import Path

import docir
from docir.schema import Schema
from docir.store import sources_stamp

READ_WITH = "records_read_with"  # the index setting that holds the stamp
# The last schema stamped and its stamp: a warm worker reads with one schema object until the text changes
# (schema.parsed_schema keeps it), so each of its reads need not stat the readers again.
_LAST: list[tuple[Schema, str]] = []


def stamp(schema: Schema) -> str:
    """stamp_of(schema), kept for the schema object last asked of."""
    if _LAST and _LAST[0][0] is schema:
        return _LAST[0][1]
    made = stamp_of(schema)
    _LAST[:] = [(schema, made)]
    return made


def stamp_of(schema: Schema) -> str:
    """The stamp of what reads this schema's records: its folders, their types, the relation kinds, and
    docir's version and readers (an editable checkout changes them without changing the version)."""
    readers = Path(__file__).resolve().parents[2] / "documents" / "records"
    parts = {
        "docir": docir.__version__,
        "code": sources_stamp(sorted(readers.glob("*.py"))),
        "records": [list(folder) for folder in schema.records],
        "types": {folder.type: schema.types[folder.type]._asdict() for folder in schema.records
                  if folder.type in schema.types},
        "relations": {name: list(kind) for name, kind in schema.relations.items()},
        "lint": [schema.lint.description_min, schema.lint.description_max],
    }
    # The text itself, not a hash of it: a cold command need not load hashlib to compare a few hundred bytes.
    return json.dumps(parts, sort_keys=True, default=sorted, separators=(",", ":"))
