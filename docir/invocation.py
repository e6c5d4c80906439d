"""One run of a command: the caller's folder, environment, streams and terminal, handed to the command.

A command run in its own process gets this process's (`here()`); one forwarded to the warm worker
gets its client's, sent with the request (docir/worker/handler.py). The command reads them from
here, so a relative path, `--json`'s default, a table's width and every message are the caller's
wherever it runs (adr-46c331c4a44c).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

from docir.redaction import scrub
from docir.terminal import terminal_sizes

if TYPE_CHECKING:
    from docir.settings import Settings


class Invocation(NamedTuple):
    cwd: str
    env: Mapping[str, str]
    stdin: IO[str]
    stdout: IO[str]
    stderr: IO[str]
    # [fd, columns, lines] of each of the caller's stdin, stdout and stderr that is a terminal; None: ask
    # this process's own descriptors when a table is drawn.
    terminal: tuple[tuple[int, int, int], ...] | None = None
    own_process: bool = False  # this process runs this one command (it may begin its walk of docs/ at once)
    cancelled: threading.Event | None = None  # set when the caller has gone (the worker's client hung up)
    # What every command with a store takes, --root and --json: set by the route once they are parsed.
    root: Path | None = None
    json: bool = False

    def path(self, typed: str | Path) -> Path:
        """A path as the caller typed it, made absolute from the caller's folder (not normalised, like
        Path.absolute()); a leading `~` is the caller's home."""
        text = str(typed)
        if text == "~" or text.startswith("~/"):
            from docir.settings import Settings

            return Settings.of(self.env).expanded(text)
        return Path(self.cwd, typed)

    def settings(self) -> Settings:
        """What the caller's environment decides for the layers below the command line."""
        from docir.settings import Settings

        return Settings.of(self.env)

    def wants_json(self) -> bool:
        return self.json or not self.stdout.isatty()

    def read_form(self) -> str:
        """How a read (context, query, search, get) prints: "json" with --json, a "table" on a terminal,
        else "text", the compact form a coding agent reads (adr-aa663d326ae5)."""
        if self.json:
            return "json"
        return "table" if self.stdout.isatty() else "text"

    def store_root(self) -> Path:
        """The store's root: --root from the caller's folder, else found upward from it (UsageError: none)."""
        from docir.store import open_store

        return open_store(None if self.root is None else self.path(self.root), self.cwd).root

    # Every line to stderr is scrubbed of the passwords this process was given (docir/redaction.py).
    def warn(self, message: str) -> None:
        self.stderr.write(f"docir: warning: {scrub(message)}\n")

    def error(self, message: str) -> None:
        self.stderr.write(f"docir: error: {scrub(message)}\n")

    def note(self, message: str) -> None:
        self.stderr.write(f"docir: {scrub(message)}\n")

    def print(self, text: str) -> None:
        self.stdout.write(text + "\n")

    def sizes(self) -> tuple[tuple[int, int, int], ...]:
        return self.terminal if self.terminal is not None else terminal_sizes()


def here(*, own_process: bool = False) -> Invocation:
    """This process's own folder, environment and streams."""
    return Invocation(os.getcwd(), os.environ, sys.stdin, sys.stdout, sys.stderr, own_process=own_process)
