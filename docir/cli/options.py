"""Options every command shares, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

# --limit's ceiling: far past any list worth reading, and it keeps SQLite's LIMIT within 64 bits.
MAX_LIMIT = 10_000

RootOption = Annotated[
    Optional[Path],
    typer.Option("--root", help="The store's root folder. Default: found upward from the current folder, like git.",
                 show_default=False, file_okay=False),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print JSON. This is the default when stdout is not a terminal."),
]
IncludeInactiveOption = Annotated[
    bool,
    typer.Option("--include-inactive", "--include-resolved",
                 help="Also show closed documents (each type's inactive statuses, e.g. superseded, resolved)."),
]
StoreOption = Annotated[
    Optional[list[Path]],
    typer.Option("--store", help="Also read this peer store (repeatable), on top of .docir/stores.yaml. Read-only.",
                 show_default=False, file_okay=False),
]
