"""The lint of a commit: each store's part of what git has staged, checked as the commit would hold it
(the pre-commit hook and `docir lint --staged`, adr-b6dd1c2330ab)."""

from __future__ import annotations

import os
from pathlib import Path

from docir.gitio import BlobReader
from docir.services.indexing.caller import Caller
from docir.services.lint import checks
from docir.services.lint.registry import LintReport
from docir.services.lint.staged import Change, staged_changes, staged_store
from docir.store import SCHEMA_FILE, Store


def lint_commit(store: Store, caller: Caller, repo: Path, changes: list[Change], reader: BlobReader,
                named: list[str] | None = None) -> LintReport | None:
    """The lint of what the commit would hold in this store (suppressions applied), or None when the
    commit touches none of the store's documents and not its schema."""
    part = staged_store(store, repo, changes, reader, named)
    if part is None:
        return None
    report, _schema, corpus = checks.lint_store(store, caller, staged=part)
    checks.apply_suppressions(report, corpus, [*part.texts, SCHEMA_FILE])
    return report


def lint_stores(stores: list[Store], caller: Caller, repo: Path,
                named: list[str] | None = None) -> list[tuple[Path, LintReport]]:
    """lint_commit of each store for the changes staged in `repo` now: one `git diff`, one
    `git cat-file` for them all; the stores the commit does not touch are left out."""
    env = caller.settings.env
    reader = BlobReader(repo, env)
    try:
        changes = staged_changes(repo, env)
        found = [(store.root, lint_commit(store, caller, repo, changes, reader, named)) for store in stores]
    finally:
        reader.close()
    return [(root, report) for root, report in found if report is not None]


def merged(reports: list[tuple[Path, LintReport]], base: Path) -> LintReport:
    """The stores' reports as one, each path relative to `base`: one summary, one JSON document."""
    report = LintReport(files=sum(r.files for _, r in reports))
    for root, each in reports:
        report.findings.extend(f._replace(path=Path(os.path.relpath(root / f.path, base)).as_posix())
                               for f in each.findings)
    return report
