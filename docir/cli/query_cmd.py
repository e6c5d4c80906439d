"""docir query [--type] [--status] [--tag] [--owner] [--stale] [--related-to] [--limit]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import bodies
from docir.cli.options import IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.requests import help_of, info
from docir.services.retrieval.commands import QueryRequest as R

_LIMIT = info(R, "limit")


def command(
    doc_type: Annotated[
        Optional[list[str]], typer.Option("--type", help=help_of(R, "type"), show_default=False)
    ] = None,
    status: Annotated[
        Optional[list[str]], typer.Option("--status", help=help_of(R, "status"), show_default=False)
    ] = None,
    tag: Annotated[Optional[list[str]], typer.Option("--tag", help=help_of(R, "tag"), show_default=False)] = None,
    owner: Annotated[Optional[str], typer.Option("--owner", help=help_of(R, "owner"), show_default=False)] = None,
    stale: Annotated[
        Optional[bool],
        typer.Option("--stale/--fresh", help="Only stale (or only fresh) documents.", show_default=False),
    ] = None,
    related_to: Annotated[
        Optional[str], typer.Option("--related-to", help=help_of(R, "related_to"), show_default=False)
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=_LIMIT.min, max=_LIMIT.max, help=_LIMIT.help)] = 50,
    include_inactive: IncludeInactiveOption = False,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """List skeletons by structured filters (no ranking, no model)."""
    return bodies.query(doc_type, status=status, tag=tag, owner=owner, stale=stale, related_to=related_to,
                        limit=limit, include_inactive=include_inactive, store=store, root=root, json_out=json_out)
