"""python -m docir: reach the warm worker if one runs, else run the command here."""

from __future__ import annotations

import sys


def main() -> None:
    # The client side is stdlib-only: a warm call never imports typer, rich, yaml or numpy.
    from docir.worker.client import run_via_worker

    code = run_via_worker(sys.argv[1:])
    if code is None:
        from docir.cli.main import main as run

        code = run()
    sys.exit(code)


if __name__ == "__main__":
    main()
