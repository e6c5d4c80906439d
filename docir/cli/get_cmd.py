"""docir get ID [ID ...] [--section HEADING]"""

from __future__ import annotations

from docir.cli import agent_text, render
from docir.cli.route import Declared
from docir.documents.ids import is_valid_id
from docir.errors import EXIT_FINDINGS, EXIT_OK
from docir.invocation import Invocation
from docir.services.retrieval import reads
from docir.services.retrieval.results import GetResult


def show(request: reads.GetRequest, result: GetResult, invocation: Invocation) -> int:
    """Whole documents (frontmatter and body) by id: any status, archived included; peers too."""
    for doc_id in result.missing:
        if doc_id in result.outside:
            path = result.outside[doc_id]
            invocation.error(f"{doc_id} is outside this sparse checkout ({path}); "
                             f"'git sparse-checkout add {path.rpartition('/')[0]}' brings it in")
        elif is_valid_id(doc_id):
            invocation.error(f"no document with id {doc_id}; find ids with 'docir search' or 'docir query'")
        else:  # a number reference ("ADR 21") that names no one document
            invocation.error(f"no one document numbered {doc_id!r}; find ids with 'docir search' or 'docir query'")
    form = invocation.read_form()
    if form == "json":
        render.emit_json(result.to_json(), invocation)
    elif form == "text":
        invocation.stdout.write(agent_text.of("get", request, result.to_json(), say_missing=False))  # stderr says it
    else:
        render.documents(result.documents, invocation)
    return EXIT_FINDINGS if result.missing or result.no_section else EXIT_OK


DECLARED = Declared(reads.GetRequest, serve=reads.get, show=show)
