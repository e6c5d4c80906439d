"""Where a store's worker lives: socket in a short per-user folder, status and log in .docir/run/."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

STATUS_FILE = "worker.json"


def runtime_dir() -> Path:
    """A folder only this user can enter; short, because socket paths are limited to ~104 bytes."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "docir" if base and len(base) < 60 else Path(f"/tmp/docir-{os.getuid()}")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_uid != os.getuid():
        raise PermissionError(f"{folder} belongs to another user; set XDG_RUNTIME_DIR")
    os.chmod(folder, 0o700)
    return folder


def socket_path(root: Path) -> Path:
    import hashlib  # the server's need; the thin client reads the path from the status file

    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return runtime_dir() / f"{digest}.sock"


def run_dir(root: Path) -> Path:
    return root / ".docir" / "run"


def ensure_run_dir(root: Path) -> Path:
    """.docir/run/, with .docir/.gitignore first: nothing written here may ever be committed."""
    from docir.store import ensure_state_dir

    ensure_state_dir(root)
    folder = run_dir(root)
    folder.mkdir(exist_ok=True)
    return folder


def status_path(root: Path) -> Path:
    return run_dir(root) / STATUS_FILE


def lock_path(root: Path) -> Path:
    return run_dir(root) / "worker.lock"


def log_path(root: Path) -> Path:
    return run_dir(root) / "worker.log"


def read_status(root: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(status_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def find_root(argv: list[str], cwd: Path) -> Path | None:
    """The store root the way the CLI finds it: --root, else upward for docs-schema.yaml.

    Not docir.store.find_root: importing docir.store pulls in dataclasses and inspect
    (~10 ms), and this runs on every warm call before anything else.
    """
    for index, arg in enumerate(argv):
        if arg == "--root" and index + 1 < len(argv):
            return Path(argv[index + 1]).expanduser().resolve()
        if arg.startswith("--root="):
            return Path(arg.split("=", 1)[1]).expanduser().resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / "docs-schema.yaml").is_file():
            return folder
    return None
