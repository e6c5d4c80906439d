"""Every command prints the same bytes, and exits the same way, through the warm worker as in a process of its own.

Two copies of the same store side by side: each command runs in one with DOCIR_WORKER=0, then in the other
through its worker, in the same order, so every write leaves both alike for the next. Each is run by a
probe that says whether the command line was imported in the client: a forwarded command must not have
been (the worker answered it), a command that stays local must have been. Outputs are compared with
each store's folder and each new document's id put to one name (adr-3c5e7a90b1d4).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docir.commands import TABLE
from docir.worker.client import runs_here
from tests.conftest import FIXTURES
from tests.worker.helpers import SETUP_TIMEOUT, docir, start_worker

PROBE = ("import sys, runpy; sys.argv = ['docir', *sys.argv[1:]]\n"
         "try: runpy.run_module('docir', run_name='__main__')\n"
         "except SystemExit as exit: code = exit.code\n"
         "sys.stdout.flush()\n"
         "sys.stderr.write(f'\\n<<here {\"docir.cli.main\" in sys.modules} exit {code}>>')\n")

# What each command is run with, in this order: the writes leave both stores alike for what follows.
# Every command of `docir --help` is here at least once (a test below checks), the forwarded ones with
# what they do, the local ones (client.runs_here) too: they must print the same bytes either way as well.
RUNS: list[tuple[str, ...]] = [
    ("--version",),
    ("init",),
    ("init", "--json"),
    ("rule",),
    ("rule", "DOC014", "--json"),
    ("agents",),
    ("agents", "--write"),
    ("search", "--help"),
    ("ref",),
    ("get", "adr-0000000000a1"),
    ("get", "adr-0000000000a1", "--json"),
    ("get", "adr-0000000000a9"),
    ("query", "--type", "decision"),
    ("query", "--json"),
    ("search", "session"),
    ("search", "session", "--json", "--limit", "2"),
    ("context", "where do sessions live", "--json"),
    ("context", "where do sessions live"),
    ("lint",),
    ("lint", "--format", "json"),
    ("lint", "docs/decisions/keep-sessions-in-memory.md"),
    ("add", "decision", "--title", "Rotate session keys", "--description",
     "Session signing keys are rotated every month so a leaked key expires.", "--owner", "@core"),
    ("update", "adr-0000000000a1", "--status", "accepted"),
    ("archive", "issue-0000000000c2"),
    ("embed", "--flush", "--json"),  # the worker drains beside the writes; a process of its own, here
    ("embed", "--status", "--json"),
    ("reindex",),
    ("reindex", "--json"),
    ("adopt", "ADR_FOLDER", "--dry-run"),
    ("adopt", "ADR_FOLDER", "--json"),
    ("ref", "add", "REF_FOLDER", "--dry-run", "--json"),
    ("ref", "add", "REF_FOLDER", "--name", "handbook", "--json"),
    ("ref", "list"),
    ("ref", "remove", "handbook"),
    ("hooks", "install"),
    ("hooks", "run", "post-merge"),
    ("worker", "--help"),
    ("mcp", "--help"),
    ("publish", "postgresql://docir@127.0.0.1:1/nothing", "--dry-run"),
    ("bogus",),
    ("search",),
]


def _store(base: Path) -> Path:
    """The sample store in its own git repository, with a folder of ADRs to adopt and a corpus to add."""
    root = base / "repo"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    shutil.copytree(FIXTURES / "adopt" / "adr", root / "old-adr")
    shutil.copytree(FIXTURES / "refcorpus" / "handbook", root / "handbook")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)
    return root


def _run(root: Path, args: tuple[str, ...], env: dict[str, str]) -> tuple[int, str, str, bool]:
    argv = [{"ADR_FOLDER": "old-adr", "REF_FOLDER": "handbook"}.get(a, a) for a in args]
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=root, capture_output=True, text=True,
                          timeout=SETUP_TIMEOUT, env=env)
    err, _, tail = done.stderr.rpartition("\n<<here ")
    here, _, code = tail.removesuffix(">>").partition(" exit ")
    return int(code) if code.isdigit() else 0 if code == "None" else 1, done.stdout, err, here == "True"


def _alike(text: str, root: Path, known: set[str]) -> str:
    """`text` with the store's folder as ROOT and every id the store did not start with as NEW. A flush's
    stage lines say where its work is done (loading the model here, or asking the warm worker): they are
    the one part that differs, by design, and are left out."""
    text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("docir: embedding: "))
    text = text.replace(str(root.resolve()), "ROOT").replace(str(root), "ROOT")
    return re.sub(r"\b(?:adr|arch|issue|guide)-[0-9a-f]{12}\b", lambda m: m.group(0) if m.group(0) in known else "NEW",
                  text)


@pytest.fixture
def two_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> tuple[Path, Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.setenv("DOCIR_WORKER_IDLE", "120")
    cold, warm = _store(tmp_path / "cold"), _store(tmp_path / "warm")
    start_worker(warm, _env(warm, "1"))  # it indexes its store, and makes its vectors
    for root, worker in ((cold, "0"), (warm, "1")):  # the other is indexed, and its vectors made, here
        flushed = docir(root, "embed", "--flush", env=_env(root, worker), timeout=SETUP_TIMEOUT)
        assert flushed.returncode == 0, flushed.stderr
    yield cold, warm
    docir(warm, "worker", "stop", env=_env(warm, "1"), timeout=60)


def _env(root: Path, worker: str) -> dict[str, str]:
    """Each store its own vector vault: one store's vectors must not save the other its model time."""
    return {**os.environ, "DOCIR_WORKER": worker, "DOCIR_VECTORS": str(root / ".vectors.db")}


def test_every_command_prints_the_same_bytes_through_the_worker(two_stores: tuple[Path, Path]) -> None:
    cold, warm = two_stores
    known = set(re.findall(r"^id: (\S+)", "".join(p.read_text() for p in (cold / "docs").rglob("*.md")), re.M))
    cold_env, warm_env = _env(cold, "0"), _env(warm, "1")
    differ = []
    for args in RUNS:
        code, out, err, _ = _run(cold, args, cold_env)
        warm_code, warm_out, warm_err, here = _run(warm, args, warm_env)
        local = runs_here(list(args))
        assert here == local, f"{args}: {'ran in the client' if here else 'answered by the worker'}"
        if (code, _alike(out, cold, known), _alike(err, cold, known)) != \
                (warm_code, _alike(warm_out, warm, known), _alike(warm_err, warm, known)):
            differ.append(f"{args}:\n  cold {code} {out!r} {err!r}\n  warm {warm_code} {warm_out!r} {warm_err!r}")
    assert differ == [], "\n".join(differ)
    assert sorted(p.relative_to(cold).as_posix() for p in (cold / "docs").rglob("*")) == \
        sorted(p.relative_to(warm).as_posix() for p in (warm / "docs").rglob("*"))


def test_every_command_is_run_both_ways() -> None:
    assert {command.name for command in TABLE} <= {args[0] for args in RUNS}
