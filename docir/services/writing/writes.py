"""The write commands as requests: what `docir add|update|archive` and the MCP tools both run.

Each request declares its options once (docir/request_options.py): the CLI derives its parsers
from it. The writes themselves are store_writes.py's. Values arrive as the
words a person types (`KIND:ID`, `KEY=VALUE`, a date or "today") and are checked
here, so a bad value is the same one-line usage error from the CLI and over MCP.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated, NamedTuple

from docir.errors import UsageError
from docir.request_options import Option
from docir.services.indexing.session import Session
from docir.services.vectors.flush import after_write
from docir.services.writing import store_writes as writes

Warn = Callable[[str], None]
TODAY = "today"
WAIT = "Return once its vectors exist."
FIELD = "Another frontmatter field, KEY=VALUE (repeatable)."
UPDATE_FIELD = "Another frontmatter field, KEY=VALUE (repeatable); KEY= removes it."
BODY_HELP = "text, '-' for stdin, '@FILE' for a file"  # what a terminal may give as --body
RELATED = "KIND:ID"
# The terminal's help says what the default does; an agent's tool list pays for every word (adr-9fa8dcd099b0).
KEEP_STATUS = Option("Leave what it supersedes as it is.", terminal_only=True,
                     cli_help="Leave the status of the documents it supersedes as it is (default: they are "
                              "marked superseded in the same write).")


class AddRequest(NamedTuple):
    type: Annotated[str, Option("A type, e.g. decision.", positional=True, metavar="TYPE",
                                cli_help="A type from docs-schema.yaml, e.g. decision.")]
    title: Annotated[str, Option("The document's title.")]
    description: Annotated[str, Option("1-2 sentences to judge it by without the body.",
                                       cli_help="One or two sentences that let a reader judge relevance without "
                                                "the body.")]
    status: Annotated[str | None, Option("Default: the type's default.",
                                         cli_help="Default: the type's default_status.")] = None
    tags: Annotated[tuple[str, ...], Option("Tags, e.g. ranking, context.", typed="commas",
                                            cli_help="Comma-separated tags, e.g. ranking,context.")] = ()
    related: Annotated[tuple[str, ...], Option(
        "An edge KIND:ID, e.g. supersedes:adr-4c21693aac55 (repeatable).", metavar=RELATED)] = ()
    owner: Annotated[str | None, Option(
        "Who answers for it, e.g. @team.",
        cli_help="Who answers for it, e.g. @team (default where required: the git user).")] = None
    body: Annotated[str, Option("The Markdown body.", typed="body", cli_help=f"The Markdown body: {BODY_HELP}.")] = ""
    path: Annotated[str | None, Option(
        "Path under docs/ (default: from the title).",
        cli_help="Its path under docs/; default: the type's folder and the title's slug.")] = None
    field: Annotated[tuple[str, ...], Option(FIELD, metavar="KEY=VALUE")] = ()
    wait_embeddings: Annotated[bool, Option(WAIT, terminal_only=True)] = False
    applies_to: Annotated[tuple[str, ...], Option(
        "A glob of files it governs, e.g. src/auth/** (repeatable).", metavar="GLOB",
        cli_help="A glob of files it governs, from the repository root, e.g. src/auth/** (repeatable).")] = ()
    keep_status: Annotated[bool, KEEP_STATUS] = False


class UpdateRequest(NamedTuple):
    id: Annotated[str, Option("The document to change.", positional=True, metavar="ID")]
    title: Annotated[str | None, Option("New title.")] = None
    description: Annotated[str | None, Option("New description.")] = None
    status: Annotated[str | None, Option("New status.", cli_help="New status, one the type allows.")] = None
    tags: Annotated[tuple[str, ...] | None, Option("Replace the tags; [] clears them.", typed="commas",
                                                   cli_help="Replace the tags (comma-separated; '' clears).")] = None
    add_related: Annotated[tuple[str, ...], Option("Add an edge KIND:ID (repeatable).", metavar=RELATED)] = ()
    remove_related: Annotated[tuple[str, ...], Option("Remove an edge KIND:ID (repeatable).", metavar=RELATED)] = ()
    owner: Annotated[str | None, Option("New owner.")] = None
    verified: Annotated[str | None, Option("Verified on: YYYY-MM-DD or 'today'.",
                                           metavar="[DATE]", alone_means=TODAY,
                                           cli_help="Mark as verified on DATE (YYYY-MM-DD); alone, today.")] = None
    append_section: Annotated[str | None, Option("Append section HEADING with body.", metavar="HEADING",
                                                 cli_help="Append a '## HEADING' section with --body.")] = None
    replace_section: Annotated[str | None, Option(
        "Replace section HEADING with body.", metavar="HEADING",
        cli_help="Replace the '## HEADING' section's content with --body.")] = None
    replace_body: Annotated[bool, Option("Replace the body with body.",
                                         cli_help="Replace the whole body with --body.")] = False
    body: Annotated[str | None, Option("Text for the edit.", typed="body",
                                       cli_help=f"Text for the section or body edit: {BODY_HELP}.")] = None
    field: Annotated[tuple[str, ...], Option(UPDATE_FIELD, metavar="KEY=VALUE")] = ()
    wait_embeddings: Annotated[bool, Option(WAIT, terminal_only=True)] = False
    applies_to: Annotated[tuple[str, ...] | None, Option(
        "New applies_to globs (repeatable).", metavar="GLOB",
        cli_help="New applies_to globs (repeatable); --field applies_to= removes them.")] = None
    keep_status: Annotated[bool, KEEP_STATUS] = False


class ArchiveRequest(NamedTuple):
    id: Annotated[str, Option("The document to archive.", positional=True, metavar="ID")]


def add(session: Session, request: AddRequest, warn: Warn) -> writes.AddResult:
    edges = writes.parse_related(list(request.related))
    fields = writes.parse_fields(list(request.field))
    tags = tuple(t.strip() for t in request.tags if t.strip())
    result = writes.add(session, request.type, title=request.title, description=request.description,
                        status=request.status, tags=tags, related=edges, owner=request.owner, body=request.body,
                        path=request.path, fields=fields, applies_to=tuple(request.applies_to), warn=warn,
                        keep_status=request.keep_status)
    after_write(session, request.wait_embeddings, warn)
    return result


def update(session: Session, request: UpdateRequest, warn: Warn) -> writes.UpdateResult:
    result = writes.update(session, request.id, changes(request), keep_status=request.keep_status)
    if result["embedding"] == "scheduled":
        after_write(session, request.wait_embeddings, warn)
    return result


def archive(session: Session, request: ArchiveRequest, warn: Warn) -> writes.ArchiveResult:
    return writes.archive(session, request.id)


def changes(request: UpdateRequest) -> writes.Changes:
    """What an update request asks for; a usage error for combinations that make no sense."""
    edits = [name for name, on in (("--append-section", request.append_section is not None),
                                   ("--replace-section", request.replace_section is not None),
                                   ("--replace-body", request.replace_body)) if on]
    if len(edits) > 1:
        raise UsageError(f"{' and '.join(edits)} cannot be combined; make one body edit per call")
    if edits and request.body is None:
        raise UsageError(f"{edits[0]} needs --body TEXT (or '-' for stdin, '@FILE' for a file)")
    if request.body is not None and not edits:
        raise UsageError("--body goes with --append-section, --replace-section or --replace-body")
    text = request.body or ""
    found = writes.Changes(
        title=request.title,
        description=request.description,
        status=request.status,
        tags=None if request.tags is None else tuple(t.strip() for t in request.tags if t.strip()),
        add_related=writes.parse_related(list(request.add_related)),
        remove_related=writes.parse_related(list(request.remove_related)),
        owner=request.owner,
        verified=verified_date(request.verified),
        append_section=(request.append_section, text) if request.append_section is not None else None,
        replace_section=(request.replace_section, text) if request.replace_section is not None else None,
        replace_body=text if request.replace_body else None,
        fields=writes.parse_fields(list(request.field)),
        applies_to=None if request.applies_to is None else tuple(request.applies_to),
    )
    if found == writes.Changes():
        raise UsageError("nothing to change; see 'docir update --help' for what can be changed")
    return found


def verified_date(value: str | None) -> dt.date | None:
    if value is None:
        return None
    if value == TODAY:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"--verified {value!r} is not a date; use YYYY-MM-DD, or --verified alone for today") from None
