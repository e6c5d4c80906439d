"""Where a --body value comes from: literal text, '-' for stdin, '@PATH' for a file."""

from __future__ import annotations

import sys
from pathlib import Path

from docir.documents.files import decode
from docir.errors import UsageError

BODY_HELP = "text, '-' for stdin, '@FILE' for a file"


def read_body(value: str) -> str:
    if value == "-":
        return sys.stdin.read()
    if value.startswith("@"):
        # absolute(): relative to the caller's folder, which in the warm worker is the client's, not the process's
        path = Path(value[1:]).absolute()
        try:
            return decode(path.read_bytes(), path.name)
        except FileNotFoundError:
            raise UsageError(f"--body {value}: no such file") from None
        except IsADirectoryError:
            raise UsageError(f"--body {value}: is a folder, not a file") from None
    return value
