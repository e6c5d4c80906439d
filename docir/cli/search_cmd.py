"""docir search "TEXT" """

from __future__ import annotations

from docir.cli import agent_text, render
from docir.cli.route import Declared
from docir.errors import EXIT_OK
from docir.invocation import Invocation
from docir.services.retrieval import reads
from docir.services.retrieval.results import SearchResult


def show(request: reads.SearchRequest, result: SearchResult, invocation: Invocation) -> int:
    """Full-text search (FTS5, bm25; needs no model). Returns skeletons, never bodies."""
    form = invocation.read_form()
    if form == "json":
        render.emit_json(result.to_json(), invocation)
    elif form == "text":
        invocation.stdout.write(agent_text.of("search", request, result.to_json()))
    else:
        render.skeleton_table(result.results, heading=f"search: {request.text}", invocation=invocation)
    return EXIT_OK


DECLARED = Declared(reads.SearchRequest, serve=reads.search, show=show)
