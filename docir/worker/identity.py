"""Which docir a worker runs, so that a client never hands its command to a different one.

A worker outlives the code it loaded: `pip install -U docir`, or a pull in an editable
checkout, leaves the old process serving for up to its idle timeout. An older worker would
meet an index this docir has migrated and rebuild it as "written by a newer docir", dropping
every vector. So the worker says its version in its ready frame, and a client of another
version asks it to stop and runs the command itself; a worker whose own files change on disk
exits before it takes another command (adr-df76e7045762). Stdlib only: the client imports
this on every call.
"""

from __future__ import annotations

import os

import docir

VERSION = docir.__version__
# Absolute already: no file system call on the client's path, and a string: no pathlib import on it either.
PACKAGE = os.path.dirname(docir.__file__)


def code_stamp(package: str | os.PathLike[str] = PACKAGE) -> tuple[int, int]:
    """(number of files, newest mtime in ns) of the package's source: any upgrade or edit changes it.

    A stat of each source file, cheap enough to repeat while serving (adr-df76e7045762); compiled
    caches are left out, since running the code writes them."""
    count, newest = 0, 0
    folders = [os.fspath(package)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                elif entry.name.endswith((".py", ".yaml")):
                    count += 1
                    newest = max(newest, entry.stat().st_mtime_ns)
    return count, newest
