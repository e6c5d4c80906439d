"""Where a --body value comes from: literal text, '-' for stdin, '@PATH' for a file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docir.documents.files import decode
from docir.errors import UsageError

if TYPE_CHECKING:
    from docir.invocation import Invocation



def read_body(value: str, invocation: Invocation) -> str:
    if value == "-":
        return invocation.stdin.read()
    if value.startswith("@"):
        path = invocation.path(value[1:])  # relative to the caller's folder: in the warm worker, the client's
        try:
            return decode(path.read_bytes(), path.name)
        except FileNotFoundError:
            raise UsageError(f"--body {value}: no such file") from None
        except IsADirectoryError:
            raise UsageError(f"--body {value}: is a folder, not a file") from None
    return value
