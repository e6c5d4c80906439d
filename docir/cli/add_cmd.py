"""docir add TYPE --title T --description D [...]"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from docir.cli import render
from docir.cli.body_input import read_body
from docir.cli.embed_cmd import after_write
from docir.cli.options import JsonOption, RootOption
from docir.services.indexing import session
from docir.services.indexing.session import Session
from docir.services.writing import writes


def command(
    doc_type: Annotated[
        str, typer.Argument(metavar="TYPE", help="A type from docs-schema.yaml, e.g. decision.", show_default=False),
    ],
    title: Annotated[str, typer.Option("--title", help="The document's title.", show_default=False)],
    description: Annotated[
        str,
        typer.Option("--description", help="One or two sentences that let a reader judge relevance without the body.",
                     show_default=False),
    ],
    status: Annotated[
        Optional[str], typer.Option("--status", help="Default: the type's default_status.", show_default=False),
    ] = None,
    tags: Annotated[
        Optional[str], typer.Option("--tags", help="Comma-separated tags, e.g. ranking,context.", show_default=False),
    ] = None,
    related: Annotated[
        Optional[list[str]],
        typer.Option("--related", metavar="KIND:ID",
                     help="A typed edge, e.g. supersedes:adr-4c21693aac55 (repeatable).", show_default=False),
    ] = None,
    owner: Annotated[
        Optional[str], typer.Option("--owner", help="Who answers for it, e.g. @team.", show_default=False),
    ] = None,
    body: Annotated[
        Optional[str],
        typer.Option("--body", help="The Markdown body: text, '-' for stdin, '@FILE' for a file.", show_default=False),
    ] = None,
    path: Annotated[
        Optional[str],
        typer.Option("--path",
                     help="Where to write it, relative to the store root and inside docs/, e.g. docs/adr/0042.md. "
                          "Default: the type's folder and a slug of the title.", show_default=False),
    ] = None,
    field: Annotated[
        Optional[list[str]],
        typer.Option("--field", metavar="KEY=VALUE", help="Any other frontmatter field (repeatable).",
                     show_default=False),
    ] = None,
    wait_embeddings: Annotated[
        bool, typer.Option("--wait-embeddings", help="Return only once the new vectors are computed."),
    ] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Create a document; prints its new id and path."""
    tag_list = tuple(t.strip() for t in (tags or "").split(",") if t.strip())
    edges = writes.parse_related(related or [])
    fields = writes.parse_fields(field or [])
    text = read_body(body) if body is not None else ""
    def action(s: Session) -> dict[str, Any]:
        result = writes.add(s, doc_type, title=title, description=description, status=status, tags=tag_list,
                            related=edges, owner=owner, body=text, path=path, fields=fields)
        after_write(s, wait_embeddings)
        return result

    result = session.run(root, action, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        print(f"{result['id']} {result['path']}")
    return 0
