"""docir search "TEXT" """

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.options import IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.requests import help_of, info
from docir.services.indexing import session
from docir.services.retrieval import commands
from docir.services.retrieval.commands import SearchRequest as R

_LIMIT = info(R, "limit")


def command(
    text: Annotated[str, typer.Argument(help=help_of(R, "text"), show_default=False)],
    limit: Annotated[int, typer.Option("--limit", min=_LIMIT.min, max=_LIMIT.max, help=_LIMIT.help)] = 10,
    include_inactive: IncludeInactiveOption = False,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Full-text search (FTS5, bm25; needs no model). Returns skeletons, never bodies."""
    request = R(text=text, limit=limit, include_inactive=include_inactive, store=tuple(str(s) for s in store or ()))
    result = session.run(root, lambda s: commands.search(s, request, render.warn), warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result.to_json())
    else:
        render.skeleton_table(result.results, heading=f"search: {text}")
    return 0
