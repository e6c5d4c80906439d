"""docir lint [PATHS] [--deep] [--format text|json|github] [--exit-zero]"""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import RootOption
from docir.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from docir.services.indexing import session
from docir.services.indexing.session import Session
from docir.services.lint import checks
from docir.store import open_store


class Format(str, Enum):
    text = "text"
    json = "json"
    github = "github"


def command(
    files: Annotated[
        Optional[list[Path]],
        typer.Argument(metavar="[PATHS]...",
                       help="Report on these files only (cross-document checks still read the whole store). "
                            "Default: everything.", show_default=False),
    ] = None,
    deep: Annotated[
        bool, typer.Option("--deep", help="Also look for near-duplicate documents by embedding similarity."),
    ] = False,
    output: Annotated[
        Format, typer.Option("--format", help="text (path:line:col: CODE message), json, or github annotations."),
    ] = Format.text,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when there are errors.")] = False,
    require_model: Annotated[
        bool, typer.Option("--require-model", help="With --deep: fail (exit 2) when no embedding model is available."),
    ] = False,
    root: RootOption = None,
) -> int:
    """Check the schema and the documents: exit 1 on errors, 0 on warnings only. See 'docir rule CODE'."""
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


def print_findings(report: checks.LintReport, root: Path, output: Format) -> None:
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
