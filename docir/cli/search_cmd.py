"""docir search "TEXT" """

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import bodies
from docir.cli.options import IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.requests import help_of, info
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
    return bodies.search(text, limit=limit, include_inactive=include_inactive, store=store, root=root,
                         json_out=json_out)
