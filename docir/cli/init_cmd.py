"""docir init"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.edge import invocation_of
from docir.cli.options import JsonOption
from docir.services.integrations import githooks
from docir.services.integrations.setup import init_store
from docir.store import SCHEMA_FILE, find_root


def command(
    ctx: typer.Context,
    root: Annotated[
        Optional[Path],
        typer.Option("--root",
                     help="Folder to make a store. "
                          "Default: the store enclosing the current folder, else the current folder.",
                     show_default=False, file_okay=False),
    ] = None,
    hooks: Annotated[
        bool, typer.Option("--hooks", help="Also install the git hooks (see 'docir hooks install')."),
    ] = False,
    json_out: JsonOption = False,
) -> int:
    """Make this folder a docir store: docs/, docs-schema.yaml, .docir/. Safe to run again.

    Folders of decision records the repository keeps (adr-tools' .adr-dir, log4brains'
    .log4brains.yml, MADR's docs/decisions, doc/adr, ...) are listed under records: in the new
    schema and read where they lie, in their own format; no record is changed."""
    # Like every command, init finds an enclosing store first, so running it from a
    # sub-folder completes that store instead of nesting a new one; --root is explicit.
    invocation = invocation_of(ctx, root, json_out)
    here = Path(invocation.cwd)
    home = invocation.path(root).resolve() if root is not None else (find_root(here) or here.resolve())
    report = init_store(home)
    created = report.created
    hook_changes = (githooks.install(githooks.repo_root(home), githooks.interpreter_command(sys.executable))
                    if hooks else [])
    for found in report.records:
        invocation.note(f"reads {found.records} record(s) in {found.path}/ where they lie, as {found.format} "
                        f"(records: in {SCHEMA_FILE}, from {found.source}); they stay as they are")
    if report.excluded_files:
        invocation.note(f"left {_files(len(report.excluded_files))} under docs/ out of the store "
                        f"(exclude: in {SCHEMA_FILE}); 'docir adopt PATH' brings ADRs in")
    elif report.plain:
        invocation.note(f"lint reports {_files(len(report.plain))} under docs/ without docir frontmatter: list them "
                        f"under exclude: in {SCHEMA_FILE}, or bring them in with 'docir adopt PATH'")
    if invocation.wants_json():
        payload: dict[str, object] = {"root": str(home), "created": created, "exclude": report.excluded,
                                      "excluded": report.excluded_files, "plain_markdown": report.plain,
                                      "records": [found._asdict() for found in report.records]}
        if hooks:
            payload["hooks"] = [{"name": c.name, "action": c.action} for c in hook_changes]
        render.emit_json(payload, invocation)
    elif created:
        invocation.print(f"docir store ready in {home}: created {', '.join(created)}")
    else:
        invocation.print(f"docir store already set up in {home}; nothing to do")
    if not invocation.wants_json():
        for change in hook_changes:
            invocation.print(f"git hook {change.name}: {change.action}")
    return 0


def _files(count: int) -> str:
    return f"{count} existing Markdown file{'s' if count != 1 else ''}"
