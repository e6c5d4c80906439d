"""docir query [--type] [--status] [--tag] [--owner] [--stale] [--related-to] [--limit]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import MAX_LIMIT, IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.index.records import Filters
from docir.services.indexing import session
from docir.services.retrieval import federation


def command(
    doc_type: Annotated[
        Optional[list[str]], typer.Option("--type", help="Only this type (repeatable).", show_default=False),
    ] = None,
    status: Annotated[
        Optional[list[str]],
        typer.Option("--status",
                     help="Only this status (repeatable); naming a closed status shows it without --include-inactive.",
                     show_default=False),
    ] = None,
    tag: Annotated[
        Optional[list[str]],
        typer.Option("--tag", help="Only documents with this tag (repeatable: all must match).", show_default=False),
    ] = None,
    owner: Annotated[
        Optional[str], typer.Option("--owner", help="Only documents with this owner.", show_default=False),
    ] = None,
    stale: Annotated[
        Optional[bool],
        typer.Option("--stale/--fresh", help="Only stale (or only fresh) documents.", show_default=False),
    ] = None,
    related_to: Annotated[
        Optional[str],
        typer.Option("--related-to", help="Only documents with an edge to or from this id.", show_default=False),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_LIMIT, help="At most this many results.")] = 50,
    include_inactive: IncludeInactiveOption = False,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """List skeletons by structured filters (no ranking, no model)."""
    filters = Filters(tuple(doc_type or ()), tuple(status or ()), tuple(tag or ()), owner, related_to)
    results = session.run(
        root,
        lambda s: federation.with_peers(s, store, render.warn, lambda peers: federation.query(
            s, peers, filters, stale=stale, include_inactive=include_inactive, limit=limit)),
        warn=render.warn,
    )
    if render.wants_json(json_out):
        render.emit_json({"results": results, "count": len(results)})
    else:
        render.skeleton_table(results, heading="query")
    return 0
