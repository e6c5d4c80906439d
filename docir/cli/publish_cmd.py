"""docir publish URL [--as NAME] [--dry-run] [--remove] [--wait-embeddings]"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from docir.cli import render
from docir.cli.edge import in_store, invocation_of
from docir.cli.options import JsonOption, RootOption
from docir.invocation import Invocation
from docir.services.indexing.session import Session


def command(
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(metavar="URL", help="postgresql://[user@]host[:port]/database; the password "
                                       "from PGPASSWORD, ~/.pgpass or PGSERVICE.", show_default=False)],
    as_name: Annotated[
        str | None, typer.Option("--as", metavar="NAME", help="Publish under NAME instead of the name the git "
                                 "remote gives (github.com/org/repo).", show_default=False),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be added, changed and removed; "
                                          "write nothing.")] = False,
    remove: Annotated[bool, typer.Option("--remove", help="Take this repository and all its documents out of "
                                         "the organisation store.")] = False,
    wait_embeddings: Annotated[
        bool, typer.Option("--wait-embeddings", help="Compute every due vector first; without it, documents "
                           "whose vectors are due are published without them (and counted)."),
    ] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Publish this repository's documents to the organisation store (PostgreSQL with pgvector).

    The store then holds exactly the current documents, their sections, links and the vectors
    the index already has: one transaction, only what changed is written, and a second run
    writes nothing. Needs `pip install 'docir[org]'`.
    """
    from docir.org import connect
    from docir.org.report import PublishReport
    from docir.services.publishing import publish

    invocation = invocation_of(ctx, root, json_out)
    connect.check_url(url)
    if connect.has_password(url):
        invocation.warn("the URL holds a password, which shell history and CI logs keep; "
                        "prefer PGPASSWORD, ~/.pgpass or PGSERVICE")
    if remove:
        if wait_embeddings:
            invocation.warn("--wait-embeddings does nothing with --remove")
        report = publish.remove(invocation.store_root(), url, invocation.settings(), as_name=as_name, dry_run=dry_run,
                                warn=invocation.warn)
    else:
        def action(s: Session) -> PublishReport:
            if wait_embeddings:
                publish.wait_for_vectors(s, invocation.warn)
            return publish.publish(s, url, as_name=as_name, dry_run=dry_run,
                                   progress=_progress(publish.BATCH, invocation), warn=invocation.warn,
                                   note=invocation.note)

        report = in_store(invocation, action)
        if report.get("vectors_missing"):
            invocation.warn(f"{report['vectors_missing']} of {report['documents']} documents are published "
                            "without all their vectors (they are due); run with --wait-embeddings, or "
                            "'docir embed --flush' first")
    if invocation.wants_json():
        render.emit_json(report, invocation)
    else:
        render.key_values(f"publish {report['repo']} to {report['database']}", _summary(dict(report)), invocation)
    return 0


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    if report.get("dry_run"):
        result = "dry run: nothing written"
    elif "removed_repository" in report:
        result = "removed" if report["removed_repository"] else "not published there: nothing to remove"
    else:
        result = "written" if report.get("written") else "up to date: nothing written"
    shown: dict[str, Any] = {"result": result}
    shown.update((key, report[key]) for key in _SHOWN if key in report)
    for kind, listed in report.get("ids", {}).items():
        if listed:
            shown[f"{kind} ids"] = listed
    return {k: ("-" if v is None or v == "" else v) for k, v in shown.items()}


_SHOWN = ("remote", "revision", "tables", "model", "documents", "added", "changed", "removed", "unchanged",
          "vectors_missing")


def _progress(batch: int, invocation: Invocation) -> Any:
    """Documents written so far, on stderr, when there is more than one batch to write: redrawn in place
    on a terminal, a line a batch in a CI log."""
    err = invocation.stderr
    live = err.isatty()

    def show(done: int, total: int) -> None:
        if total <= batch:
            return
        line = f"docir: publishing: {done:,}/{total:,} documents written"
        err.write(f"\r{line}" + ("\n" if done == total else "") if live else f"{line}\n")
        err.flush()

    return show
