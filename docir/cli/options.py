"""Options every command shares, declared once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional, get_args, get_origin, get_type_hints

import typer
from typer.models import OptionInfo

from docir.requests import INCLUDE_INACTIVE, STORE

RootOption = Annotated[
    Optional[Path],
    typer.Option("--root", help="The store's root folder. Default: found upward from the current folder, like git.",
                 show_default=False, file_okay=False),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print JSON. This is the default when stdout is not a terminal."),
]
IncludeInactiveOption = Annotated[
    bool, typer.Option("--include-inactive", "--include-resolved", help=INCLUDE_INACTIVE),
]
StoreOption = Annotated[
    # Text, not Path: a peer may be a database URL (postgresql://...), which Path would mangle.
    Optional[list[str]], typer.Option("--store", help=STORE, show_default=False),
]


def value_options(command: Callable[..., Any]) -> frozenset[str]:
    """The long options of a typer command function that take a value, read from its signature."""
    found: set[str] = set()
    for hint in get_type_hints(command, include_extras=True).values():
        if get_origin(hint) is not Annotated:
            continue
        base, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, OptionInfo) and base is not bool:
                # Inside Annotated, typer reads the first name from `default` (there is no default there).
                names = (extra.default, *(extra.param_decls or ()))
                found.update(n for n in names if isinstance(n, str) and n.startswith("--"))
    return frozenset(found)
