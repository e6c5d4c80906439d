"""python -m docir: reach the warm worker if one runs, else run the command here."""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # docir.errors.EXIT_INTERRUPTED, without importing it before the worker is asked


def main() -> None:
    try:
        # The client side is stdlib-only: a warm call never imports typer, rich, yaml or numpy.
        from docir.worker.client import run_via_worker

        code = run_via_worker(sys.argv[1:])
        if code is None:
            from docir.cli.main import main as run

            code = run()
    except KeyboardInterrupt:
        # Ctrl-C before the CLI's own handler is in place (while a cold command imports it): the same
        # exit 130 and no traceback.
        code = EXIT_INTERRUPTED
    sys.exit(code)


if __name__ == "__main__":
    main()
