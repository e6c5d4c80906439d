"""docir hooks install|uninstall (and `run`, what the installed hooks call)."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.edge import caller_of, invocation_of
from docir.cli.options import JsonOption
from docir.errors import EXIT_OK
from docir.invocation import Invocation
from docir.services.indexing import reindex, session
from docir.services.indexing.session import Session
from docir.services.integrations import githooks
from docir.services.lint import commit
from docir.services.vectors.drainer import ensure_worker
from docir.store import Store
from docir.worker import paths

app = typer.Typer(help="Plain git hooks: lint staged documents before a commit, "
                       "refresh the index after checkout, merge and rebase.",
                  no_args_is_help=True)

RepoOption = Annotated[
    Optional[Path],
    typer.Option("--repo", help="The git repository (default: the current one).", show_default=False, file_okay=False),
]


@app.command("install")
def install(ctx: typer.Context, repo: RepoOption = None, json_out: JsonOption = False) -> int:
    """Install docir's hooks (honours core.hooksPath); a hook already there is kept and run first."""
    invocation = invocation_of(ctx, json=json_out)
    changes = githooks.install(_repo(repo, invocation), githooks.interpreter_command(sys.executable))
    return _report(changes, invocation)


@app.command("uninstall")
def uninstall(ctx: typer.Context, repo: RepoOption = None, json_out: JsonOption = False) -> int:
    """Remove docir's hooks and put back exactly the hooks they chained."""
    invocation = invocation_of(ctx, json=json_out)
    return _report(githooks.uninstall(_repo(repo, invocation)), invocation)


@app.command("run", hidden=True)
def run(ctx: typer.Context, event: Annotated[str, typer.Argument(help="The git hook being run.")],
        args: Annotated[Optional[list[str]], typer.Argument(help="The hook's own arguments.")] = None) -> int:
    """What an installed hook runs. Refresh events always exit 0."""
    invocation = invocation_of(ctx)
    repo = githooks.repo_root(Path(invocation.cwd))
    roots = githooks.store_roots(repo)
    if not roots:
        return EXIT_OK  # this repository holds no docir store
    if event == "pre-commit":
        return _lint_staged(repo, roots, invocation)
    if event == "auto":
        event = githooks.event_from_pre_commit(dict(invocation.env))
    reason = githooks.refresh_skip_reason(event, args or [], dict(invocation.env), repo)
    for root in roots:
        _refresh_store(root, event, reason, invocation)
    return EXIT_OK


def _refresh_store(root: Path, event: str, reason: str | None, invocation: Invocation) -> None:
    try:
        if reason is None:
            counts = session.run(root, _refresh, caller=caller_of(invocation), refresh=False, warn=invocation.warn)
            _log(root, f"{event}: refreshed {counts}")
        else:
            _log(root, f"{event}: skipped ({reason})")
    except Exception as exc:  # a refresh must never fail the git command that ran it
        invocation.warn(f"index refresh of {root} after {event} failed ({exc}); run 'docir reindex' there")


def _refresh(s: Session) -> dict[str, int]:
    # Reference corpora are not re-walked here: hashing a vendor tree would make checkouts slow.
    result = reindex.reindex(s, refs=False)
    if result["embeddings_due"]:
        ensure_worker(s.caller, s.store.root)  # git changed text: the worker computes the vectors
    return {k: int(v) for k, v in result.items() if isinstance(v, int)}


def _lint_staged(repo: Path, roots: list[Path], invocation: Invocation) -> int:
    reports = commit.lint_stores([Store(root) for root in roots], caller_of(invocation), repo)
    if not reports:
        return EXIT_OK
    here = Path(invocation.cwd)
    report = commit.merged(reports, here)
    render.findings(report, here, "text", invocation)
    if report.errors:
        invocation.print("docir: fix the errors above, or commit with DOCIR=0 to skip this check")
        return 1
    return EXIT_OK


def _repo(repo: Path | None, invocation: Invocation) -> Path:
    return githooks.repo_root((invocation.path(repo) if repo is not None else Path(invocation.cwd)).resolve())


def _log(root: Path, message: str) -> None:
    log = paths.ensure_run_dir(root) / "hooks.log"
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"{dt.datetime.now().isoformat(timespec='seconds')} {message}\n")


def _report(changes: list[githooks.HookChange], invocation: Invocation) -> int:
    if invocation.wants_json():
        render.emit_json({"hooks": [{"name": c.name, "action": c.action} for c in changes]}, invocation)
    else:
        for change in changes:
            invocation.print(f"{change.name}: {change.action}")
    return EXIT_OK
