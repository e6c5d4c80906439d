"""A cold command's stat walk of docs/, begun in a forked child while the command imports the rest of docir.

Without a warm worker (a git hook, a CI job, a sandbox) a command spends most of its time in
imports, on one core, and then walks docs/ and compares every file's stat with the index: one
system call per file, after the imports and on the same core (adr-b4d840c5ec82 measures it). So a
command that runs in a process of its own forks at its start, before any thread exists. The
child reads the schema's exclude list (adr-547a50927c6b), walks, opens the index read-only and plans
against it (planning.plan_scan), and sends back the count, the plan and the stats of the files the
plan names: nothing but a count when nothing changed. The parent takes it at its first walk of that
folder, once, and only if the child read the very index file the parent opened and left out the
files the parent's schema leaves out; a plan that names files is checked under the write lock
against the parent's connection (sync.rescan), as any plan is.

The walk still begins after the command was asked, so what it finds is as fresh as a walk the
parent began later (adr-dd8cbb0fd892). Whenever anything is off (no fork, one core, macOS, whose
system libraries may not survive a fork; a child that failed, was killed or read another index file; no
index yet) the parent walks and plans in its own process, as it always did (adr-b4d840c5ec82).
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from docir import cores
from docir.documents.ownership import Ownership
from docir.documents.scan import FileStat, scan_docs

if TYPE_CHECKING:
    from docir.index.db import FileIdentity
    from docir.services.indexing.planning import Scan, StatPlan


class Begun(NamedTuple):
    """What the child found: every file's stat, or, when it planned, the stats of the plan's files."""

    files: int  # Markdown files under docs/
    disk: dict[str, FileStat]
    planned: tuple[FileIdentity, StatPlan] | None  # the index file planned against, and the plan


class _Child(NamedTuple):
    key: tuple[str, str]  # (root, docs_dir) walked
    pid: int
    fd: int  # the pipe's read end


_PENDING: list[_Child] = []  # at most one: the walk begun for this process's command


def start(root: Path, docs_dir: Path) -> None:
    """Begin the walk of docs_dir in a child, for this process's first walk of it to take.

    Only for a process that runs one command and nothing else yet: forking one with threads could
    leave the child holding a lock no thread will release.
    """
    if _PENDING or not hasattr(os, "fork") or sys.platform == "darwin" or threading.active_count() != 1:
        return
    if cores.usable() < 2:
        return  # one core: the child would only take turns with the imports, and add its own
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return
    if pid == 0:
        # Whatever happens here, a Ctrl-C included, the child never returns into the command's code.
        code = 1
        try:
            os.close(read_end)
            code = _child(root, docs_dir, write_end)
        finally:
            os._exit(code)
    os.close(write_end)
    _PENDING.append(_Child((str(root), str(docs_dir)), pid, read_end))


def take(root: Path, docs_dir: Path, owned: Ownership) -> Begun | None:
    """The walk begun for this command, once; None when there is none of this folder, it failed, or it
    read another exclude list than `owned`'s (the schema was edited meanwhile)."""
    if not _PENDING or _PENDING[0].key != (str(root), str(docs_dir)):
        return None
    child = _PENDING.pop()
    message = _receive(child)
    if message is None:
        return None
    key, files, disk, planned = message
    if key != owned.key:
        return None
    if planned is None:
        return Begun(files, disk, None)
    from docir.services.indexing.planning import StatPlan

    index, plan = planned  # marshal keeps tuples as tuples
    return Begun(files, disk, (index, StatPlan(*plan)))


def _receive(child: _Child) -> Any:
    chunks: list[bytes] = []
    try:
        while chunk := os.read(child.fd, 1 << 20):
            chunks.append(chunk)
    except OSError:
        chunks = []
    finally:
        os.close(child.fd)
    try:
        _, status = os.waitpid(child.pid, 0)
    except ChildProcessError:
        return None
    if not chunks or os.waitstatus_to_exitcode(status) != 0:
        return None
    try:
        return marshal.loads(b"".join(chunks))
    except (EOFError, ValueError, TypeError):
        return None


def _child(root: Path, docs_dir: Path, fd: int) -> int:
    """In the child: walk, plan, send; the exit code. Nothing of the parent's runs here, not even atexit."""
    try:
        _detach()
        owned = _owned(root)
        disk = scan_docs(root, docs_dir, owned=owned)
        planned = _plan(root, disk)
        if planned is None:
            message: tuple[Any, ...] = (owned.key, len(disk), disk, None)
        else:
            index, scan = planned
            message = (owned.key, scan.files, {p: disk[p] for p in scan.plan.to_read},
                       (index, tuple(scan.plan)))
        view = memoryview(marshal.dumps(message))
        while view:
            view = view[os.write(fd, view):]
        return 0
    except BaseException:  # noqa: B036 - whatever happens (Ctrl-C too), the child only exits: the parent walks
        return 1


def _detach() -> None:
    """Let go of the command's terminal and pipes: a reader waiting for its output must not wait for this."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _owned(root: Path) -> Ownership:
    """What the command will leave out: its schema's exclude list, read as it reads it (a broken schema
    raises, and the command, walking for itself, says why)."""
    from docir.schema import load_schema
    from docir.store import Store

    store = Store(root)
    return Ownership.of(load_schema(store.schema_path, cache=store.schema_cache_path))


def _plan(root: Path, disk: dict[str, FileStat]) -> tuple[FileIdentity, Scan] | None:
    """The plan against the index as it is, read-only; None when there is no current index to read."""
    from docir.index.catalog import Catalog
    from docir.index.db import IndexUnreadable, file_identity, open_index_readonly
    from docir.services.indexing.planning import plan_scan
    from docir.store import Store

    path = Store(root).index_path
    # Taken before the open: a file put in its place meanwhile is then one the parent cannot match.
    index = file_identity(path)
    if index is None:
        return None
    try:
        conn = open_index_readonly(path, own=True)
    except IndexUnreadable:
        return None
    try:
        catalog = Catalog(conn)
        return index, plan_scan(disk, catalog.docs)
    finally:
        conn.close()
