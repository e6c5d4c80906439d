"""docir query [--type] [--status] [--tag] [--owner] [--stale] [--related-to] [--limit]"""

from __future__ import annotations

from docir.cli import agent_text, render
from docir.cli.route import Declared
from docir.errors import EXIT_OK
from docir.invocation import Invocation
from docir.services.retrieval import reads
from docir.services.retrieval.results import QueryResult


def show(request: reads.QueryRequest, result: QueryResult, invocation: Invocation) -> int:
    """List skeletons by structured filters (no ranking, no model)."""
    form = invocation.read_form()
    if form == "json":
        render.emit_json(result.to_json(), invocation)
    elif form == "text":
        invocation.stdout.write(agent_text.of("query", request, result.to_json()))
    else:
        render.skeleton_table(result.results, heading="query", invocation=invocation)
    return EXIT_OK


DECLARED = Declared(reads.QueryRequest, serve=reads.query, show=show)
