"""docir get ID [ID ...] [--section HEADING]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption, StoreOption
from docir.errors import EXIT_FINDINGS, EXIT_OK
from docir.requests import help_of
from docir.services.indexing import session
from docir.services.retrieval import commands
from docir.services.retrieval.commands import GetRequest as R


def command(
    ids: Annotated[list[str], typer.Argument(help=help_of(R, "ids"), show_default=False)],
    section: Annotated[Optional[str], typer.Option("--section", help=help_of(R, "section"), show_default=False)] = None,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Whole documents (frontmatter and body) by id: any status, archived included; peers too."""
    request = R(ids=tuple(ids), section=section, store=tuple(str(s) for s in store or ()))
    result = session.run(root, lambda s: commands.get(s, request, render.warn), warn=render.warn)
    for doc_id in result.missing:
        render.error(f"no document with id {doc_id}; find ids with 'docir search' or 'docir query'")
    if render.wants_json(json_out):
        render.emit_json(result.to_json())
    else:
        render.documents(result.documents)
    return EXIT_FINDINGS if result.missing or result.no_section else EXIT_OK
