"""docir get ID [ID ...] [--section HEADING]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import bodies
from docir.cli.options import JsonOption, RootOption, StoreOption
from docir.requests import help_of
from docir.services.retrieval.commands import GetRequest as R


def command(
    ids: Annotated[list[str], typer.Argument(help=help_of(R, "ids"), show_default=False)],
    section: Annotated[Optional[str], typer.Option("--section", help=help_of(R, "section"), show_default=False)] = None,
    store: StoreOption = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Whole documents (frontmatter and body) by id: any status, archived included; peers too."""
    return bodies.get(ids, section=section, store=store, root=root, json_out=json_out)
