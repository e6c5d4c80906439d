"""What a command prints in a terminal through the warm worker is byte for byte what it prints without one."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
import tty
from pathlib import Path

import pytest

from docir.worker.protocol import TERMINAL_ENV
from tests.worker.helpers import ID, settled, start_worker, wait_for

READS = (["query"], ["get", ID], ["context", "sessions lost on deploy"])
# The client, with a line on stderr saying whether it rendered the command itself: it imports rich only then.
PROBE = ("import runpy, sys\n"
         "sys.argv = ['docir', *sys.argv[1:]]\n"
         "code = 0\n"
         "try:\n"
         "    runpy.run_module('docir', run_name='__main__')\n"
         "except SystemExit as exc:\n"
         "    code = exc.code\n"
         "sys.stderr.write(f'rendered here: {\"rich\" in sys.modules}\\n')\n"
         "sys.exit(code)\n")
PROBE_LINE = b"rendered here: "


def in_terminal(argv: list[str], columns: int, env: dict[str, str], stderr: Path) -> tuple[int, bytes, bytes]:
    """Run `argv` with stdin and stdout on a pseudo-terminal `columns` wide; (exit code, stdout, stderr)."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    tty.setraw(terminal)  # the bytes as written: no newline translation
    try:
        with open(stderr, "wb") as err:
            proc = subprocess.Popen(argv, stdin=terminal, stdout=terminal, stderr=err, env=env)
    finally:
        os.close(terminal)
    chunks = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(controller, 1 << 16)
            except OSError:  # EIO: the process closed its end
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(controller)
    code = proc.wait(timeout=120)
    return code, b"".join(chunks), stderr.read_bytes()


@pytest.mark.parametrize("extra", [{}, {"COLUMNS": "150", "LINES": "30", "TTY_COMPATIBLE": "0"},
                                   {"PYTHONIOENCODING": "gb18030"}],
                         ids=["terminal", "environment", "encoding"])
def test_reads_in_a_terminal_print_the_same_bytes_through_the_worker(warm_store: Path, tmp_path: Path,
                                                                    extra: dict[str, str]) -> None:
    base = {k: v for k, v in os.environ.items() if k not in TERMINAL_ENV or k == "TERM"}
    base.update({"TERM": "xterm-256color", **extra})
    start_worker(warm_store)
    assert wait_for(lambda: settled(warm_store))  # nothing embeds meanwhile: each run meets the same index
    for columns in (80, 120, 200):
        for args in READS:
            argv = [*args, "--root", str(warm_store)]
            here = in_terminal([sys.executable, "-m", "docir", *argv], columns, {**base, "DOCIR_WORKER": "0"},
                               tmp_path / "here.err")
            warm = in_terminal([sys.executable, "-c", PROBE, *argv], columns, base, tmp_path / "warm.err")
            probe = warm[2].splitlines(keepends=True)[-1]
            assert probe == PROBE_LINE + b"False\n", f"{args[0]} at {columns} was not run by the worker"
            warm = (warm[0], warm[1], warm[2].removesuffix(probe))
            # A table for a terminal: styled, unless the environment says the terminal takes no escapes.
            assert here[0] == 0 and (b"\x1b[" in here[1]) == ("TTY_COMPATIBLE" not in extra), here
            assert warm == here, f"{args[0]} at {columns} columns"


def test_commands_side_by_side_each_see_their_own_clients_terminal(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    """Two forwarded commands on two threads at once: each is sized and encoded by its own client's terminal,
    from its Invocation; the process's own terminal and streams stay the worker's."""
    import threading

    from docir.cli import render
    from docir.cli.main import help_width
    from docir.invocation import Invocation
    from docir.worker.handler import run_captured

    for name in ("COLUMNS", "LINES", "TERM"):
        monkeypatch.delenv(name, raising=False)  # rich reads the test process's own environment too
    both_inside = threading.Barrier(2, timeout=30)

    def run_cli(argv: list[str], call: Invocation) -> int:
        both_inside.wait()  # both commands are running now: a size set for the process would show
        call.print(f"{render._console(call).width} {help_width(call)} {call.stdout.encoding}")  # what they draw by
        return 0

    requests = {"wide": {"terminal": [[0, 200, 50], [1, 200, 50]], "stdout_tty": True, "stdout_encoding": "gb18030"},
                "piped": {"terminal": [], "stdout_tty": False, "stdout_encoding": "utf-8"}}
    replies: dict[str, dict] = {}  # type: ignore[type-arg]

    def client(name: str) -> None:
        replies[name] = run_captured(run_cli, {"argv": [name], "cwd": str(tmp_path), "env": {}, **requests[name]},
                                     {}, str(tmp_path))

    threads = [threading.Thread(target=client, args=(name,)) for name in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert replies["wide"]["stdout"] == "200 78 gb18030\n"  # click's help: at most 80 columns, less 2
    assert replies["piped"]["stdout"] == "80 78 utf-8\n"  # rich's and click's fallback: no terminal at all
