"""docir add TYPE --title T --description D [...]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.body_input import BODY_HELP, read_body
from docir.cli.options import JsonOption, RootOption
from docir.requests import help_of
from docir.services.indexing import session
from docir.services.writing import commands
from docir.services.writing.commands import AddRequest as R


def command(
    doc_type: Annotated[str, typer.Argument(metavar="TYPE", help=help_of(R, "type"), show_default=False)],
    title: Annotated[str, typer.Option("--title", help=help_of(R, "title"), show_default=False)],
    description: Annotated[str, typer.Option("--description", help=help_of(R, "description"), show_default=False)],
    status: Annotated[Optional[str], typer.Option("--status", help=help_of(R, "status"), show_default=False)] = None,
    tags: Annotated[Optional[str], typer.Option("--tags", help="Comma-separated tags, e.g. ranking,context.",
                                                show_default=False)] = None,
    related: Annotated[Optional[list[str]], typer.Option("--related", metavar="KIND:ID", help=help_of(R, "related"),
                                                         show_default=False)] = None,
    owner: Annotated[Optional[str], typer.Option("--owner", help=help_of(R, "owner"), show_default=False)] = None,
    body: Annotated[Optional[str], typer.Option("--body", help=f"The Markdown body: {BODY_HELP}.",
                                                show_default=False)] = None,
    path: Annotated[Optional[str], typer.Option("--path", help=help_of(R, "path"), show_default=False)] = None,
    field: Annotated[Optional[list[str]], typer.Option("--field", metavar="KEY=VALUE", help=help_of(R, "field"),
                                                       show_default=False)] = None,
    wait_embeddings: Annotated[bool, typer.Option("--wait-embeddings", help=help_of(R, "wait_embeddings"))] = False,
    applies_to: Annotated[Optional[list[str]], typer.Option("--applies-to", metavar="GLOB",
                                                            help=help_of(R, "applies_to"), show_default=False)] = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Create a document; prints its new id and path."""
    request = R(type=doc_type, title=title, description=description, status=status,
                tags=tuple((tags or "").split(",")), related=tuple(related or ()), owner=owner,
                body=read_body(body) if body is not None else "", path=path, field=tuple(field or ()),
                wait_embeddings=wait_embeddings, applies_to=tuple(applies_to or ()))
    result = session.run(root, lambda s: commands.add(s, request, render.warn), warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        print(f"{result['id']} {result['path']}")
        print(next_step(result["id"], result["path"], bool(request.body.strip())))
    return 0


def next_step(doc_id: str, path: str, has_body: bool) -> str:
    """What a person at a terminal does next with the document just created (JSON callers need no advice)."""
    if not has_body:
        return (f"next: write its body in {path} (or: docir update {doc_id} --replace-body @FILE), "
                f"then: docir lint {path}")
    return f"next: docir lint {path} && git add {path}"
