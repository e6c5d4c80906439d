"""docir ref add|list|remove: read-only reference corpora searched beside docs/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.edge import in_store, invocation_of
from docir.cli.options import JsonOption, RootOption
from docir.invocation import Invocation
from docir.schema import load_schema
from docir.services.indexing import references
from docir.services.indexing.session import Session
from docir.services.vectors.drainer import ensure_worker
from docir.store import Store

app = typer.Typer(help="Reference corpora: upstream or vendor docs, "
                       "searchable with context but never linted or edited.",
                  no_args_is_help=True)


@app.command("add")
def add(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A folder (its *.md and *.txt files) or one file.", show_default=False)],
    name: Annotated[
        Optional[str], typer.Option("--name", help="The corpus name (default: the folder's name).", show_default=False),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run",
                     help="Print the plan (files, heading paths, token counts); write nothing, call no model."),
    ] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Register a reference corpus and index it (again: only changed files are re-read)."""
    invocation = invocation_of(ctx, root, json_out)
    target = invocation.path(path)
    if dry_run:
        # No session: opening the index would create it, and a dry run writes nothing.
        store = Store(invocation.store_root())
        counter = references.counter_for_store(invocation.settings(), store, load_schema(store.schema_path).model_path)
        plan = references.plan(target.resolve(), counter)
        if invocation.wants_json():
            render.emit_json(plan, invocation)
        else:
            _print_plan(plan, invocation)
        return 0

    def action(s: Session) -> references.IngestJSON:
        progress = None if invocation.wants_json() else render.progress_bar("reading", invocation)
        report = references.add(s, target, name, progress).as_dict()
        if report["added"] or report["updated"]:
            ensure_worker(s.caller, s.store.root)  # the worker embeds the new chunks
        return report

    result = in_store(invocation, action, refresh=False)
    for skipped in result["skipped"]:
        invocation.note(f"skipped {skipped['path']}: {skipped['reason']}")
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        render.key_values(f"ref {result['name']}", {k: v for k, v in result.items() if k not in ("name", "skipped")},
                          invocation)
    return 0


@app.command("list")
def list_refs(ctx: typer.Context, root: RootOption = None, json_out: JsonOption = False) -> int:
    """The registered corpora, with their files and chunks in the index."""
    invocation = invocation_of(ctx, root, json_out)
    rows = in_store(invocation, references.listing, refresh=False)
    if invocation.wants_json():
        render.emit_json({"refs": rows}, invocation)
    elif not rows:
        invocation.print("no reference corpora; add one with: docir ref add PATH")
    else:
        for row in rows:
            missing = "" if row["exists"] else "  (path missing)"
            invocation.print(f"{row['name']}  {row['path']}  {row['files']} files, {row['chunks']} chunks{missing}")
    return 0


@app.command("remove")
def remove(ctx: typer.Context,
           name: Annotated[str, typer.Argument(help="The corpus name (see 'docir ref list').", show_default=False)],
           root: RootOption = None, json_out: JsonOption = False) -> int:
    """Unregister a corpus and drop its chunks from the index (its files are not touched)."""
    invocation = invocation_of(ctx, root, json_out)
    result = in_store(invocation, lambda s: references.remove(s, name), refresh=False)
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        invocation.print(f"removed {result['name']} ({result['removed_files']} files out of the index)")
    return 0


def _print_plan(plan: references.AddPlan, invocation: Invocation) -> None:
    print = invocation.print  # noqa: A001 (the caller's stdout, wherever the command runs)
    for file in plan["files"]:
        print(f"{file['file']}: {file['chunk_count']} chunk(s)")
        for chunk in file["chunks"]:
            more = " (continued)" if chunk["continuation"] else ""
            print(f"  {' > '.join(chunk['heading_path'])}  {chunk['tokens']} tokens{more}")
    for skipped in plan["skipped"]:
        print(f"skip {skipped['path']}: {skipped['reason']}")
    print(f"{len(plan['files'])} file(s), {plan['chunk_count']} chunk(s), "
          f"budget {plan['budget']} tokens; nothing written")
