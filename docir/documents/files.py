"""Reading document files defensively and writing them atomically."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from docir.errors import InputError

# A design document is a few KB; anything this large is a mistake, not a document.
MAX_DOCUMENT_BYTES = 2 * 1024 * 1024


def read_text(path: Path, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> tuple[str, str]:
    """The file's text and the sha256 of its bytes.

    Raises InputError for a file that is too large, binary (holds NUL bytes)
    or not UTF-8 — each with what to do about it.
    """
    size = path.stat().st_size
    if size > max_bytes:
        raise InputError(f"{path.name} is {size // (1024 * 1024)} MB; "
                         f"documents are limited to {max_bytes // (1024 * 1024)} MB, move it out of docs/")
    data = path.read_bytes()
    return decode(data, path.name), hashlib.sha256(data).hexdigest()


def decode(data: bytes, name: str) -> str:
    if b"\x00" in data:
        raise InputError(f"{name} is a binary file, not Markdown; move it out of docs/")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 (byte {exc.start}); re-save it as UTF-8") from None


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def atomic_write(path: Path, text: str) -> None:
    """Write `text` so that a kill at any point leaves the old file or the new, never a torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
