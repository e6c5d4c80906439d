"""The typer app: one module per command, imported only when its command runs.

A command run without a warm worker (a git hook, CI, a sandbox, the first call) pays for
every module it imports. So the group knows its commands by name (docir/commands.py) and imports a
command's module, and builds its click command from the module's typer signature, only
when that command is invoked or its help is shown. A declared command's click command is
derived from its request (typer_command.py); another's from its module's typer signature. A
new option needs no edit here. `docir --help` lists the commands from their docstrings read as source
(cli/summaries.py), without importing a single command module (adr-d5e80517405b).
"""

from __future__ import annotations

import importlib
import threading
from difflib import get_close_matches
from typing import Any

import click
import typer
import typer.main
from typer.core import TyperGroup
from typer.models import CommandInfo, TyperInfo

from docir import __version__
from docir.cli.route import declared
from docir.cli.summaries import summary
from docir.commands import BY_NAME, TABLE, output_forms

HELP = """The right few design documents of a repository, fast.

Typical use: `docir search "TASK"` (or `docir context "TASK"`) lists skeletons — title,
description, status, links, never the body; then `docir get ID1 ID2` fetches the bodies
you need in one call. {forms}

Exit codes: 0 ok, 1 not found / findings, 2 usage or input error, 3 internal error.
""".format(forms=output_forms())

class LazyGroup(TyperGroup):
    """docir's commands, each built on first use; the warm worker builds each once for all its threads."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._built: dict[str, click.Command] = {}
        self._building = threading.Lock()

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [command.name for command in TABLE]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in BY_NAME:
            return None
        with self._building:
            if cmd_name not in self._built:
                self._built[cmd_name] = helps_the_caller(build_command(cmd_name))
            return self._built[cmd_name]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The listing click would print, from the docstrings alone: no command module is imported."""
        limit = formatter.width - 6 - max(len(command.name) for command in TABLE)
        # A bare click.Command with the same help shortens it exactly as the real command would.
        rows = [(c.name, click.Command(c.name, help=summary(c.module)).get_short_help_str(limit)) for c in TABLE]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:  # TyperGroup suggests from self.commands, which is empty here
            matches = get_close_matches(args[0], list(BY_NAME)) if args else []
            if matches:
                suggestion = ", ".join(repr(m) for m in matches)
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {suggestion}?"  # type: ignore[misc]
            raise


def build_command(name: str) -> click.Command:
    if BY_NAME[name].declared:
        from docir.cli import typer_command

        return typer_command.command(name, declared(name))
    module = importlib.import_module(f"docir.cli.{BY_NAME[name].module}")
    command: click.Command
    if hasattr(module, "app"):
        command = typer.main.get_group_from_info(TyperInfo(module.app, name=name), pretty_exceptions_short=True,
                                                 suggest_commands=True, rich_markup_mode=None)
    else:
        command = typer.main.get_command_from_info(CommandInfo(name=name, callback=module.command),
                                                   pretty_exceptions_short=True, rich_markup_mode=None)
    return command


def helps_the_caller(command: click.Command) -> click.Command:
    """`--help` printed to the caller's stdout (the Invocation cli/main.py hands click), not this process's:
    in the warm worker they differ. Click's own help option echoes to sys.stdout; this one, to the caller."""
    made = command.get_help_option

    def get_help_option(ctx: click.Context) -> click.Option | None:
        option = made(ctx)
        if option is not None:
            option.callback = _show_help
        return option

    command.get_help_option = get_help_option  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        helps_the_caller(sub)
    return command


def _show_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    _caller(ctx).print(ctx.get_help())
    ctx.exit()


def _caller(ctx: click.Context) -> Any:
    from docir.cli.edge import invocation_of

    return invocation_of(ctx)


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        _caller(ctx).print(f"docir {__version__}")
        raise typer.Exit(0)


def build_app() -> typer.Typer:
    app = typer.Typer(name="docir", help=HELP, no_args_is_help=True, add_completion=False, cls=LazyGroup,
                      pretty_exceptions_enable=False, rich_markup_mode=None)

    @app.callback()
    def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                           help="Print the version and exit.")) -> None:
        """The right few design documents of a repository, fast."""

    return app
