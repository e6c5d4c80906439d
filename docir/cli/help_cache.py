"""`docir --help` as click last printed it, kept for the next call, so that it needs neither typer nor click.

A cold `docir --help` spent most of its time importing typer and click (more than the bare
interpreter's start, adr-d5e80517405b) to print a text that changes only with docir's code, click's and typer's,
and the terminal's width. The text is kept in the user's cache (`~/.cache/docir/help/`), one
file per width, headed by a stamp: docir's version and the size and mtime of every file the
text comes from (the app, the summaries, each command module, click's and typer's formatting
code). A file whose stamp differs is not used, and the next render replaces it; where the
cache cannot be written, `--help` renders every time, as before (adr-d5e80517405b).
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from docir import __version__
from docir.store import keep_quietly, sources_stamp

_CLI = Path(__file__).resolve().parent
_FOREIGN = {"click": ("core.py", "formatting.py", "decorators.py"), "typer": ("core.py", "main.py")}


class Kept:
    """Where the help for a width (cli/main.py's help_width) is kept in the user's cache folder, and the stamp
    of the code it must come from."""

    def __init__(self, cache: Path, width: int) -> None:
        self.path = cache / "help" / f"width-{width}.txt"
        self.stamp = f"{__version__} {sources_stamp(_sources())}"

    def text(self) -> str | None:
        """The help kept for this width and this code, or None."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                stamp, _, text = handle.read().partition("\n")
        except (OSError, UnicodeDecodeError):
            return None
        return text if stamp == self.stamp else None

    def keep(self, text: str) -> None:
        """Keep what was just printed for the next call (store.keep_quietly)."""
        keep_quietly(self.path, f"{self.stamp}\n{text}", parents=True)


def _sources() -> list[Path]:
    """The files the help text comes from: docir's CLI, and click's and typer's formatting code."""
    files = sorted(_CLI.glob("*.py"))
    for package, names in _FOREIGN.items():
        spec = find_spec(package)
        if spec is not None and spec.origin:
            files.extend(Path(spec.origin).parent / name for name in names)
    return files
