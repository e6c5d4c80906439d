"""Talk to a store's warm worker, or say there is none. Stdlib only: this is the hot path."""

from __future__ import annotations

import json
import os
import sys

from docir.commands import BY_NAME
from docir.settings import worker_wanted
from docir.words import root_word
from docir.worker import identity, paths, protocol

TYPE_CHECKING = False  # not typing's: the warm client imports neither typing nor pathlib (paths.py says why)
if TYPE_CHECKING:
    from _socket import socket
    from typing import Any

    from docir.worker.paths import Root

# What runs in the calling process: the commands docir/commands.py says run `here` (they manage the
# worker, create the store, own stdin and stdout for a session, or take the caller's credentials), and
# the top-level --help, which the caller prints from its own cache (cli/help_cache.py) faster than a
# round trip.
LOCAL = frozenset({*(name for name, command in BY_NAME.items() if command.here), "--help"})
# A worker that has not said "ready" within this long is too busy: the command runs here instead.
HANDSHAKE_SECONDS = 0.5
EXIT_INTERRUPTED = 130  # docir.errors.EXIT_INTERRUPTED, without importing it on the hot path


def enabled() -> bool:
    """DOCIR_WORKER=0 keeps every command in its own process and starts no worker."""
    return worker_wanted(os.environ)


def connect(root: Root, timeout: float = HANDSHAKE_SECONDS, any_version: bool = False) -> socket | None:
    """A connection to the worker of `root` that has said it is ready, or None.

    A stale status file or socket is removed. A worker that does not send its ready
    frame within `timeout` counts as absent: the caller goes on without it. A worker
    of another docir version is asked to stop and counts as absent too (unless
    `any_version`): it may not read this docir's index the same way (identity.py).
    A worker of another store (a record copied with the store, paths.read_status) is
    absent whatever its version: nothing here asks it, stops it or removes its socket.
    """
    status = paths.read_status(root)
    if status is None:
        return None
    pid, sock_path = int(status.get("pid", 0)), str(status.get("socket", ""))
    if not pid or not paths.pid_alive(pid):
        _remove_stale(root, sock_path)
        return None
    # Only with a live worker to talk to: a cold command (DOCIR_WORKER=0, or no worker) never loads it.
    # The C module, not socket.py: that one imports selectors, array and more, 2 ms of every warm call on
    # a machine whose `python -c "import sqlite3, json"` takes 16 (adr-d5e80517405b).
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(sock_path)
        ready = protocol.receive(sock)
    except (OSError, protocol.ProtocolError, ValueError):
        sock.close()
        return None
    if not ready.get("ready") or ready.get("store") != status["store"]:
        sock.close()  # the record names this store: the worker on its socket must name it too
        return None
    if not any_version and ready.get("version") != identity.VERSION:
        _stop_other_version(sock)
        return None
    sock.settimeout(None)
    return sock


def _stop_other_version(sock: socket) -> None:
    """Ask a worker of another docir version to stop, and wait for its answer: a request whose client
    has hung up is never run. Best effort: the caller runs its command itself either way."""
    try:
        protocol.send(sock, {"cmd": "stop"})
        protocol.receive(sock)
    except (OSError, protocol.ProtocolError, ValueError):
        pass
    finally:
        sock.close()


def request(root: Root, payload: dict[str, Any], timeout: float = HANDSHAKE_SECONDS,
            any_version: bool = False) -> dict[str, Any] | None:
    """One request/reply with the worker; None when no worker answers.

    Ctrl-C while waiting closes the connection, which tells the worker to drop the
    request if it has not started, or to stop it at its next check (it exits 130).
    """
    sock = connect(root, timeout, any_version)
    if sock is None:
        return None
    try:
        protocol.send(sock, payload)
        return protocol.receive(sock)
    except (OSError, protocol.ProtocolError, ValueError):
        return None
    finally:
        sock.close()  # _socket's socket is no context manager


