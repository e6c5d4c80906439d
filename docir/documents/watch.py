"""Whether anything under a set of folders changed since the last look: Linux inotify, through ctypes.

A long-lived process (the warm worker, the MCP server) walks docs/ before every read
(adr-dd8cbb0fd892, which measures it), most of it one `lstat` per file. With
every folder of the walk watched, a walk can be skipped when no event arrived since the last one
began: its result is what a new walk would find. The kernel queues an event during the write,
rename or `utime` call itself, so a command that starts after an edit returned sees it.

Anything the watch cannot vouch for counts as a change: no inotify (another platform), a folder
it could not watch (the per-user limit), a full event queue. The caller then walks, as before.
"""

from __future__ import annotations

import os
from typing import Any

# <sys/inotify.h>: every event that can change what a stat walk sees.
_EVENTS = (0x00000002 | 0x00000004 | 0x00000008 | 0x00000040 | 0x00000080  # modify, attrib, close_write, moved
           | 0x00000100 | 0x00000200 | 0x00000400 | 0x00000800)  # create, delete, delete_self, move_self


def _libc() -> Any:
    import ctypes  # here, not at the top: only a process that watches pays for it

    try:
        # The running interpreter's own symbols, libc's among them: find_library would run ldconfig.
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1  # noqa: B018 - absent outside Linux
        libc.inotify_add_watch  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


class FolderWatch:
    """Watches folders (not their subfolders: add each) until closed."""

    def __init__(self, libc: Any, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        self._close = os.close  # held here: at interpreter exit a module's globals may be gone first
        self.whole = True  # False once a folder could not be watched: then nothing is vouched for
        self.added = 0  # folders added so far

    @classmethod
    def open(cls) -> FolderWatch | None:
        """A new watch, or None where the platform has no inotify."""
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        return None if fd < 0 else cls(libc, fd)

    def add(self, folder: str) -> None:
        self.added += 1
        if self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _EVENTS) < 0:
            self.whole = False

    def changed(self) -> bool:
        """Whether an event arrived since the last call (or a folder went unwatched); reads them all."""
        seen = not self.whole
        while True:
            try:
                if not os.read(self._fd, 65536):
                    return True
            except BlockingIOError:
                return seen
            except OSError:
                return True
            seen = True

    def __del__(self) -> None:
        # Closed only when nothing can use it any more: a number closed early could be reused by
        # another open file, and read as if it were this watch.
        try:
            self._close(self._fd)
        except OSError:
            pass
