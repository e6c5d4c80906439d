"""Reading document files defensively and writing them atomically."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from docir.errors import InputError
from docir.store import STATE_DIR, find_root

# Temp files of interrupted writes, kept out of docs/ (git and the walk never see .docir/).
TEMP_DIR = "tmp"
STALE_TEMP_SECONDS = 3600.0  # older than any write: left by a killed process, safe to sweep

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
    import hashlib  # only a file that is read: a cold read of an unchanged store loads no OpenSSL (adr-d5e80517405b)

    data = path.read_bytes()
    return decode(data, path.name), hashlib.sha256(data).hexdigest()


def decode(data: bytes, name: str) -> str:
    if b"\x00" in data:
        raise InputError(f"{name} is a binary file, not Markdown; move it out of docs/")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 (byte {exc.start}); re-save it as UTF-8") from None


def atomic_write(path: Path, text: str) -> None:
    """Write `text` so that a kill at any point leaves the old file or the new, never a torn one.

    The temp file lives in the store's `.docir/tmp/` when there is one on the same file
    system (a rename never crosses file systems), so a kill -9 mid-write leaves nothing in
    docs/ for git status or the walk to find; else beside the target, as a dotfile.
    """
    import tempfile  # writes only: the reads that import this module never need it

    if os.path.islink(path):
        # A document reached through a symlink (adr-7c2e94a0d5b1): the rename would put a copy in the
        # link's place; the edit belongs in the file it points at, and the link stays.
        path = Path(os.path.realpath(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        folder = _temp_folder(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(exc.filename or path)) from None
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
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            # Name the document, not the temp file (a full disk's write() names none): that is what was not written.
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    _fsync_dir(path.parent)


def write_all(files: list[tuple[Path, str, str | None]]) -> None:
    """Write each (path, text, before) so that every file is written, or none is.

    Every new text is first staged in a temp file on the target's file system (where a full disk
    fails, with nothing in place yet), then renamed over its target. A failure while renaming puts
    back the files already renamed: `before` is each file's text now, None where it does not exist
    yet. A kill at any point leaves each file whole, old or new, never torn.
    """
    import tempfile

    staged: list[tuple[Path, Path]] = []
    try:
        for path, text, _ in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=_temp_folder(path.parent))
            staged.append((Path(name), path))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(name, path.stat().st_mode & 0o7777 if path.exists() else 0o644)
    except BaseException as exc:
        _discard(tmp for tmp, _ in staged)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(staged[-1][1] if staged else files[0][0])) from None
        raise
    done: list[int] = []
    try:
        for index, (tmp, path) in enumerate(staged):
            os.replace(tmp, path)
            done.append(index)
    except BaseException:
        for index in reversed(done):
            path, _, before = files[index]
            if before is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, before)
        _discard(tmp for index, (tmp, _) in enumerate(staged) if index not in done)
        raise
    for folder in {path.parent for _, path in staged}:
        _fsync_dir(folder)


def _discard(paths: Iterable[Path]) -> None:
    for path in paths:
        try:
            path.unlink()
        except OSError:
            pass


def _temp_folder(folder: Path) -> Path:
    """The state folder of the store holding `folder`, if on the same file system; else `folder` itself."""
    root = find_root(folder)
    if root is None:
        return folder
    state = root / STATE_DIR
    temp = state / TEMP_DIR
    try:
        if not state.is_dir() or state.stat().st_dev != folder.stat().st_dev:
            return folder
        if not temp.is_dir():
            temp.mkdir(exist_ok=True)
            # Stores made before this folder existed do not ignore it in .docir/.gitignore.
            (temp / ".gitignore").write_text("*\n", encoding="utf-8")
    except OSError:
        return folder
    _sweep(temp)
    return temp


def _sweep(temp: Path) -> None:
    """Remove temp files an earlier, killed write left behind."""
    cutoff = time.time() - STALE_TEMP_SECONDS
    try:
        entries = list(os.scandir(temp))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.name.endswith(".tmp") and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
        except OSError:
            pass


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
