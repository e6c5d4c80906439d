"""The errors docir shows to people, each carrying its exit code.

Exit codes: 0 ok, 1 lint findings or not found, 2 usage or input error,
3 an internal bug (with a pointer to a log), 130 interrupted.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_BUG = 3
EXIT_INTERRUPTED = 130


class DocirError(Exception):
    """A mistake or condition the user can act on; rendered as one stderr line."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(DocirError):
    """Bad flags, bad ids, bad input text: exit 2."""

    exit_code = EXIT_USAGE


class InputError(DocirError):
    """A file or value docir was given cannot be used (malformed YAML, binary file): exit 2."""

    exit_code = EXIT_USAGE


class NotFound(DocirError):
    """An id, section or store that does not exist: exit 1."""

    exit_code = EXIT_FINDINGS


class SchemaError(DocirError):
    """docs-schema.yaml is invalid; the message names the line: exit 2."""

    exit_code = EXIT_USAGE
