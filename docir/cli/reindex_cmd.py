"""docir reindex [--full]"""

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.services import maintenance, session


def command(
    full: Annotated[bool, typer.Option("--full", help="Forget the index and rebuild it from every file.")] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Bring the index in line with the files: added, changed, moved and removed documents.

    Unchanged files (same size and mtime) are not even opened.
    """
    report = session.run(root, lambda s: maintenance.reindex(s, full=full), refresh=False, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(report)
    else:
        render.key_values("reindex", {k: (len(v) if isinstance(v, list) else v) for k, v in report.items()})
    return 0
