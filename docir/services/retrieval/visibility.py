"""The one visibility predicate: archived documents and the type's closed statuses.

Every read path (query, search, context's ranking and its graph expansion)
asks `Visibility.allows`; none re-states the rule, so a filter that holds on
one path cannot leak on another.
"""

from __future__ import annotations

from typing import NamedTuple

from docir.schema import Schema


class Visibility(NamedTuple):
    inactive: dict[str, frozenset[str]]  # type -> its closed statuses
    include_inactive: bool = False

    @classmethod
    def from_schema(cls, schema: Schema, include_inactive: bool = False) -> Visibility:
        return cls({name: spec.inactive_statuses for name, spec in schema.types.items()}, include_inactive)

    def allows(self, doc_type: str, status: str, archived: bool) -> bool:
        if archived:
            return False
        if self.include_inactive:
            return True
        return status not in self.inactive.get(doc_type, frozenset())
