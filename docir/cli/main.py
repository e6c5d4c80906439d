"""The entry point: from argv to the command, and every outcome mapped to one exit code and at most one
stderr line.

One route, whoever calls: this process for itself (`python -m docir`), or the warm worker for a
client (docir/worker/handler.py), which hands over the client's folder, environment and streams as
an Invocation. A declared command's plain form is parsed from its request (route.py) before typer is
imported; anything else goes to the typer app, whose declared commands are derived from the same
request (typer_command.py) and call the same function (adr-55e5e6673c40).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

from docir.cli import route
from docir.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, DocirError, storage_error
from docir.invocation import Invocation, here

HELP_ARGS: tuple[list[str], ...] = ([], ["--help"])  # what prints the top-level help (`docir` alone: no_args_is_help)

_COMMAND: Any = None
_COMMAND_LOCK = threading.Lock()  # the warm worker runs commands on several threads at once


def _command() -> Any:
    """The click command behind the typer app, built once per process.

    The group builds a command from its module's signature when it is first run
    (docir/cli/app.py); the warm worker runs many commands, so it pays that once.
    """
    global _COMMAND
    with _COMMAND_LOCK:
        if _COMMAND is None:
            import typer.main

            from docir.cli.app import build_app, helps_the_caller

            _COMMAND = helps_the_caller(typer.main.get_command(build_app()))
    return _COMMAND


def main(argv: list[str] | None = None, invocation: Invocation | None = None) -> int:
    """Run one command; `invocation` is whose it is (default: this process's, which, run for itself rather than
    for a test, may begin its walk of docs/ at once)."""
    args = list(sys.argv[1:] if argv is None else argv)
    invocation = invocation if invocation is not None else here(own_process=argv is None)
    if any("://" in arg for arg in args):  # a URL's password is hidden from every message, a parser's too
        _remember_urls(args)
    try:
        if args in HELP_ARGS:
            return _top_help(invocation)
        # A declared command's plain form is parsed from its request, before typer is imported; typer
        # parses the rest: it runs a command without a request itself, and returns a declared one's.
        parsed = route.parse(args, invocation) or _run_typer(route.typer_words(args), invocation)
        if isinstance(parsed, int):
            return parsed
        declaration, request, invocation = parsed
        if declaration.check is not None:
            declaration.check(request)
        if declaration.run is not None:
            return declaration.run(request, invocation)
        from docir.cli.edge import in_store

        assert declaration.serve is not None and declaration.show is not None
        result = in_store(invocation, declaration.serve, request, invocation.warn)
        return declaration.show(request, result, invocation)
    except DocirError as exc:
        invocation.error(exc.message)
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`docir search x | head -1`); that is not an error.
        _silence_stdout()
        return 0
    except OSError as exc:
        # The machine's answer (full disk, read-only or vanished folder, permission): the user's to fix.
        failure = storage_error(exc)
        if failure is None:
            return _crashed(invocation, args)
        invocation.error(failure.message)
        return failure.exit_code
    except Exception:
        return _crashed(invocation, args)


def _run_typer(args: list[str], invocation: Invocation) -> int | route.Parsed:
    """The command through typer and click, with click's own outcomes mapped here: click (a cost a cold
    command notices, adr-d5e80517405b) is loaded only on this path, never by the plain forms. A declared
    command comes back parsed, for main to run."""
    import click

    try:
        result = _command().main(args=args, prog_name="docir", standalone_mode=False, obj=invocation,
                                 terminal_width=help_width(invocation))
        return result if isinstance(result, (int, route.Parsed)) else 0
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:  # a group alone (`docir ref`): help on stdout, like --help
        invocation.print(exc.ctx.get_help() if exc.ctx else str(exc))
        return 0
    except click.exceptions.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx else "docir"
        invocation.error(f"{exc.format_message()} (see '{command} --help')")
        return EXIT_USAGE
    except click.exceptions.Abort:
        return EXIT_INTERRUPTED


def _top_help(invocation: Invocation) -> int:
    """`docir --help` (or `docir` alone): as click printed it last time for this width and this code,
    else rendered by click, printed, and kept for the next call (cli/help_cache.py)."""
    from docir.cli.help_cache import Kept

    kept = Kept(invocation.settings().cache, help_width(invocation))
    text = kept.text()
    if text is None:
        import click

        command = _command()
        text = command.get_help(click.Context(command, info_name="docir", terminal_width=help_width(invocation))) + "\n"
        kept.keep(text)
    invocation.stdout.write(text)
    invocation.stdout.flush()  # a reader gone (`docir --help | head -1`) is main's BrokenPipeError, here
    return 0


def help_width(invocation: Invocation) -> int:
    """The width click lays help out in for the caller's terminal, as click itself reckons it for its own
    process (formatting.py: the terminal's columns, at most 80, less 2, at least 50)."""
    columns = invocation.env.get("COLUMNS", "")
    if not (columns.isdigit() and int(columns) > 0):
        columns = next((str(width) for fd, width, _ in invocation.sizes() if fd == 1), "80")
    return max(min(int(columns), 80) - 2, 50)


def _remember_urls(args: list[str]) -> None:
    from docir.org.address import remember

    for arg in args:
        if "://" in arg:
            remember(arg.partition("=")[2] if arg.startswith("--") and "=" in arg else arg)


def _crashed(invocation: Invocation, args: list[str]) -> int:
    log = _write_crash_log(args)
    invocation.error(f"internal error ({sys.exc_info()[1]!r}); details in {log}; please report it")
    return EXIT_BUG


def _write_crash_log(args: list[str]) -> Path:
    """The command's own words (not this process's argv: in the worker, that is the worker's) and the
    traceback, scrubbed of every password the process was given (docir/redaction.py)."""
    import datetime as dt  # only after a crash: every command would pay for them otherwise
    import tempfile
    import traceback

    from docir.redaction import scrub

    folder = Path(tempfile.gettempdir()) / f"docir-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    log = folder / "crash.log"
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(scrub(f"--- {dt.datetime.now().isoformat()} docir {args!r}\n"))
        handle.write(scrub(traceback.format_exc()))
    return log


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
