"""docir update ID [--title] [--status] [--append-section H --body B] [...]"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Optional

import typer

from docir.cli import render
from docir.cli.body_input import read_body
from docir.cli.embed_cmd import after_write
from docir.cli.options import JsonOption, RootOption
from docir.errors import UsageError
from docir.services.indexing import session
from docir.services.indexing.session import Session
from docir.services.writing import writes

TODAY = "today"


def command(
    doc_id: Annotated[str, typer.Argument(metavar="ID", help="The document to change.", show_default=False)],
    title: Annotated[Optional[str], typer.Option("--title", show_default=False, help="New title.")] = None,
    description: Annotated[
        Optional[str], typer.Option("--description", show_default=False, help="New description."),
    ] = None,
    status: Annotated[
        Optional[str], typer.Option("--status", show_default=False, help="New status; must be allowed for the type."),
    ] = None,
    tags: Annotated[
        Optional[str],
        typer.Option("--tags", show_default=False, help="Replace the tags (comma-separated; '' clears)."),
    ] = None,
    add_related: Annotated[
        Optional[list[str]],
        typer.Option("--add-related", metavar="KIND:ID", show_default=False, help="Add an edge (repeatable)."),
    ] = None,
    remove_related: Annotated[
        Optional[list[str]],
        typer.Option("--remove-related", metavar="KIND:ID", show_default=False, help="Remove an edge (repeatable)."),
    ] = None,
    owner: Annotated[Optional[str], typer.Option("--owner", show_default=False, help="New owner.")] = None,
    verified: Annotated[
        Optional[str],
        typer.Option("--verified", metavar="[DATE]", show_default=False,
                     help="Mark as verified on DATE (YYYY-MM-DD); alone, today."),
    ] = None,
    append_section: Annotated[
        Optional[str],
        typer.Option("--append-section", metavar="HEADING", show_default=False,
                     help="Add a '## HEADING' section with --body at the end."),
    ] = None,
    replace_section: Annotated[
        Optional[str],
        typer.Option("--replace-section", metavar="HEADING", show_default=False,
                     help="Replace the '## HEADING' section's content with --body."),
    ] = None,
    replace_body: Annotated[bool, typer.Option("--replace-body", help="Replace the whole body with --body.")] = False,
    body: Annotated[
        Optional[str],
        typer.Option("--body", show_default=False,
                     help="Text for the section/body edit: text, '-' for stdin, '@FILE'."),
    ] = None,
    field: Annotated[
        Optional[list[str]],
        typer.Option("--field", metavar="KEY=VALUE", show_default=False,
                     help="Set any other frontmatter field; KEY= removes it (repeatable)."),
    ] = None,
    wait_embeddings: Annotated[
        bool, typer.Option("--wait-embeddings", help="Return only once the new vectors are computed."),
    ] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Change a document in place: only the lines of what changed are rewritten."""
    edits = [name for name, on in (("--append-section", append_section is not None),
                                   ("--replace-section", replace_section is not None),
                                   ("--replace-body", replace_body)) if on]
    if len(edits) > 1:
        raise UsageError(f"{' and '.join(edits)} cannot be combined; make one body edit per call")
    if edits and body is None:
        raise UsageError(f"{edits[0]} needs --body TEXT (or '-' for stdin, '@FILE' for a file)")
    if body is not None and not edits:
        raise UsageError("--body goes with --append-section, --replace-section or --replace-body")
    text = read_body(body) if body is not None else ""
    changes = writes.Changes(
        title=title,
        description=description,
        status=status,
        tags=None if tags is None else tuple(t.strip() for t in tags.split(",") if t.strip()),
        add_related=writes.parse_related(add_related or []),
        remove_related=writes.parse_related(remove_related or []),
        owner=owner,
        verified=_date(verified),
        append_section=(append_section, text) if append_section is not None else None,
        replace_section=(replace_section, text) if replace_section is not None else None,
        replace_body=text if replace_body else None,
        fields=writes.parse_fields(field or []),
    )
    if changes == writes.Changes():
        raise UsageError("nothing to change; see 'docir update --help' for what can be changed")
    def action(s: Session) -> dict[str, Any]:
        result = writes.update(s, doc_id, changes)
        if "embedding" in result and result["embedding"] == "scheduled":
            after_write(s, wait_embeddings)
        return result

    result = session.run(root, action, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        what = ", ".join(result["changed"]) or "nothing (already so)"
        print(f"{result['id']} {result['path']}: {what}")
    return 0


def _date(value: str | None) -> dt.date | None:
    if value is None:
        return None
    if value == TODAY:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"--verified {value!r} is not a date; use YYYY-MM-DD, or --verified alone for today") from None


# update's options that take a value: the token after them is that value, never a flag.
_VALUE_OPTIONS = frozenset({"--title", "--description", "--status", "--tags", "--add-related", "--remove-related",
                            "--owner", "--append-section", "--replace-section", "--body", "--field", "--root"})


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
                out.append(TODAY)
    return out
