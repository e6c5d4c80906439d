"""Requests: the one declaration of each command's options, read by the CLI, the MCP server and the tests.

A request is a NamedTuple; each field is one option, its type annotated with an `Option`
that holds its help text and range, beside its type and default, and how a terminal spells
it (`flag`, `positional`, `metavar`, ...). The CLI derives from here both its typer command
and the parser of its fast path (docir/cli/route.py, docir/cli/typer_command.py); the MCP
server builds its tools' input schemas from `fields` (adr-55e5e6673c40).

A NamedTuple, not a dataclass: every cold read builds its request, and importing dataclasses
(which imports inspect, ast and dis) and building the classes cost a cold `get` about a
sixth of its time (adr-d5e80517405b). `fields` reads the annotations, once per class and
process: for the CLI's help, the MCP schemas, the tests, and `check_ranges`, which must cost a cold read
nothing it would notice.
"""

from __future__ import annotations

import typing
from typing import Any, NamedTuple

from docir.errors import UsageError

# Help of the options several read commands share, for their requests and the CLI's shared options.
INCLUDE_INACTIVE = "Also closed ones (superseded, resolved)."
STORE = "Also read this peer: a folder or postgresql:// URL (repeatable)."
# --limit's ceiling: far past any list worth reading, and it keeps SQLite's LIMIT within 64 bits.
LIMIT_MAX = 10_000


class Option(NamedTuple):
    """What a request field says of itself: `Annotated[int, Option("help", min=1)]`.

    The rest is the terminal's side, read by the CLI alone: the MCP server names a field by its name.
    """

    help: str
    min: int | None = None
    max: int | None = None
    flag: str | None = None  # its spelling: default `--name-with-dashes`; "--no-x" sets False; "--a/--b" sets either
    aliases: tuple[str, ...] = ()  # other spellings of the same flag
    cli_help: str | None = None  # the help a terminal shows, where it differs from the agent's
    metavar: str | None = None
    positional: bool = False  # bare words, not an option
    choices: tuple[str, ...] = ()
    folder: bool = False  # a folder path as typed, relative to the caller's folder (a file there is refused)
    # How the terminal gives a value the request holds otherwise: "commas" (one word, split on commas),
    # "body" (text, '-' for stdin, '@FILE' for a file), "absolute" (paths, made absolute from the caller's
    # folder), "relative" (paths, kept relative to the caller's folder for the command to resolve), "place"
    # (a folder, made absolute from the caller's folder, or a database URL, as given).
    typed: str | None = None
    alone_means: str | None = None  # what the option means given alone, without its value
    # For a person at a terminal (a debugging view, a wait a script needs): not offered to an agent over MCP,
    # whose tool list every session pays for (adr-9fa8dcd099b0); the tool runs with the default.
    terminal_only: bool = False


class Required:
    """The default of a field the caller must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = Required()

# The options several read commands share, for their requests.
INCLUDE_INACTIVE_OPTION = Option(INCLUDE_INACTIVE, aliases=("--include-resolved",))
# Text, not a path: a peer may be a database URL (postgresql://...). An agent reads the peers .docir/stores.yaml
# names; naming another is a person's choice.
STORE_OPTION = Option(STORE, terminal_only=True, typed="place")


class RequestField(NamedTuple):
    name: str
    hint: Any  # its type, without the Option
    default: Any  # REQUIRED when there is none
    option: Option


_FIELDS: dict[type[Any], tuple[RequestField, ...]] = {}  # read once per class: eval of its annotations


def fields(request: type[Any]) -> tuple[RequestField, ...]:
    """A request's fields in order, each with its type, default and Option."""
    known = _FIELDS.get(request)
    if known is None:
        known = _FIELDS[request] = _read_fields(request)
    return known


def _read_fields(request: type[Any]) -> tuple[RequestField, ...]:
    hints = typing.get_type_hints(request, include_extras=True)
    found = []
    for name in request._fields:
        hint = hints[name]
        options = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Option)]
        if len(options) != 1:
            raise TypeError(f"{request.__name__}.{name} is not annotated with one Option(...)")
        default = request._field_defaults.get(name, REQUIRED)
        if isinstance(default, (list, dict, set)):
            raise TypeError(f"{request.__name__}.{name}: use a tuple for a repeatable option's default")
        found.append(RequestField(name, hint.__origin__, default, options[0]))
    return tuple(found)


def info(request: type[Any], name: str) -> Option:
    for f in fields(request):
        if f.name == name:
            return f.option
    raise KeyError(f"{request.__name__} has no field {name}")


def help_of(request: type[Any], name: str) -> str:
    return info(request, name).help


def check_ranges(request: Any) -> None:
    """Numbers out of range are usage errors (exit 2), whoever built the request."""
    for f in fields(type(request)):
        meta, value = f.option, getattr(request, f.name)
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        if (meta.min is not None and value < meta.min) or (meta.max is not None and value > meta.max):
            raise UsageError(f"{f.name.replace('_', '-')} {value} is out of range; "
                             f"use a number from {meta.min} to {meta.max}")
