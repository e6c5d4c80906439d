"""`docir --help` as click last printed it, kept for the next call, so that it needs neither typer nor click.

A cold `docir --help` spent most of its time importing typer and click (about 30 ms, more than
the bare interpreter) to print a text that changes only with docir's code, click's and typer's,
and the terminal's width. The text is kept in the user's cache (`~/.cache/docir/help/`), one
file per width, headed by a stamp: docir's version and the size and mtime of every file the
text comes from (the app, the summaries, each command module, click's and typer's formatting
code). A file whose stamp differs is not used, and the next render replaces it; where the
cache cannot be written, `--help` renders every time, as before (adr-d5e80517405b).
"""

from __future__ import annotations

import json
import os
import sys
from importlib.util import find_spec
from pathlib import Path

from docir import __version__

_CLI = Path(__file__).resolve().parent
_FOREIGN = {"click": ("core.py", "formatting.py", "decorators.py"), "typer": ("core.py", "main.py")}


def cached() -> str | None:
    """The help text kept for this width and this code, or None."""
    try:
        with open(_path(), encoding="utf-8") as handle:
            stamp, _, text = handle.read().partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return text if stamp == _stamp() else None


def keep(text: str) -> None:
    """Keep what was just printed for the next call; silently not where the cache cannot be written."""
    path = _path()
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(f"{_stamp()}\n{text}", encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        try:
            temp.unlink(missing_ok=True)
        except OSError:  # no folder to hold it: nothing was written
            pass


def _path() -> Path:
    from docir.store import user_cache_dir

    return user_cache_dir() / "help" / f"width-{_columns()}.txt"


def _columns() -> int:
    """The terminal width click's formatter starts from (shutil.get_terminal_size, without shutil)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _stamp() -> str:
    files = sorted(str(p) for p in _CLI.glob("*.py"))
    for package, names in _FOREIGN.items():
        spec = find_spec(package)
        if spec is not None and spec.origin:
            files.extend(str(Path(spec.origin).parent / name) for name in names)
    stats = []
    for file in files:
        try:
            st = os.stat(file)
        except OSError:
            continue
        stats.append((file, st.st_size, st.st_mtime_ns))
    return json.dumps([__version__, stats])
