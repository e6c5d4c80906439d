"""docir update ID [--title] [--status] [--append-section H --body B] [...]"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.body_input import BODY_HELP, read_body
from docir.cli.options import JsonOption, RootOption, value_options
from docir.requests import help_of
from docir.services.indexing import session
from docir.services.writing import commands
from docir.services.writing.commands import UpdateRequest as R


def command(
    doc_id: Annotated[str, typer.Argument(metavar="ID", help=help_of(R, "id"), show_default=False)],
    title: Annotated[Optional[str], typer.Option("--title", show_default=False, help=help_of(R, "title"))] = None,
    description: Annotated[
        Optional[str], typer.Option("--description", show_default=False, help=help_of(R, "description"))
    ] = None,
    status: Annotated[Optional[str], typer.Option("--status", show_default=False, help=help_of(R, "status"))] = None,
    tags: Annotated[
        Optional[str], typer.Option("--tags", show_default=False, help="Replace the tags (comma-separated; '' clears).")
    ] = None,
    add_related: Annotated[
        Optional[list[str]],
        typer.Option("--add-related", metavar="KIND:ID", show_default=False, help=help_of(R, "add_related")),
    ] = None,
    remove_related: Annotated[
        Optional[list[str]],
        typer.Option("--remove-related", metavar="KIND:ID", show_default=False, help=help_of(R, "remove_related")),
    ] = None,
    owner: Annotated[Optional[str], typer.Option("--owner", show_default=False, help=help_of(R, "owner"))] = None,
    verified: Annotated[
        Optional[str],
        typer.Option(
            "--verified",
            metavar="[DATE]",
            show_default=False,
            help="Mark as verified on DATE (YYYY-MM-DD); alone, today.",
        ),
    ] = None,
    append_section: Annotated[
        Optional[str],
        typer.Option(
            "--append-section",
            metavar="HEADING",
            show_default=False,
            help="Add a '## HEADING' section with --body at the end.",
        ),
    ] = None,
    replace_section: Annotated[
        Optional[str],
        typer.Option(
            "--replace-section",
            metavar="HEADING",
            show_default=False,
            help="Replace the '## HEADING' section's content with --body.",
        ),
    ] = None,
    replace_body: Annotated[bool, typer.Option("--replace-body", help="Replace the whole body with --body.")] = False,
    body: Annotated[
        Optional[str],
        typer.Option("--body", show_default=False, help=f"Text for the section or body edit: {BODY_HELP}."),
    ] = None,
    field: Annotated[
        Optional[list[str]], typer.Option("--field", metavar="KEY=VALUE", show_default=False, help=help_of(R, "field"))
    ] = None,
    wait_embeddings: Annotated[bool, typer.Option("--wait-embeddings", help=help_of(R, "wait_embeddings"))] = False,
    applies_to: Annotated[
        Optional[list[str]],
        typer.Option("--applies-to", metavar="GLOB", show_default=False, help=help_of(R, "applies_to")),
    ] = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Change a document in place: only the lines of what changed are rewritten."""
    request = R(
        id=doc_id,
        title=title,
        description=description,
        status=status,
        tags=None if tags is None else tuple(tags.split(",")),
        add_related=tuple(add_related or ()),
        remove_related=tuple(remove_related or ()),
        owner=owner,
        verified=verified,
        append_section=append_section,
        replace_section=replace_section,
        replace_body=replace_body,
        body=read_body(body) if body is not None else None,
        field=tuple(field or ()),
        wait_embeddings=wait_embeddings,
        applies_to=None if applies_to is None else tuple(applies_to),
    )
    commands.changes(request)  # a usage error before the store is even opened
    result = session.run(root, lambda s: commands.update(s, request, render.warn), warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        what = ", ".join(result["changed"]) or "nothing (already so)"
        print(f"{result['id']} {result['path']}: {what}")
    return 0


# update's options that take a value: the token after them is that value, never a flag.
# --verified takes one only when a date follows, which is what optional_value decides.
_VALUE_OPTIONS = value_options(command) - {"--verified"}


def optional_value(argv: list[str]) -> list[str]:
    """Let `update --verified` stand alone (meaning today), which click options cannot express.

    Only `update`'s own --verified flag is touched: not another command's text, not an
    option's value, nothing after `--`.
    """
    if not argv or argv[0] != "update":
        return argv
    out: list[str] = [argv[0]]
    index = 1
    while index < len(argv):
        arg = argv[index]
        out.append(arg)
        index += 1
        if arg == "--":
            out.extend(argv[index:])
            break
        if arg in _VALUE_OPTIONS and index < len(argv):
            out.append(argv[index])
            index += 1
        elif arg == "--verified":
            following = argv[index] if index < len(argv) else None
            if following is None or not following[:1].isdigit():
                out.append(commands.TODAY)
    return out
