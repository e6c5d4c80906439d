"""docir lint [PATHS] [--staged] [--deep] [--format text|json|github] [--exit-zero]"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import bodies
from docir.cli.bodies import Format
from docir.cli.options import RootOption


def command(
    files: Annotated[
        Optional[list[Path]],
        typer.Argument(metavar="[PATHS]...",
                       help="Check these files only: they are read, the rest of the store is known from the "
                            "index (kept fresh by the usual stat walk). Default: every document.",
                       show_default=False),
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
    staged: Annotated[
        bool, typer.Option("--staged", help="Check what the next commit would hold: the documents and schema "
                                            "staged in git's index, not the files on disk (what the "
                                            "pre-commit hook runs)."),
    ] = False,
    root: RootOption = None,
) -> int:
    """Check the schema and the documents: exit 1 on errors, 0 on warnings only. See 'docir rule CODE'."""
    return bodies.lint(files, deep=deep, output=output, exit_zero=exit_zero, require_model=require_model, root=root,
                       staged=staged)
