"""Bring the index in line with the files: plan with pure code, then apply.

The plan is made in two pure steps (planning.py). From stat alone (size, mtime_ns) it
decides which files must be read; only those are hashed. From the hashes it
decides what was added, changed, moved (same bytes, new path: no re-embed),
removed, or merely touched. Then one transaction applies it.
"""

# No `from __future__ import annotations`: typing would compile each annotation of these classes as a
# string when the class is made, on every cold command (adr-d5e80517405b).
import os
from pathlib import Path
from typing import NamedTuple

from docir.documents.files import MAX_DOCUMENT_BYTES
from docir.documents.ownership import Ownership
from docir.documents.scan import link_reason
from docir.errors import InputError
from docir.index.catalog import Catalog
from docir.index.changes import Kept
from docir.index.records import DocRow, FileState, SkippedFile
from docir.schema import Schema
from docir.services.indexing import prewalk
from docir.services.indexing.planning import Scan, plan_changes, plan_scan, plan_stats
from docir.services.indexing.shared_walk import scan_docs_shared

_PLANS: Kept[Scan] = Kept()


class SyncReport(NamedTuple):
    added: int = 0
    updated: int = 0
    moved: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: tuple[tuple[str, str], ...] = ()  # newly skipped (path, reason)


def scan(root: Path, docs_dir: Path, catalog: Catalog, owned: Ownership, *, fresh: bool = False) -> Scan:
    """Walk docs/ for the documents `owned` leaves in and plan against the index as it is now: a file
    newly excluded is gone from the index, one newly taken back is new (adr-547a50927c6b).

    The walk is shared with the commands that ask at the same time, and always begins after this call,
    or is the one a cold command began when it started (prewalk.py, adr-b4d840c5ec82), taken once.
    """
    begun = prewalk.take(root, docs_dir, owned)
    if fresh:  # the index changed since the forked walk planned against it: plan again
        return plan_scan(scan_docs_shared(root, docs_dir, owned), catalog.docs)
    if begun is not None and begun.planned is not None:
        index, plan = begun.planned
        if index == catalog.identity:  # planned against this very file; rescan checks it under the lock
            return Scan(begun.files, begun.disk, {}, plan)
    disk = begun.disk if begun is not None and begun.planned is None else scan_docs_shared(root, docs_dir, owned)
    # In a long-lived process, the same walk (nothing changed in docs/: shared_walk.py) against the same
    # index (index/changes.py) is the same plan.
    return _PLANS.get(catalog.stamp(), lambda: plan_scan(disk, catalog.docs), lambda held: held.disk is disk)


def rescan(catalog: Catalog, current: Scan) -> Scan:
    """The plan made again for the files `current` names, against the index as it is now.

    No other file needs a look: the index only ever takes a later state of a file than the one a
    walk saw, so a file that matched it when `current` was planned is current or newer there still.
    This is how a plan made before the write lock is checked under it (another process may have
    synced meanwhile), and how a plan made in a forked walk is checked against this process's index.
    """
    plan = current.plan
    disk = {path: current.disk[path] for path in plan.to_read}
    indexed = catalog.docs.file_states(plan.to_read + plan.gone)
    skipped = catalog.docs.skipped_files(plan.to_read + plan.gone_skipped)
    stats = {path: (s.size, s.mtime_ns) for path, s in indexed.items()}
    return Scan(current.files, disk, indexed,
                plan_stats(disk, stats, {path: (s.size, s.mtime_ns) for path, s in skipped.items()}))


def apply(root: Path, catalog: Catalog, current: Scan, schema: Schema | None = None) -> SyncReport:
    """Read what the stat plan names, classify it, and write the index in one transaction; `current`
    comes from rescan, under the write lock."""
    # Parsing a file (frontmatter, yaml, chunking, hashing) only when one changed: a cold read of an
    # unchanged store plans from stat alone and never loads it (cold start, adr-d5e80517405b).
    from docir.services.indexing.convert import is_archived_path, load_document, to_row

    disk, indexed, stat_plan = current.disk, current.indexed, current.plan
    hashes: dict[str, str] = {}
    rows: dict[str, DocRow] = {}
    skipped: list[SkippedFile] = []
    for path in stat_plan.to_read:
        size, mtime_ns = disk[path]
        if size < 0:  # a symlink the walk did not follow: remembered, and said on every read (StatPlan.unresolved)
            skipped.append(SkippedFile(path, size, mtime_ns, link_reason(size)))
            continue
        try:
            if size > MAX_DOCUMENT_BYTES:
                raise InputError(f"{size // (1024 * 1024)} MB is over the "
                                 f"{MAX_DOCUMENT_BYTES // (1024 * 1024)} MB limit for a document")
            before = indexed.get(path)
            doc, _text, sha = load_document(root, path, schema)
            if not doc.id:
                raise InputError("no 'id' in the frontmatter")
            hashes[path] = sha
            if before is None or before.sha256 != sha:
                rows[path] = to_row(doc, sha, size, mtime_ns)
        except InputError as exc:
            skipped.append(SkippedFile(path, size, mtime_ns, _reason(exc)))
        except OSError as exc:  # vanished or unreadable between scan and read
            skipped.append(SkippedFile(path, size, mtime_ns, exc.strerror or str(exc)))
    plan = plan_changes(hashes, indexed, stat_plan.gone + tuple(s.path for s in skipped if s.path in indexed))
    with catalog.transaction():
        for old, new in plan.moved:
            catalog.docs.move(old, FileState(new, *disk[new], hashes[new]), is_archived_path(new))
        for path in plan.removed:
            catalog.docs.remove(path)
        for path in plan.added + plan.changed:
            catalog.docs.upsert(rows[path])  # which also makes its vectors due
            catalog.docs.clear_skipped(path)
        for path in plan.touched:
            catalog.docs.touch(FileState(path, *disk[path], hashes[path]))
            catalog.docs.clear_skipped(path)
        for item in skipped:
            catalog.docs.set_skipped(item)
        for path in stat_plan.gone_skipped:
            catalog.docs.clear_skipped(path)
    return SyncReport(added=len(plan.added), updated=len(plan.changed), moved=len(plan.moved),
                      removed=len(plan.removed), unchanged=current.files - len(stat_plan.to_read) + len(plan.touched),
                      skipped=tuple((s.path, s.reason) for s in skipped))


def index_file(root: Path, catalog: Catalog, relpath: str, schema: Schema | None = None) -> int:
    """Index one file docir itself just wrote (inside the caller's write lock); return its rowid."""
    from docir.services.indexing.convert import load_document, to_row  # see apply

    doc, _text, sha = load_document(root, relpath, schema)
    st = os.stat(root / relpath)
    with catalog.transaction():
        rowid = catalog.docs.upsert(to_row(doc, sha, st.st_size, st.st_mtime_ns))
        catalog.docs.clear_skipped(relpath)
    return rowid


def _reason(exc: InputError) -> str:
    line = getattr(exc, "line", None)
    return f"line {line}: {exc.message}" if line and line > 1 else exc.message

