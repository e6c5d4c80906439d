"""Where a store's worker lives: socket in a short per-user folder, status and log in .docir/run/.

And which store a worker belongs to. `cp -a`, a restored backup or an image layer copies
.docir/run/worker.json along with the store; the copy's record names the original's
worker. So the record (and the worker's ready frame) carries the store's identity, and a
record naming another store is no record at all here (adr-121c73e3f21e).
"""

from __future__ import annotations

import json
import os

# Neither typing nor pathlib at run time: every warm call imports this module, and the two cost it a
# third of the interpreter's own start. What the client reads (find_root, read_status) works on strings;
# what names a file for the server or a command (status_path, ...) builds a Path on first use.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TypeAlias

    Root: TypeAlias = str | os.PathLike[str]

STATUS_FILE = "worker.json"


def runtime_dir(base: str | None) -> Path:
    """A folder only this user can enter, in `base` (XDG_RUNTIME_DIR) when it is short, because socket
    paths are limited to ~104 bytes."""
    from pathlib import Path

    folder = Path(base) / "docir" if base and len(base) < 60 else Path(f"/tmp/docir-{os.getuid()}")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_uid != os.getuid():
        raise PermissionError(f"{folder} belongs to another user; set XDG_RUNTIME_DIR")
    os.chmod(folder, 0o700)
    return folder


def socket_path(store: dict[str, Any], runtime: str | None) -> Path:
    """The socket of the worker of `store` (a store_identity): a store put where another one was, while
    that one's worker still runs, gets a socket of its own, so its worker never unlinks the other's."""
    import hashlib  # the server's need; the thin client reads the path from the status file

    digest = hashlib.sha256(json.dumps(store, sort_keys=True).encode()).hexdigest()[:16]
    return runtime_dir(runtime) / f"{digest}.sock"


def _run_file(root: Root, name: str) -> str:
    return os.path.join(root, ".docir", "run", name)


def run_dir(root: Root) -> Path:
    from pathlib import Path

    return Path(root, ".docir", "run")


def ensure_run_dir(root: Root) -> Path:
    """.docir/run/, with .docir/.gitignore first: nothing written here may ever be committed."""
    from pathlib import Path

    from docir.store import ensure_state_dir

    ensure_state_dir(Path(root))
    folder = run_dir(root)
    folder.mkdir(exist_ok=True)
    return folder


def status_path(root: Root) -> Path:
    return run_dir(root) / STATUS_FILE


def lock_path(root: Root) -> Path:
    return run_dir(root) / "worker.lock"


def log_path(root: Root) -> Path:
    return run_dir(root) / "worker.log"


def store_identity(root: Root) -> dict[str, Any] | None:
    """Which store a worker belongs to: the real path of its folder and the (device, inode) of its
    worker lock file, the file the worker holds locked for life. None while no lock file exists.

    The lock file, not index.db: a copy, a restore or an image layer makes a new one, but nothing
    replaces it under a running worker, while a damaged index is set aside and rebuilt under a worker
    that goes on serving (adr-121c73e3f21e). Stdlib only, a few stat calls: every warm call makes it.
    """
    try:
        lock = os.stat(_run_file(root, "worker.lock"))
    except OSError:
        return None
    return identity_of(root, lock)


def identity_of(root: Root, lock: os.stat_result) -> dict[str, Any]:
    """store_identity with the lock file's stat given (the worker's, from the file it holds open)."""
    return {"root": os.path.realpath(root), "lock": [lock.st_dev, lock.st_ino]}


def read_record(root: Root) -> dict[str, Any] | None:
    """The status record in this store's run folder, whichever worker wrote it."""
    try:
        with open(_run_file(root, STATUS_FILE), encoding="utf-8") as record:
            data = json.loads(record.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_status(root: Root) -> dict[str, Any] | None:
    """The status record of this store's own worker, or None.

    A record naming another store (copied with the store, or left by an older docir that named
    none) is ignored, never removed: its pid and socket are another store's worker, which no
    client here may ask, stop or clean up after; this store's own worker writes over it.
    """
    data = read_record(root)
    if data is None or not data.get("store") or data.get("store") != store_identity(root):
        return None
    return data


def pid_alive(pid: int) -> bool:
    """Whether process `pid` runs: a zombie does not (it has exited; only its parent has yet to reap it, and
    a worker's parent is whatever adopted it, which may take seconds)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:  # Linux: "pid (name) STATE ...", the name may hold spaces
            return stat.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (another platform): os.kill said it is there
