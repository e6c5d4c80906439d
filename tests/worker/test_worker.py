"""The warm worker as real processes: start, serve, debounce, survive kill -9, one per store."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docir.worker import paths
from tests.conftest import FIXTURES
from tests.worker.helpers import ID, docir, settled, status, wait_for


def test_start_status_stop(warm_store: Path) -> None:
    started = json.loads(docir(warm_store, "worker", "start").stdout)
    assert started["running"] is True and started["semantic"] == "on"
    assert paths.status_path(warm_store).is_file()
    socket_file = Path(paths.read_status(warm_store)["socket"])  # type: ignore[index]
    assert socket_file.exists() and oct(socket_file.stat().st_mode & 0o777) == "0o600"
    assert oct(socket_file.parent.stat().st_mode & 0o777) == "0o700"
    stopped = json.loads(docir(warm_store, "worker", "stop").stdout)
    assert stopped["stopped"] is True
    assert not paths.pid_alive(started["pid"])
    assert not paths.status_path(warm_store).exists()
    assert status(warm_store)["running"] is False


def test_commands_run_inside_the_warm_worker_with_identical_output(warm_store: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cold_env = {**os.environ, "DOCIR_WORKER": "0"}
    cold = docir(warm_store, "get", ID, "adr-0000000000a0", env=cold_env)
    docir(warm_store, "worker", "start")
    warm = docir(warm_store, "get", ID, "adr-0000000000a0")
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    missing = docir(warm_store, "get", "adr-ffffffffffff")
    assert missing.returncode == 1 and missing.stderr.startswith("docir: error: no document with id")


def test_two_racing_starts_give_one_worker(warm_store: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-m", "docir", "worker", "start", "--root", str(warm_store)],
                              stdout=subprocess.PIPE, text=True) for _ in range(3)]
    pids = {json.loads(p.communicate(timeout=120)[0])["pid"] for p in procs}
    assert len(pids) == 1
    serving = subprocess.run(["pgrep", "-f", f"docir worker serve --root {warm_store}"], capture_output=True, text=True)
    assert len(serving.stdout.split()) == 1


def test_a_burst_of_appends_costs_one_recompute(warm_store: Path) -> None:
    docir(warm_store, "worker", "start")
    assert wait_for(lambda: settled(warm_store))
    before = status(warm_store)["documents_embedded"]
    for n in range(10):
        done = docir(warm_store, "update", ID, "--append-section", f"Note {n}", "--body", f"Burst line {n}.")
        assert done.returncode == 0, done.stderr
    assert wait_for(lambda: status(warm_store).get("documents_embedded", 0) > before and settled(warm_store))
    time.sleep(3)  # past the debounce: nothing else is pending
    assert status(warm_store)["documents_embedded"] - before == 1


def test_kill_9_loses_nothing(warm_store: Path) -> None:
    started = json.loads(docir(warm_store, "worker", "start").stdout)
    assert wait_for(lambda: settled(warm_store))
    late = docir(warm_store, "update", ID, "--append-section", "Late", "--body", "Written just before the crash.")
    assert late.returncode == 0
    os.kill(started["pid"], signal.SIGKILL)  # inside the debounce window: the row is still dirty
    assert wait_for(lambda: not paths.pid_alive(started["pid"]), timeout=10)
    queued = json.loads(docir(warm_store, "embed", "--status", env={**os.environ, "DOCIR_WORKER": "0"}).stdout)
    assert queued["due"] == 1
    # Any command that needs the model notices the dead worker, cleans up and starts a new one.
    answer = docir(warm_store, "context", "written just before the crash")
    assert answer.returncode == 0, answer.stderr
    assert wait_for(lambda: settled(warm_store))
    assert status(warm_store)["pid"] != started["pid"]


def test_stale_status_file_is_cleaned(warm_store: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    paths.run_dir(warm_store).mkdir(parents=True, exist_ok=True)
    paths.lock_path(warm_store).touch()  # a worker of this store ran here: the record names this store
    paths.status_path(warm_store).write_text(json.dumps({"pid": dead.pid, "socket": "/nonexistent/x.sock",
                                                         "store": paths.store_identity(warm_store)}))
    assert status(warm_store)["running"] is False
    assert not paths.status_path(warm_store).exists()


def test_no_model_answers_lexically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a model nothing waits for one: the answer is lexical at once (its latency is a benchmark's:
    benchmarks/speed.py's cold search, the same lexical ranking)."""
    root = tmp_path / "sample"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    env = {**os.environ, "DOCIR_MODEL_PATH": str(tmp_path / "no-model-here"), "DOCIR_WORKER": "0"}
    docir(root, "reindex", env=env)
    done = docir(root, "context", "sessions lost on deploy", "--json", env=env)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["semantic"].startswith("off: ")
    assert payload["results"][0]["id"] == ID
    assert done.stderr.count("semantic ranking is off") == 1


