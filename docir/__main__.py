"""python -m docir"""

from __future__ import annotations

import sys


def main() -> None:
    from docir.cli.main import main as run

    sys.exit(run())


if __name__ == "__main__":
    main()
