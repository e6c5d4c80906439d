"""What docir reads from a command line's words before any parser does: the --root they name.

The warm client reads it to find the store's worker, and the route to begin the walk of docs/, both
before a parser is loaded (cold start, adr-d5e80517405b); the parsers (cli/route.py's, or typer's)
read every word afterwards. A form either reading takes wrongly only costs that head start: the
command's own parse decides.
"""

from __future__ import annotations


def root_word(argv: list[str]) -> str | None:
    """The folder `--root DIR` or `--root=DIR` names (the first, before any `--`), as typed; None without one."""
    for index, arg in enumerate(argv):
        if arg == "--":
            return None
        if arg == "--root":
            return argv[index + 1] if index + 1 < len(argv) else None
        if arg.startswith("--root="):
            return arg.split("=", 1)[1]
    return None
