"""docir context "TASK" [--also "TASK2" ...] [--limit N] [--explain] [--no-expand]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.requests import help_of, info
from docir.services.indexing import session
from docir.services.retrieval import commands
from docir.services.retrieval.commands import ContextRequest as R

_LIMIT = info(R, "limit")


def command(
    task: Annotated[str, typer.Argument(help=help_of(R, "task"), show_default=False)],
    also: Annotated[Optional[list[str]], typer.Option("--also", help=help_of(R, "also"), show_default=False)] = None,
    limit: Annotated[int, typer.Option("--limit", min=_LIMIT.min, max=_LIMIT.max, help=_LIMIT.help)] = 8,
    explain: Annotated[bool, typer.Option("--explain", help=help_of(R, "explain"))] = False,
    no_expand: Annotated[bool, typer.Option("--no-expand", help="Do not add documents linked to the results.")] = False,
    no_refs: Annotated[bool, typer.Option("--no-refs", help="Leave reference corpora out.")] = False,
    include_inactive: IncludeInactiveOption = False,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """The few documents that matter for a task: hybrid ranking plus linked documents. Skeletons only.

    Then fetch the bodies you need in one call: docir get ID1 ID2 ...
    """
    request = R(task=task, also=tuple(also or ()), limit=limit, explain=explain, expand=not no_expand,
                refs=not no_refs, include_inactive=include_inactive, store=tuple(str(s) for s in store or ()))
    result = session.run(root, lambda s: commands.context(s, request, render.warn), warn=render.warn)
    if result.semantic != "on":
        render.note(f"semantic ranking is {result.semantic}; results are lexical only")
    elif result.pending:
        render.note(f"{result.pending} document(s) are still being embedded in the background; "
                    "they are found lexically until then ('docir embed --flush' waits for them)")
    elif result.sections_pending:
        render.note(f"{result.sections_pending} document(s) still wait for their section vectors; "
                    "they are ranked by their document vector until then")
    if render.wants_json(json_out):
        render.emit_json(result.to_json())
    else:
        render.skeleton_table(result.results, heading=f"context: {task}")
    return 0
