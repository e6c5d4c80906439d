"""The options of the commands without a request, spelled for typer: those of route.py's --root and --json."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli.route import JSON_HELP, ROOT_HELP

RootOption = Annotated[Optional[Path], typer.Option("--root", help=ROOT_HELP, show_default=False, file_okay=False)]
JsonOption = Annotated[bool, typer.Option("--json", help=JSON_HELP)]
