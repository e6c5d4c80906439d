"""docir adopt PATH [--type TYPE] [--dry-run]"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.errors import UsageError
from docir.services.indexing import session
from docir.services.indexing.session import Session
from docir.services.integrations import adopt
from docir.services.writing.store_writes import git_user


def command(
    path: Annotated[
        Path,
        typer.Argument(help="A folder of Markdown documents (MADR, log4brains, RFCs, ...), or one file.",
                       show_default=False),
    ],
    doc_type: Annotated[str, typer.Option("--type", help="The docir type they become.")] = "decision",
    owner: Annotated[
        Optional[str],
        typer.Option("--owner", help="Owner for documents that have none (required where the type requires it; "
                                     "default: the git user).", show_default=False),
    ] = None,
    key: Annotated[
        Optional[str],
        typer.Option("--key", help="A field that names documents in links between them (e.g. eip).",
                     show_default=False),
    ] = None,
    relation: Annotated[
        Optional[list[str]],
        typer.Option("--relation", metavar="FIELD=KIND",
                     help="Turn a field listing other documents into edges, e.g. requires=depends-on (repeatable).",
                     show_default=False),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan; write nothing.")] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Bring existing documents into the store without losing anything.

    Adds id, type, title and a description (from the document's summary, flagged for review)
    where missing; maps foreign statuses (a "superseded by X" status becomes a supersedes edge
    on X) and keeps the original beside it as status_original. Files under docs/ are adopted
    in place; others are copied into the type's folder, the originals untouched.
    """
    relations = {}
    for item in relation or []:
        name, sep, kind = item.partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise UsageError(f"--relation {item!r} must be FIELD=KIND, e.g. requires=depends-on")
        relations[name.strip()] = kind.strip()

    def action(s: Session) -> dict[str, Any]:
        spec = s.schema.type_spec(doc_type)
        if spec is None:
            raise UsageError(f"unknown type '{doc_type}'; the schema has: {', '.join(s.schema.types)}")
        chosen = owner
        if chosen is None and "owner" in spec.required:
            chosen = git_user(s.store.root)  # as add does: a first adopt needs no --owner in a git repository
        planned = adopt.plan(s, path, spec, owner=chosen, key=key, relations=relations)
        if owner is None and any("owner" in p.added for p in planned):
            render.warn(f"no --owner given; documents without one get the git user, {chosen} "
                        "(pass --owner to choose another)")
        if not dry_run:
            adopt.apply(s, planned)
        return {"dry_run": dry_run, "documents": [p.as_dict() for p in planned],
                "review": sum(1 for p in planned if p.review), "count": len(planned)}

    # No refresh first: the files being adopted are not documents yet, and would only be reported as skipped.
    result = session.run(root, action, refresh=False, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        for doc in result["documents"]:
            changes = [f"+{f}" for f in doc["added"]]
            changes += [f"{k}: {v['from']!r} -> {v['to']!r}" for k, v in doc["mapped"].items()]
            changes += [f"{r['kind']} {r['id']}" for r in doc["related"]]
            flag = "  [review: " + ", ".join(doc["review"]) + "]" if doc["review"] else ""
            print(f"{doc['path']}  {doc['id']}  {'; '.join(changes) or 'nothing to add'}{flag}")
        verb = "would adopt" if dry_run else "adopted"
        print(f"{verb} {result['count']} document(s); {result['review']} flagged for review (docir lint lists them)")
    return 0
