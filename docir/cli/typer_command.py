"""The typer command of a declared command, derived from its request: its options are not restated.

Each field of the request becomes one typer parameter, spelled, typed, ranged and explained as
its Option says (docir/request_options.py); --root and --json follow. typer builds the click command
from that signature as it would from a hand-written one, so help, usage errors and exit codes are
click's. The callback only makes the request, as the fast path does (route.request_of), and hands it
back to cli/main.py, which runs it.
"""

from __future__ import annotations

import inspect
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import click
import typer
import typer.main
from typer.models import CommandInfo

from docir.cli import route
from docir.cli.edge import invocation_of
from docir.cli.options import JsonOption, ReadJsonOption, RootOption
from docir.commands import BY_NAME
from docir.request_options import REQUIRED


def command(name: str, declaration: route.Declared) -> click.Command:
    known = route.table(declaration)
    negated = {item.name for item in known.fields if item.kind == "flag" and item.sets[:1] == (False,)}
    params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)]
    params += [parameter(item, name) for item in known.fields]

    def callback(ctx: typer.Context, **values: Any) -> route.Parsed:
        root, json_out = values.pop("root", None), values.pop("json_out", False)
        given = {}
        for key, value in values.items():
            if isinstance(value, Enum):
                value = value.value
            if key in negated:
                given[key] = not value
            elif value is not None and value != []:
                given[key] = value
        invocation = invocation_of(ctx, root, json_out)
        return route.Parsed(declaration, route.request_of(declaration, given, invocation), invocation)

    callback.__name__ = name
    callback.__doc__ = declaration.helped.__doc__
    callback.__signature__ = inspect.Signature(params, return_annotation=route.Parsed)  # type: ignore[attr-defined]
    return typer.main.get_command_from_info(CommandInfo(name=name, callback=callback),
                                            pretty_exceptions_short=True, rich_markup_mode=None)


def parameter(item: route.Field, command_name: str) -> inspect.Parameter:
    """One typer parameter: `item`'s type, its default, and a typer.Option or Argument that says the rest."""
    if item.field is None:  # --root, --json: the options of every command with a store
        if item.name == "root":
            return _keyword(item.name, RootOption, None)
        return _keyword(item.name, ReadJsonOption if BY_NAME[command_name].reads else JsonOption, False)
    option = item.field.option
    text = option.cli_help or option.help
    required = item.default is REQUIRED
    if item.kind in ("word", "words"):
        hint: Any = Path if option.typed == "relative" else str
        if item.kind == "words":
            hint = list[hint] if required else Optional[list[hint]]
        default = ... if required else (None if item.kind == "words" else item.default)
        info = typer.Argument(help=text, metavar=option.metavar, show_default=False)
        return _keyword(item.name, Annotated[hint, info], default)
    if item.kind == "flag":
        if len(item.spellings) > 1 and item.sets == (True, False):
            info = typer.Option("/".join(item.spellings), help=text, show_default=False)
            return _keyword(item.name, Annotated[Optional[bool], info], None)
        info = typer.Option(*item.spellings, help=text)
        return _keyword(item.name, Annotated[bool, info], False)
    if item.kind == "int":
        info = typer.Option(*item.spellings, min=option.min, max=option.max, metavar=option.metavar, help=text)
        return _keyword(item.name, Annotated[int, info], item.default)
    if option.choices:
        choices: Any = Enum(item.name.capitalize(), {c: c for c in option.choices}, type=str)  # type: ignore[misc]
        info = typer.Option(*item.spellings, help=text)
        return _keyword(item.name, Annotated[choices, info], choices(item.default))
    if item.kind == "list":
        # A folder option is a Path to typer, which refuses a file there (file_okay).
        base: Any = Path if option.folder else str
        info = typer.Option(*item.spellings, metavar=option.metavar, help=text, show_default=False,
                            file_okay=not option.folder)
        return _keyword(item.name, Annotated[Optional[list[base]], info], None)
    info = typer.Option(*item.spellings, metavar=option.metavar, help=text, show_default=False)
    if required:
        return _keyword(item.name, Annotated[str, info], ...)
    plain = isinstance(item.default, str) and option.typed is None
    return _keyword(item.name, Annotated[Optional[str], info], item.default if plain else None)


def _keyword(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                             default=inspect.Parameter.empty if default is ... else default)
