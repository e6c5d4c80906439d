"""--root and --json spelled for typer, once: the commands without a request take them as they are, and a
declared command's derived typer command too (typer_command.py); route.py's fast path reads the same help."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli.route import JSON_HELP, READ_JSON_HELP, ROOT_HELP

RootOption = Annotated[Optional[Path], typer.Option("--root", help=ROOT_HELP, show_default=False, file_okay=False)]
JsonOption = Annotated[bool, typer.Option("--json", help=JSON_HELP)]
ReadJsonOption = Annotated[bool, typer.Option("--json", help=READ_JSON_HELP)]  # a read's: compact text otherwise
