"""Per-command process state in the warm worker: working folder, environment, streams, cancellation.

A command is handed its client's folder, environment, streams and terminal as
an Invocation (docir/invocation.py, adr-55e5e6673c40), and the commands
declared by a request read them from there. What still reads the process's
own state — the layers below a command (a DOCIR_* setting, a peer's relative
path, git's environment), the commands without a request, click's help —
answers from here. The worker runs many forwarded commands at once, each on
its own thread, and every one of them must see its own client's working
folder, DOCIR_* and terminal environment, stdin, stdout and stderr. Those are process-wide in
Python, so instead of swapping them around each command (which forces the
commands to run one at a time), `install()` replaces them once with
stand-ins that read a context variable: `sys.stdout` writes to the calling
command's stream, `os.environ` answers forwarded names from the command's
own environment, `os.getcwd()` (and through it `Path.cwd()`,
`Path.absolute()`, `os.path.abspath()` and `Path.resolve()`) answers the
client's folder, and `os.get_terminal_size()` (and through it
`shutil.get_terminal_size()`) answers the size of the client's terminal for
descriptors 0, 1 and 2, which rich sizes its output by (adr-46c331c4a44c).
Outside a command, and in every process that never calls `install()`,
everything behaves as usual.

A thread started inside a command does not inherit the context (threads start
with an empty one); whatever such a thread prints goes to the worker's log.
"""

from __future__ import annotations

import contextvars
import errno
import io
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any

from docir.terminal import STD_FDS
from docir.worker import protocol


@dataclass
class ClientContext:
    """What one forwarded command sees instead of the worker's own process state."""

    cwd: str
    env: dict[str, str]
    stdin: IO[str]
    stdout: IO[str]
    stderr: IO[str]
    cancelled: threading.Event = field(default_factory=threading.Event)
    terminal: dict[int, os.terminal_size] = field(default_factory=dict)  # the client's fds that are terminals


_CURRENT: contextvars.ContextVar[ClientContext | None] = contextvars.ContextVar("docir_client", default=None)
_INSTALL_LOCK = threading.Lock()
_real_getcwd: Callable[[], str] = os.getcwd
_real_get_terminal_size: Callable[[int], os.terminal_size] = os.get_terminal_size


def current() -> ClientContext | None:
    return _CURRENT.get()


class Cancelled(KeyboardInterrupt):
    """The client went away: the command stops as if the user had pressed Ctrl-C (exit 130)."""


def check_cancelled() -> None:
    """Raise Cancelled if the client of the running command has gone; a no-op outside the worker."""
    ctx = _CURRENT.get()
    if ctx is not None and ctx.cancelled.is_set():
        raise Cancelled()


@contextmanager
def bound(ctx: ClientContext) -> Iterator[ClientContext]:
    """Run the body with `ctx` as the process state this thread sees."""
    install()
    token = _CURRENT.set(ctx)
    try:
        yield ctx
    finally:
        _CURRENT.reset(token)


class _Stream(io.TextIOBase):
    """sys.stdin/stdout/stderr: the running command's stream, else the stream this one replaced."""

    def __init__(self, name: str, default: IO[str]) -> None:
        super().__init__()
        self._name = name
        self.default = default

    def target(self) -> IO[str]:
        ctx = _CURRENT.get()
        return self.default if ctx is None else getattr(ctx, self._name)

    def write(self, text: str) -> int:
        return self.target().write(text)

    def writelines(self, lines: Any) -> None:
        self.target().writelines(lines)

    def read(self, size: int | None = -1) -> str:
        return self.target().read(-1 if size is None else size)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        return self.target().readline(-1 if size is None else size)

    def flush(self) -> None:
        self.target().flush()

    def isatty(self) -> bool:
        return self.target().isatty()

    def fileno(self) -> int:
        return self.target().fileno()

    def readable(self) -> bool:
        return self.target().readable()

    def writable(self) -> bool:
        return self.target().writable()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target(), "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target(), "errors", None)

    def __getattr__(self, name: str) -> Any:  # buffer, mode, reconfigure ...: whatever the target has
        return getattr(self.target(), name)


class _Environ(MutableMapping[str, str]):
    """os.environ: forwarded names (DOCIR_*, the terminal's) come from the running command's client."""

    def __init__(self, base: MutableMapping[str, str]) -> None:
        self.base = base

    @staticmethod
    def _overlay(key: str) -> dict[str, str] | None:
        ctx = _CURRENT.get()
        return ctx.env if ctx is not None and protocol.is_forwarded(key) else None

    def __getitem__(self, key: str) -> str:
        overlay = self._overlay(key)
        return self.base[key] if overlay is None else overlay[key]

    def __setitem__(self, key: str, value: str) -> None:
        overlay = self._overlay(key)
        if overlay is None:
            self.base[key] = value
        else:
            overlay[key] = value

    def __delitem__(self, key: str) -> None:
        overlay = self._overlay(key)
        if overlay is None:
            del self.base[key]
        else:
            del overlay[key]

    def __iter__(self) -> Iterator[str]:
        ctx = _CURRENT.get()
        if ctx is None:
            yield from list(self.base)
            return
        yield from [k for k in self.base if not protocol.is_forwarded(k)]
        yield from list(ctx.env)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def copy(self) -> dict[str, str]:
        return dict(self)

    def __repr__(self) -> str:
        return f"environ({dict(self)!r})"


def _getcwd() -> str:
    ctx = _CURRENT.get()
    return _real_getcwd() if ctx is None else ctx.cwd


def _get_terminal_size(fd: int = 1) -> os.terminal_size:
    ctx = _CURRENT.get()
    if ctx is None or fd not in STD_FDS:
        return _real_get_terminal_size(fd)
    if fd in ctx.terminal:
        return ctx.terminal[fd]
    raise OSError(errno.ENOTTY, os.strerror(errno.ENOTTY))  # what the client's own descriptor answers


def install() -> None:
    """Put the context-reading stand-ins in place once (again if something replaced them since)."""
    with _INSTALL_LOCK:
        for name in ("stdin", "stdout", "stderr"):
            stream = getattr(sys, name)
            if not isinstance(stream, _Stream):
                setattr(sys, name, _Stream(name, stream))
        if not isinstance(os.environ, _Environ):
            os.environ = _Environ(os.environ)  # type: ignore[assignment]  # noqa: B003 (an overlay, not a reset)
        if os.getcwd is not _getcwd:
            os.getcwd = _getcwd
        if os.get_terminal_size is not _get_terminal_size:
            os.get_terminal_size = _get_terminal_size


def client_context(request: Mapping[str, Any], stdout: IO[str], stderr: IO[str]) -> ClientContext:
    """The context of a forwarded `run` request: the client's folder, forwarded environment, stdin and
    terminal sizes."""
    env = {str(k): str(v) for k, v in dict(request.get("env", {})).items() if protocol.is_forwarded(str(k))}
    terminal = {int(fd): os.terminal_size((int(columns), int(lines)))
                for fd, columns, lines in request.get("terminal", [])}
    return ClientContext(cwd=str(request.get("cwd") or _real_getcwd()), env=env,
                         stdin=io.StringIO(str(request.get("stdin", ""))), stdout=stdout, stderr=stderr,
                         terminal=terminal)
