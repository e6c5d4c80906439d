"""Requests: one definition of each command's options, read by the CLI, the MCP server and the tests.

A request is a frozen dataclass; each field is one option, declared with `option(...)`
so that its help text and range live beside its type and default. The CLI takes its
help from here (`help_of`), the MCP server builds its tools' input schemas from the
fields, and tests/test_cli_surface.py fails if a command's options and its request
drift apart.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING
from typing import Any, NamedTuple

from docir.errors import UsageError

# Help of the options several read commands share, for their requests and the CLI's shared options.
INCLUDE_INACTIVE = "Also show closed documents (e.g. superseded, resolved)."
STORE = "Also read this peer store, read-only (repeatable)."
# --limit's ceiling: far past any list worth reading, and it keeps SQLite's LIMIT within 64 bits.
LIMIT_MAX = 10_000


class OptionInfo(NamedTuple):
    help: str
    min: int | None = None
    max: int | None = None


def option(default: Any = MISSING, *, help: str, min: int | None = None, max: int | None = None) -> Any:
    """A request field: its default, help text and (for numbers) the range it accepts."""
    meta = {"option": OptionInfo(help, min, max)}
    if isinstance(default, (list, dict, set)):
        raise TypeError("use a tuple for a repeatable option's default")
    return dataclasses.field(default=default, metadata=meta)


def info(request: type[Any], name: str) -> OptionInfo:
    found = {f.name: f for f in dataclasses.fields(request)}[name].metadata.get("option")
    if not isinstance(found, OptionInfo):
        raise KeyError(f"{request.__name__}.{name} is not declared with option()")
    return found


def help_of(request: type[Any], name: str) -> str:
    return info(request, name).help


def check_ranges(request: Any) -> None:
    """Numbers out of range are usage errors (exit 2), whoever built the request."""
    for f in dataclasses.fields(request):
        meta = f.metadata.get("option")
        value = getattr(request, f.name)
        if not isinstance(meta, OptionInfo) or not isinstance(value, int) or isinstance(value, bool):
            continue
        if (meta.min is not None and value < meta.min) or (meta.max is not None and value > meta.max):
            raise UsageError(f"{f.name.replace('_', '-')} {value} is out of range; "
                             f"use a number from {meta.min} to {meta.max}")
