"""docir search "TEXT" """

from __future__ import annotations

from typing import Annotated

import typer

from docir.cli import render
from docir.cli.options import MAX_LIMIT, IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.services.indexing import session
from docir.services.retrieval import federation


def command(
    text: Annotated[
        str, typer.Argument(help="Words to look for; any text is safe, it is never query syntax.", show_default=False),
    ],
    limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_LIMIT, help="At most this many results.")] = 10,
    include_inactive: IncludeInactiveOption = False,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Full-text search (FTS5, bm25; needs no model). Returns skeletons, never bodies."""
    results = session.run(
        root, lambda s: federation.with_peers(s, store, render.warn, lambda peers: federation.search(
            s, peers, text, include_inactive=include_inactive, limit=limit)), warn=render.warn
    )
    if render.wants_json(json_out):
        render.emit_json({"query": text, "results": results, "count": len(results)})
    else:
        render.skeleton_table(results, heading=f"search: {text}")
    return 0
