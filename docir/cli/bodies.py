"""What the everyday read commands do once their options are parsed, without typer.

get, search, query and lint run here whichever way they were parsed: by their typer command
(get_cmd.py, ...) or by the thin entry point (thin.py), which parses the plain forms of these
commands before typer is imported. One body each, so both ways do exactly the same thing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from docir.cli import render
from docir.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from docir.services.indexing import session

if TYPE_CHECKING:
    from docir.services.lint.checks import LintReport


class Format(str, Enum):
    text = "text"
    json = "json"
    github = "github"


def _stores(store: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(str(s) for s in store or ())


def get(ids: Sequence[str], section: str | None = None, store: Sequence[str] | None = None,
        root: Path | None = None, json_out: bool = False) -> int:
    from docir.services.retrieval import commands

    request = commands.GetRequest(ids=tuple(ids), section=section, store=_stores(store))
    result = session.run(root, lambda s: commands.get(s, request, render.warn), warn=render.warn)
    for doc_id in result.missing:
        if doc_id in result.outside:
            path = result.outside[doc_id]
            render.error(f"{doc_id} is outside this sparse checkout ({path}); "
                         f"'git sparse-checkout add {path.rpartition('/')[0]}' brings it in")
        else:
            render.error(f"no document with id {doc_id}; find ids with 'docir search' or 'docir query'")
    if render.wants_json(json_out):
        render.emit_json(result.to_json())
    else:
        render.documents(result.documents)
    return EXIT_FINDINGS if result.missing or result.no_section else EXIT_OK


def search(text: str, limit: int = 10, include_inactive: bool = False, store: Sequence[str] | None = None,
           root: Path | None = None, json_out: bool = False) -> int:
    from docir.services.retrieval import commands

    request = commands.SearchRequest(text=text, limit=limit, include_inactive=include_inactive, store=_stores(store))
    result = session.run(root, lambda s: commands.search(s, request, render.warn), warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result.to_json())
    else:
        render.skeleton_table(result.results, heading=f"search: {text}")
    return EXIT_OK


def query(doc_type: Sequence[str] | None = None, status: Sequence[str] | None = None,
          tag: Sequence[str] | None = None, owner: str | None = None, stale: bool | None = None,
          related_to: str | None = None, limit: int = 50, include_inactive: bool = False,
          store: Sequence[str] | None = None, root: Path | None = None, json_out: bool = False) -> int:
    from docir.services.retrieval import commands

    request = commands.QueryRequest(type=tuple(doc_type or ()), status=tuple(status or ()), tag=tuple(tag or ()),
                                    owner=owner, stale=stale, related_to=related_to, limit=limit,
                                    include_inactive=include_inactive, store=_stores(store))
    result = session.run(root, lambda s: commands.query(s, request, render.warn), warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result.to_json())
    else:
        render.skeleton_table(result.results, heading="query")
    return EXIT_OK


def lint(files: Sequence[Path] | None = None, deep: bool = False, output: Format = Format.text,
         exit_zero: bool = False, require_model: bool = False, root: Path | None = None,
         staged: bool = False) -> int:
    from docir.services.indexing.session import Session
    from docir.services.lint import checks
    from docir.store import open_store

    if staged:
        return _lint_staged(root, files, deep, output, exit_zero)
    store = open_store(root)
    paths = None if files is None else [_store_relative(store.root, f) for f in files]
    report, schema, corpus = checks.lint_store(store, paths)
    if deep and schema is not None:
        from docir.services.lint import deep as near_duplicate_check
        from docir.services.vectors.query_source import query_source

        def action(s: Session) -> None:
            near_duplicate_check.near_duplicates(s, query_source(s.schema.model_path, s.store.root), report, paths)
        session.run(store.root, action, warn=render.warn)
        if report.semantic and report.semantic != "on":
            render.note(f"near-duplicate check skipped: semantic layer is {report.semantic}")
            if require_model:
                return EXIT_USAGE
    checks.apply_suppressions(report, corpus, paths)
    print_findings(report, store.root, output)
    return EXIT_FINDINGS if report.errors and not exit_zero else EXIT_OK


def _lint_staged(root: Path | None, files: Sequence[Path] | None, deep: bool, output: Format,
                 exit_zero: bool) -> int:
    """--staged: the store at --root, else every store of the repository the commit touches; with
    PATHS, the staged text of those files (the pre-commit framework passes them, --all-files too)."""
    from docir.errors import UsageError
    from docir.services.integrations import githooks
    from docir.services.lint import staged
    from docir.store import Store, open_store

    if deep:
        raise UsageError("--staged reads no embeddings; run 'docir lint --deep' without it")
    if root is not None:
        roots = [open_store(root).root]
        repo = githooks.repo_root(roots[0], required=True)
    else:
        repo = githooks.repo_root(Path.cwd(), required=True)
        roots = githooks.store_roots(repo) or [open_store(None).root]
    named = None if files is None else [_top_level(repo, f) for f in files]
    report = staged.merged(staged.lint_stores([Store(r) for r in roots], repo, named), Path.cwd())
    print_findings(report, Path.cwd(), output)
    return EXIT_FINDINGS if report.errors and not exit_zero else EXIT_OK


def _top_level(repo: Path, path: Path) -> str:
    return Path(os.path.relpath((Path.cwd() / path).resolve(), repo.resolve())).as_posix()


def _store_relative(root: Path, path: Path) -> str:
    absolute = (Path.cwd() / path).resolve()
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _shown(root: Path, path: str) -> str:
    """Paths as the user's shell sees them: relative to the working folder when inside it."""
    relative = os.path.relpath(root / path, Path.cwd())
    return path if relative.startswith("..") else relative


def print_findings(report: LintReport, root: Path, output: Format) -> None:
    if output is Format.json:
        render.emit_json({"findings": [dict(f.as_dict(), path=_shown(root, f.path)) for f in report.findings],
                          "summary": {"errors": report.errors, "warnings": report.warnings, "files": report.files},
                          "semantic": report.semantic})
        return
    for f in report.findings:
        if output is Format.github:
            level = "error" if f.severity == "error" else "warning"
            print(f"::{level} file={_shown(root, f.path)},line={f.line},col={f.col},"
                  f"title={f.code} {f.alias}::{f.message}")
        else:
            print(f"{_shown(root, f.path)}:{f.line}:{f.col}: {f.code} {f.message}")
    if output is Format.text:
        if report.findings:
            print(f"Found {report.errors} error(s) and {report.warnings} warning(s) in {report.files} file(s).")
        else:
            print(f"All checks passed ({report.files} file(s)).")
