"""The typer app: one module per command, registered here."""

from __future__ import annotations

import typer

from docir import __version__
from docir.cli import (
    add_cmd,
    adopt_cmd,
    agents_cmd,
    archive_cmd,
    context_cmd,
    embed_cmd,
    get_cmd,
    hooks_cmd,
    init_cmd,
    lint_cmd,
    mcp_cmd,
    query_cmd,
    ref_cmd,
    reindex_cmd,
    rule_cmd,
    search_cmd,
    update_cmd,
    worker_cmd,
)

HELP = """The right few design documents of a repository, fast.

Typical use: `docir search "TASK"` (or `docir context "TASK"`) lists skeletons — title,
description, status, links, never the body; then `docir get ID1 ID2` fetches the bodies
you need in one call. Output is JSON when piped, a table on a terminal.

Exit codes: 0 ok, 1 not found / findings, 2 usage or input error, 3 internal error.
"""

# Exactly these read commands may fan out to peer stores (adr-148bb3028835); writes never do.
FEDERATED_COMMANDS = frozenset({"get", "query", "search", "context"})


def _version(value: bool) -> None:
    if value:
        print(f"docir {__version__}")
        raise typer.Exit(0)


def build_app() -> typer.Typer:
    app = typer.Typer(name="docir", help=HELP, no_args_is_help=True, add_completion=False,
                      pretty_exceptions_enable=False, rich_markup_mode=None)

    @app.callback()
    def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                           help="Print the version and exit.")) -> None:
        """The right few design documents of a repository, fast."""

    app.command("init")(init_cmd.command)
    app.command("add")(add_cmd.command)
    app.command("update")(update_cmd.command)
    app.command("archive")(archive_cmd.command)
    app.command("get")(get_cmd.command)
    app.command("query")(query_cmd.command)
    app.command("search")(search_cmd.command)
    app.command("context")(context_cmd.command)
    app.command("reindex")(reindex_cmd.command)
    app.command("embed")(embed_cmd.command)
    app.command("lint")(lint_cmd.command)
    app.command("rule")(rule_cmd.command)
    app.command("mcp")(mcp_cmd.command)
    app.command("agents")(agents_cmd.command)
    app.command("adopt")(adopt_cmd.command)
    app.add_typer(worker_cmd.app, name="worker")
    app.add_typer(hooks_cmd.app, name="hooks")
    app.add_typer(ref_cmd.app, name="ref")
    return app