def test_the_mcp_server_runs_in_its_own_process_beside_a_warm_worker(warm_store: Path) -> None:
    """`docir mcp` owns stdin and stdout for its session: it must never be handed to the worker."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    docir(warm_store, "worker", "start")

    async def call() -> str:
        params = StdioServerParameters(command=sys.executable, args=["-m", "docir", "mcp", "--root", str(warm_store)],
                                       env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("get", {"ids": [ID]})
                assert not result.is_error, result.content
                return str(result.content[0].text)  # type: ignore[union-attr]

    text = anyio.run(call)
    assert text.startswith(f"=== {ID} ")  # the agent's text form of get


def test_one_clients_terminal_settings_never_reach_the_next_command(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """The worker hands the command exactly what the client forwards, and nothing of it outlives the command."""
    from docir.invocation import Invocation
    from docir.worker.client import protocol
    from docir.worker.handler import run_captured

    seen: list[dict[str, str | None]] = []

    def run_cli(argv: list[str], call: Invocation) -> int:
        seen.append({k: call.env.get(k) for k in (*protocol.TERMINAL_ENV, "DOCIR_X")})
        seen.append({k: call.settings().env.get(k) for k in (*protocol.TERMINAL_ENV, "DOCIR_X")})
        return 0

    for name in (*protocol.TERMINAL_ENV, "DOCIR_X"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "worker-term")
    client_env = {"COLUMNS": "33", "LINES": "11", "NO_COLOR": "1", "FORCE_COLOR": "1", "TERM": "xterm",
                  "COLORTERM": "truecolor", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "0",
                  "DOCIR_X": "1", "HOME": "/elsewhere"}
    first = protocol.forwarded_env(client_env)
    assert "HOME" not in first and set(first) == {*protocol.TERMINAL_ENV, "DOCIR_X"}
    run_captured(run_cli, {"argv": [], "cwd": str(tmp_path), "env": first}, dict(os.environ), str(tmp_path))
    run_captured(run_cli, {"argv": [], "cwd": str(tmp_path), "env": {}}, dict(os.environ), str(tmp_path))
    assert seen[0] == seen[1] == {k: client_env[k] for k in seen[0]}  # the invocation, and the settings made of it
    assert seen[2] == seen[3] == {k: None for k in seen[2]}  # what this client has, not what the last one had
    assert os.environ.get("TERM") == "worker-term" and "LINES" not in os.environ


def test_commands_side_by_side_each_see_their_own_folder_environment_and_streams(tmp_path: Path) -> None:
    """Two forwarded commands running at the same moment on two threads never see each other's state."""
    import threading

    from docir.invocation import Invocation
    from docir.worker.handler import run_captured

    both_inside = threading.Barrier(2, timeout=30)

    def run_cli(argv: list[str], call: Invocation) -> int:
        both_inside.wait()  # both commands are running now: any shared state would show
        call.print(f"{argv[0]} {call.cwd} {call.env.get('DOCIR_X')} {call.path('x').parent}")
        call.print(f"{argv[0]} {call.settings().env.get('DOCIR_X')} {sys.stdout is not call.stdout}")
        call.stderr.write(argv[0])
        return int(argv[1])

    replies: dict[str, dict] = {}  # type: ignore[type-arg]

    def client(name: str, code: str) -> None:
        folder = tmp_path / name
        folder.mkdir()
        replies[name] = run_captured(run_cli, {"argv": [name, code], "cwd": str(folder), "env": {"DOCIR_X": name}},
                                     {}, str(tmp_path))

    threads = [threading.Thread(target=client, args=(name, code)) for name, code in (("a", "3"), ("b", "5"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for name, code in (("a", 3), ("b", 5)):
        folder = tmp_path / name
        assert replies[name] == {"stdout": f"{name} {folder} {name} {folder}\n{name} {name} True\n", "stderr": name,
                                 "exit": code}
    assert os.getcwd() != str(tmp_path / "a") and "DOCIR_X" not in os.environ


def test_a_warm_call_talks_through_the_socket_module_in_c_alone(warm_store: Path) -> None:
    """The client's socket is _socket's: socket.py (selectors, array, its own class) is not worth its import
    on every warm call (worker/client.py)."""
    docir(warm_store, "worker", "start")
    probe = ("import sys, runpy; sys.argv = ['docir', 'worker', 'status', '--json']\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "print('--', sorted(m for m in ('_socket', 'socket', 'selectors', 'docir.cli.main') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=warm_store, capture_output=True, text=True, timeout=120)
    assert '"running": true' in done.stdout and done.stdout.strip().endswith("-- ['_socket']"), \
        done.stdout + done.stderr


def test_top_level_help_beside_a_warm_worker_never_asks_it(warm_store: Path) -> None:
    """`docir --help` is printed from the caller's kept copy (cli/help_cache.py): no socket, no round trip."""
    docir(warm_store, "worker", "start")
    probe = ("import sys, runpy; sys.argv = ['docir', '--help']\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "print('--', '_socket' in sys.modules)")
    for _ in range(2):  # the first renders and keeps it
        done = subprocess.run([sys.executable, "-c", probe], cwd=warm_store, capture_output=True, text=True,
                              timeout=120)
        assert "Commands:" in done.stdout and done.stdout.strip().endswith("-- False"), done.stdout + done.stderr