def runs_here(argv: list[str]) -> bool:
    """Whether a command line runs in the client's own process: the commands docir/commands.py says run
    `here`, and `embed --flush`, whose progress must follow the worker's drain live (a worker's output
    comes back at the end); it asks the worker to drain all the same (services/vectors/flush.py)."""
    return argv[0] in LOCAL or (argv[0] == "embed" and "--flush" in argv)


def run_via_worker(argv: list[str]) -> int | None:
    """Run a CLI command inside the warm worker; None means "run it here instead"."""
    if not enabled() or not argv:
        return None
    if argv[:2] == ["worker", "status"]:
        return _status_here(argv)
    if runs_here(argv):
        return None
    cwd = os.getcwd()
    root = find_root(argv, cwd)
    if root is None:
        return None
    stdin = ""
    if "-" in argv and not sys.stdin.isatty():
        stdin = sys.stdin.read()
    env = protocol.forwarded_env(os.environ)
    try:
        reply = request(root, {
            "cmd": "run", "argv": argv, "cwd": cwd, "stdin": stdin, "env": env,
            "stdout_tty": sys.stdout.isatty(), "stderr_tty": sys.stderr.isatty(),
            # The rest of what rich renders by: the terminal's size (80 columns in the worker otherwise) and
            # the streams' encodings (ASCII boxes off UTF-8), so the output is DOCIR_WORKER=0's byte for byte
            # (adr-46c331c4a44c).
            "terminal": protocol.terminal_sizes(),
            "stdout_encoding": sys.stdout.encoding, "stderr_encoding": sys.stderr.encoding,
        })
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED  # the socket is closed by now: the worker drops or stops the command
    if reply is None or "exit" not in reply:
        return None
    sys.stdout.write(reply.get("stdout", ""))
    sys.stdout.flush()
    sys.stderr.write(reply.get("stderr", ""))
    sys.stderr.flush()
    return int(reply["exit"])


def _status_here(argv: list[str]) -> int | None:
    """`docir worker status` as JSON straight from the worker, without importing the CLI (a busy
    machine takes a second to import it); a table, an error, or no worker: the CLI answers."""
    rest = [a for a in argv[2:] if a != "--json"]
    if rest and not (rest[0] == "--root" and len(rest) == 2 or len(rest) == 1 and rest[0].startswith("--root=")):
        return None
    if "--json" not in argv and sys.stdout.isatty():
        return None
    root = find_root(argv, os.getcwd())
    reply = request(root, {"cmd": "status"}, any_version=True) if root is not None else None
    if reply is None or "pid" not in reply:
        return None
    sys.stdout.write(json.dumps({"running": True, **reply}, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()
    return 0


def spawn(root: Root) -> None:
    """Start the worker in the background and return at once; a second start exits by itself."""
    if not enabled():
        return
    import subprocess  # only when a worker is started: the warm path never pays for it

    paths.ensure_run_dir(root)
    log = paths.log_path(root)
    with open(log, "ab") as out:
        subprocess.Popen(
            [sys.executable, "-m", "docir", "worker", "serve", "--root", os.fspath(root)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True, close_fds=True,
            cwd=os.fspath(root),
        )


def _remove_stale(root: Root, sock_path: str) -> None:
    for path in (paths.status_path(root), sock_path or None):
        if path is not None:
            try:
                os.unlink(path)
            except OSError:
                pass


def find_root(argv: list[str], cwd: str) -> str | None:
    """The store root the way the CLI finds it: --root, else upward from `cwd` (absolute) for docs-schema.yaml.

    Not docir.store.find_root: importing docir.store pulls in dataclasses and inspect, and this
    runs on every warm call before anything else (adr-d5e80517405b).
    """
    named = root_word(argv)
    if named is not None:
        return os.path.realpath(os.path.join(cwd, os.path.expanduser(named)))
    folder = cwd
    while True:
        if os.path.isfile(os.path.join(folder, "docs-schema.yaml")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
