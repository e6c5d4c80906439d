"""docir lint [PATHS] [--staged] [--deep] [--format text|json|github] [--exit-zero]"""

from __future__ import annotations

import os
from pathlib import Path

from docir.cli.route import Declared
from docir.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from docir.invocation import Invocation
from docir.services.lint.lint_request import LintRequest


def run(request: LintRequest, invocation: Invocation) -> int:
    """Check the schema and the documents: exit 1 on errors, 0 on warnings only. See 'docir rule CODE'."""
    # Here, not at the top: the module is loaded to parse the words, before the walk of docs/ begins.
    from docir.cli import render
    from docir.cli.edge import caller_of, in_store
    from docir.services.indexing import session
    from docir.services.lint import checks
    from docir.store import Store

    files = request.files or None
    if request.staged:
        return _staged(request, files, invocation)
    store = Store(invocation.store_root())
    paths = None if files is None else [_store_relative(store.root, f, invocation) for f in files]
    report, schema, corpus = checks.lint_store(store, caller_of(invocation), paths)
    if request.deep and schema is not None:
        from docir.services.lint import deep as near_duplicate_check
        from docir.services.vectors.query_source import query_source

        def action(s: session.Session) -> None:
            source = query_source(s.caller, s.schema.model_path, s.store.root)
            near_duplicate_check.near_duplicates(s, source, report, paths)
        in_store(invocation, action)
        if report.semantic and report.semantic != "on":
            invocation.note(f"near-duplicate check skipped: semantic layer is {report.semantic}")
            if request.require_model:
                return EXIT_USAGE
    checks.apply_suppressions(report, corpus, paths)
    render.findings(report, store.root, request.format, invocation)
    return EXIT_FINDINGS if report.errors and not request.exit_zero else EXIT_OK


def _staged(request: LintRequest, files: tuple[str, ...] | None, invocation: Invocation) -> int:
    """--staged: the store at --root, else every store of the repository the commit touches; with
    PATHS, the staged text of those files (the pre-commit framework passes them, --all-files too)."""
    from docir.cli import render
    from docir.cli.edge import caller_of
    from docir.errors import UsageError
    from docir.services.integrations import githooks
    from docir.services.lint import commit
    from docir.store import Store

    if request.deep:
        raise UsageError("--staged reads no embeddings; run 'docir lint --deep' without it")
    here = Path(invocation.cwd)
    if invocation.root is not None:
        roots = [invocation.store_root()]
        repo = githooks.repo_root(roots[0], required=True)
    else:
        repo = githooks.repo_root(here, required=True)
        roots = githooks.store_roots(repo) or [invocation.store_root()]
    named = None if files is None else [_top_level(repo, f, invocation) for f in files]
    report = commit.merged(commit.lint_stores([Store(r) for r in roots], caller_of(invocation), repo, named), here)
    render.findings(report, here, request.format, invocation)
    return EXIT_FINDINGS if report.errors and not request.exit_zero else EXIT_OK


def _top_level(repo: Path, path: str, invocation: Invocation) -> str:
    return Path(os.path.relpath(invocation.path(path).resolve(), repo.resolve())).as_posix()


def _store_relative(root: Path, path: str, invocation: Invocation) -> str:
    absolute = invocation.path(path).resolve()
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()


DECLARED = Declared(LintRequest, run=run, json=False)
