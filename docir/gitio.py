"""git, run as the git command (adr-37de4436d256): one way to run it and one reader of its objects.

A read never waits on the network (a partial clone would fetch a missing blob from its remote)
nor hangs on a stuck git, and a missing git binary is an answer (None), not a traceback.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import IO

TIMEOUT = 30  # seconds: far past any local git command docir runs
_ENV_EXTRA = {"GIT_NO_LAZY_FETCH": "1"}


def run(args: list[str], cwd: Path, env: Mapping[str, str], stdin: bytes | None = None) -> bytes | None:
    """`git ARGS`'s standard output, or None when git is missing, failed or took too long. `env` is the
    caller's environment (docir/settings.py): git runs as the caller would run it."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, timeout=TIMEOUT,
                              env={**env, **_ENV_EXTRA})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


class BlobReader:
    """One `git cat-file --batch` process kept open for every read of a lint. Each request is
    answered before the next is written, so neither pipe can fill while the other waits."""

    def __init__(self, repo: Path, env: Mapping[str, str]) -> None:
        self.repo = repo
        self.env = env  # the caller's environment, git's own
        self._process: subprocess.Popen[bytes] | None = None

    def read(self, name: str) -> bytes | None:
        """The object's bytes (`name`: a blob id, or `:path` for the staged file at a top-level
        path), or None when git has no such object."""
        if "\n" in name:
            return None
        process = self._start()
        stdin, stdout = _pipes(process)
        stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:
            return None  # "<name> missing" or "ambiguous"
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after the object
        return data

    def close(self) -> None:
        if self._process is not None:
            stdin, _ = _pipes(self._process)
            stdin.close()
            self._process.wait()
            self._process = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            self._process = subprocess.Popen(["git", "cat-file", "--batch"], cwd=self.repo, stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                             env={**self.env, **_ENV_EXTRA})
        return self._process


def _pipes(process: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    assert process.stdin is not None and process.stdout is not None
    return process.stdin, process.stdout
