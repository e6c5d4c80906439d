"""The machine's refusals are one-line errors with exit 2, never crashes: nothing changes, no temp file stays.

A full disk is a small tmpfs filled to the brim; a read-only store is that tmpfs remounted read-only;
permission denied is a process without the capability that lets root ignore file modes.
(issue-dae9d980f587; exit codes: adr-41542fe48001.)
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

ADD = ("add", "decision", "--title", "Cap the export size", "--description",
       "Exports above 10 MB are refused with a clear message.", "--owner", "@team")


def run(root: Path, *args: str, drop_caps: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "docir", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=120, preexec_fn=_without_file_capabilities if drop_caps else None)


def _without_file_capabilities() -> None:
    """In the child: drop CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER, so root obeys file modes."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP: gone from the exec'd program
            raise OSError(ctypes.get_errno(), "prctl")


def one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    return err


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".docir" not in p.parts}


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs, unmounted afterwards; skipped where this process may not mount."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def store_on(folder: Path) -> Path:
    root = folder / "store"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    assert run(root, "reindex").returncode == 0
    return root


def fill(folder: Path) -> None:
    with open(folder / "filler", "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
        try:
            os.fsync(handle.fileno())
        except OSError:
            pass


def test_a_full_disk_is_exit_2_and_one_line_and_leaves_nothing(tmpfs: Path) -> None:
    root = store_on(tmpfs)
    before = files_under(root)
    fill(tmpfs)

    result = run(root, *ADD)

    assert result.returncode == 2, result.stderr
    assert "no space left on device" in one_line(result.stderr).lower()
    assert str(root) in result.stderr  # the line names the file docir could not write
    assert files_under(root) == before
    assert not [p for p in root.rglob("*.tmp")]


def test_a_read_only_store_is_exit_2_and_one_line(tmpfs: Path) -> None:
    root = store_on(tmpfs)
    before = files_under(root)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)

    added = run(root, *ADD)
    searched = run(root, "search", "sessions")

    assert added.returncode == 2, added.stderr
    assert "read-only" in one_line(added.stderr).lower()
    assert searched.returncode in (0, 2), searched.stderr  # a read may still answer from the index
    if searched.returncode == 2:
        assert str(root / ".docir") in one_line(searched.stderr)
    assert files_under(root) == before


def test_permission_denied_on_docs_is_exit_2_and_one_line(tmp_path: Path) -> None:
    root = store_on(tmp_path)
    before = files_under(root)
    folders = [root / "docs", *[p for p in (root / "docs").rglob("*") if p.is_dir()]]
    for folder in folders:
        folder.chmod(0o555)
    try:
        result = run(root, *ADD, drop_caps=os.geteuid() == 0)
    finally:
        for folder in folders:
            folder.chmod(0o755)

    assert result.returncode == 2, result.stderr
    assert "permission denied" in one_line(result.stderr).lower()
    assert str(root / "docs") in result.stderr
    assert files_under(root) == before
    assert not [p for p in root.rglob("*.tmp")]


def test_permission_denied_on_the_state_folder_is_exit_2_and_one_line(tmp_path: Path) -> None:
    root = store_on(tmp_path)
    state = root / ".docir"
    shutil.rmtree(state)
    root.chmod(0o555)
    try:
        result = run(root, "search", "sessions", drop_caps=os.geteuid() == 0)
    finally:
        root.chmod(0o755)

    assert result.returncode == 2, result.stderr
    assert "permission denied" in one_line(result.stderr).lower()
    assert str(state) in result.stderr


def test_a_read_only_cache_folder_still_answers_and_keeps_no_schema(tmp_path: Path) -> None:
    """The parsed schema is kept in .docir/run/schema.json on a best-effort basis (adr-d5e80517405b): where
    that folder refuses writes, a read parses the schema itself and answers as before."""
    root = store_on(tmp_path)
    folder = root / ".docir" / "run"
    cache = folder / "schema.json"
    cache.unlink(missing_ok=True)
    folder.mkdir(exist_ok=True)
    folder.chmod(0o555)
    try:
        results = [run(root, "get", "adr-0000000000a1", drop_caps=os.geteuid() == 0) for _ in range(2)]
    finally:
        folder.chmod(0o755)

    for result in results:
        assert result.returncode == 0, result.stderr
        assert "adr-0000000000a1" in result.stdout and result.stderr == ""
    assert list(folder.iterdir()) == []  # neither the cache nor a temp file of it
