"""docir context "TASK" [--also "TASK2" ...] [--limit N] [--explain] [--no-expand]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import MAX_LIMIT, IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.services.indexing import references, session
from docir.services.indexing.session import Session
from docir.services.retrieval import federation


def command(
    task: Annotated[str, typer.Argument(help="What you are about to do, in plain words.", show_default=False)],
    also: Annotated[
        Optional[list[str]],
        typer.Option("--also", help="Another task; the tasks take turns at the head of the result (repeatable).",
                     show_default=False),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=MAX_LIMIT, help="How many ranked documents (linked ones come on top)."),
    ] = 8,
    explain: Annotated[
        bool,
        typer.Option("--explain",
                     help="Show why each ranked: lexical and vector ranks, fts score, matched terms, winning chunk."),
    ] = False,
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
    from docir.services.retrieval import ranking  # numpy: imported only by the commands that rank by vectors
    from docir.services.vectors.query_source import query_source

    queries = [task, *(also or [])]

    def action(s: Session) -> ranking.ContextResult:
        if not no_refs:
            references.ensure_ingested(s)
        source = query_source(s.schema.model_path, s.store.root)
        return federation.with_peers(s, store, render.warn, lambda peers: federation.context(
            s, peers, queries, source, limit=limit, expand=not no_expand, explain=explain,
            include_inactive=include_inactive, refs=not no_refs))

    result = session.run(root, action, warn=render.warn)
    if result.semantic != "on":
        render.note(f"semantic ranking is {result.semantic}; results are lexical only")
    elif result.pending:
        render.note(f"{result.pending} document(s) are still being embedded in the background; "
                    "they are found lexically until then ('docir embed --flush' waits for them)")
    if render.wants_json(json_out):
        render.emit_json({"query": task, "also": also or [], "semantic": result.semantic, "pending": result.pending,
                          "results": result.results, "count": len(result.results)})
    else:
        render.skeleton_table(result.results, heading=f"context: {task}")
    return 0
