"""Adopt's plan written all or nothing, under the store's write lock, then indexed."""

from __future__ import annotations

from pathlib import Path

from docir.documents.files import write_all
from docir.errors import InputError
from docir.services.adoption.planning import Plan
from docir.services.indexing import sync
from docir.services.indexing.session import Session


def write(session: Session, plan: Plan) -> list[str]:
    """Write every changed record of `plan` (a failure leaves every file as it was) and index it; return the
    store-relative paths written."""
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
        for item in changes:
            sync.index_file(root, session.catalog, item.target)
    return [item.target for item in changes]


def _text_now(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
