"""docir get ID [ID ...] [--section HEADING]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption, StoreOption
from docir.errors import EXIT_FINDINGS, EXIT_OK
from docir.services.indexing import session
from docir.services.retrieval import federation


def command(
    ids: Annotated[
        list[str], typer.Argument(help="One or more document ids; fetch all you need in one call.", show_default=False),
    ],
    section: Annotated[
        Optional[str],
        typer.Option("--section", help="Return only the section with this heading (e.g. a matched_section).",
                     show_default=False),
    ] = None,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Whole documents (frontmatter and body) by id: any status, archived included; peers too."""
    result = session.run(root, lambda s: federation.with_peers(
                             s, store, render.warn, lambda peers: federation.get(s, peers, ids, section)),
                         warn=render.warn)
    for doc_id in result.missing:
        render.error(f"no document with id {doc_id}; find ids with 'docir search' or 'docir query'")
    if render.wants_json(json_out):
        render.emit_json({"documents": result.documents, "missing": result.missing})
    else:
        render.documents(result.documents)
    return EXIT_FINDINGS if result.missing or result.no_section else EXIT_OK
