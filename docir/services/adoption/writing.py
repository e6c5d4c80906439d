"""Adopt's plan written all or nothing, under the store's write lock, then indexed; and the store's exclude
list settled so that what adopt took is the store's and what it left out in docs/ is not (adr-547a50927c6b)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from docir import schema_edit
from docir.documents.files import write_all
from docir.documents.ownership import PREFIX, Ownership
from docir.errors import InputError
from docir.schema import load_schema
from docir.services.adoption.planning import Plan
from docir.services.indexing import sync
from docir.services.indexing.session import Session


class Written(NamedTuple):
    paths: list[str]  # store-relative, every file adopt wrote
    included: list[str]  # exclude globs taken off (or '!' globs put on): what adopt took is the store's
    excluded: list[str]  # exclude globs put on: what adopt left out in docs/ stays out of the store


def write(session: Session, plan: Plan) -> Written:
    """Write every changed record of `plan` (a failure leaves every file as it was), index it, and settle
    the exclude list."""
    root = session.store.root
    with session.locked():
        changes = [item for item in plan.documents if item.changed]
        files: list[tuple[Path, str, str | None]] = []
        for item in changes:
            target = root / item.target
            copied = target.resolve() != item.source.resolve()
            if copied and target.exists():
                raise InputError(f"{item.target} already exists; adopt never overwrites a file")
            if not copied and _text_now(item.source) != item.foreign.text:
                raise InputError(f"{item.target} changed while adopt planned it; run adopt again")
            files.append((target, item.text, None if copied else item.foreign.text))
        write_all(files)
        if plan.records is not None:  # read where it lies from now on, as its team's tool keeps writing there
            schema_edit.add_record_folders(session.store, [plan.records])
        included: list[str] = []
        # The folder first: a glob naming it goes whole, rather than one '!' glob per record taken back.
        for paths in ([plan.folder] if plan.inside_docs else [], [item.target for item in plan.documents]):
            if paths:
                changed = schema_edit.include_again(session.store, paths)
                included += [*changed.removed, *changed.added]
        excluded = left_out(session, plan)
        if excluded:
            schema_edit.exclude_more(session.store, excluded)
        for item in changes:
            sync.index_file(root, session.catalog, item.target, session.schema)
    return Written([item.target for item in changes], included, excluded)


def left_out(session: Session, plan: Plan) -> list[str]:
    """Exclude globs for the files adopt left out in docs/ (templates, READMEs, what it cannot read) that the
    store would otherwise own: lint would report them, and they are not the store's documents."""
    owned = Ownership.of(load_schema(session.store.schema_path))
    return [skipped.path[len(PREFIX):] for skipped in plan.skipped
            if plan.inside_docs and owned.owns(skipped.path)]


def _text_now(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
