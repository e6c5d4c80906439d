"""The pure half of sync: which files must be read, from stat alone; what changed, from their hashes.

No I/O here: sync.py walks and applies, and the forked walk of a cold command (prewalk.py) plans
with the same functions in its child.
"""

# No `from __future__ import annotations`: typing would compile each annotation of these classes as a
# string when the class is made, on every cold command (adr-d5e80517405b).
from typing import NamedTuple

from docir.documents.conflicts import IN_CONFLICT
from docir.documents.scan import FileStat
from docir.index.docs_table import DocsTable
from docir.index.records import FileState


class StatPlan(NamedTuple):
    to_read: tuple[str, ...]  # new on disk, or stat differs from the index
    gone: tuple[str, ...]  # indexed, no longer on disk
    gone_skipped: tuple[str, ...]  # remembered as unreadable, no longer on disk
    # Skipped files every read warns of, not only the first, while they stay as they were: a document
    # in conflict (it is out until resolved) and a symlink the walk does not follow (it hides what it
    # points at, adr-7c2e94a0d5b1).
    unresolved: tuple[tuple[str, str], ...] = ()  # (path, reason)

    @property
    def empty(self) -> bool:
        return not (self.to_read or self.gone or self.gone_skipped)


class ChangePlan(NamedTuple):
    added: tuple[str, ...]
    changed: tuple[str, ...]
    moved: tuple[tuple[str, str], ...]  # (old path, new path)
    removed: tuple[str, ...]
    touched: tuple[str, ...]  # stat changed, bytes did not


def plan_stats(disk: dict[str, FileStat], indexed: dict[str, FileStat], skipped: dict[str, FileStat]) -> StatPlan:
    """Which files must be read, from stat alone (what the index and its skipped files remember of
    each); unchanged files are never opened."""
    to_read = [path for path, stat in disk.items() if (indexed.get(path) or skipped.get(path)) != stat]
    gone = [p for p in indexed if p not in disk]
    gone_skipped = [p for p in skipped if p not in disk]
    return StatPlan(tuple(sorted(to_read)), tuple(sorted(gone)), tuple(sorted(gone_skipped)))


def plan_changes(read: dict[str, str], indexed: dict[str, FileState], gone: tuple[str, ...]) -> ChangePlan:
    """Classify the files read (path -> sha256) against the index."""
    gone_by_sha: dict[str, list[str]] = {}
    for path in gone:
        gone_by_sha.setdefault(indexed[path].sha256, []).append(path)
    added: list[str] = []
    changed: list[str] = []
    moved: list[tuple[str, str]] = []
    touched: list[str] = []
    for path in sorted(read):
        sha = read[path]
        before = indexed.get(path)
        if before is not None:
            (touched if before.sha256 == sha else changed).append(path)
        elif gone_by_sha.get(sha):
            moved.append((gone_by_sha[sha].pop(0), path))
        else:
            added.append(path)
    moved_from = {old for old, _ in moved}
    removed = tuple(p for p in gone if p not in moved_from)
    return ChangePlan(tuple(added), tuple(changed), tuple(moved), removed, tuple(touched))


class Scan(NamedTuple):
    """The files on disk and what the index remembered of them, at one moment.

    `disk` and `indexed` hold every file, or at least every one the plan names: a plan made in the
    cold command's forked walk (prewalk.py) comes with the stats of the files it names only.
    """

    files: int  # Markdown files found under docs/
    disk: dict[str, FileStat]
    indexed: dict[str, FileState]  # those of the files the plan names: filled by rescan, which apply takes
    plan: StatPlan


_NOTHING = StatPlan((), (), ())


def plan_scan(disk: dict[str, FileStat], docs: DocsTable) -> Scan:
    """The plan for the files on disk against the index's document rows.

    Most often nothing changed: that is one dict comparison in C (DocsTable.stats). The index's
    whole states (with their hashes) are never read here: rescan reads those of the planned files.
    """
    indexed = docs.stats()
    remembered = docs.skipped_files()
    skipped = {path: (s.size, s.mtime_ns) for path, s in remembered.items()}
    if not skipped and indexed == disk:
        return Scan(len(disk), disk, {}, _NOTHING)
    unresolved = tuple(sorted((path, s.reason) for path, s in remembered.items()
                              if (s.size < 0 or IN_CONFLICT in s.reason) and disk.get(path) == skipped[path]))
    return Scan(len(disk), disk, {}, plan_stats(disk, indexed, skipped)._replace(unresolved=unresolved))
