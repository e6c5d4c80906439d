"""What docir publish prints as JSON (docs/reference/json.markdown is generated from it)."""

# No `from __future__ import annotations`: TypedDict reads NotRequired only from real annotations.
from typing import NotRequired, TypedDict


class PublishReport(TypedDict):
    """What a publish did (or, with --dry-run, would do): documents added, changed and removed, by count, and
    with --dry-run by id. With --remove: whether the repository was there, and how many documents went."""

    repo: str
    remote: str
    database: str
    dry_run: bool
    removed: int
    revision: NotRequired[str | None]
    tables: NotRequired[str]  # current, created, or migrated from version N
    documents: NotRequired[int]
    added: NotRequired[int]
    changed: NotRequired[int]
    unchanged: NotRequired[int]
    written: NotRequired[bool]
    vectors_missing: NotRequired[int]
    model: NotRequired[str | None]
    removed_repository: NotRequired[bool]
    ids: NotRequired[dict[str, list[str]]]
