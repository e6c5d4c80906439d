"""The errors docir shows to people, each carrying its exit code.

Exit codes: 0 ok, 1 lint findings or not found, 2 usage or input error,
3 an internal bug (with a pointer to a log), 130 interrupted.
"""

from __future__ import annotations

import errno
import os

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


class StorageError(DocirError):
    """The machine refused a read or write (full disk, read-only or vanished folder, permission, I/O):
    the message names the path and the cause; nothing was changed: exit 2."""

    exit_code = EXIT_USAGE


class SchemaError(DocirError):
    """docs-schema.yaml is invalid; the message names the line: exit 2."""

    exit_code = EXIT_USAGE


# What a user can do about the machine's answer to a read or write, by errno.
_REMEDIES = {
    errno.ENOSPC: "free some space, then run the command again",
    errno.EDQUOT: "free some space (the disk quota is full), then run the command again",
    errno.EROFS: "the file system is read-only; run docir where it can write",
    errno.EACCES: "docir needs read and write access there",
    errno.EPERM: "docir needs read and write access there",
    errno.ENOENT: "the folder was removed while docir ran; run the command again",
    errno.ENOTDIR: "a file stands where docir expects a folder",
    errno.EIO: "the disk reported an I/O error; check the device",
    errno.EMFILE: "too many open files in this process; raise the limit (ulimit -n)",
}


def refusal(code: int) -> str | None:
    """'<the cause>; <what to do>' for an errno the machine answers with; None for one that means a bug."""
    remedy = _REMEDIES.get(code)
    return None if remedy is None else f"{os.strerror(code)}; {remedy}"


def storage_error(exc: OSError) -> StorageError | None:
    """The one-line error for an OSError the machine raised (full disk, permissions, a vanished folder);
    None for one that means a bug."""
    said = refusal(exc.errno or 0)
    if said is None:
        return None
    where = exc.filename if exc.filename is not None else "a file"
    return StorageError(f"{where}: {said}")


class Cancelled(KeyboardInterrupt):
    """The caller went away (the worker's client hung up): the command stops as if the user had pressed
    Ctrl-C (exit 130)."""
