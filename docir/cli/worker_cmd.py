"""docir worker start|stop|status (and `serve`, what `start` runs in the background)."""

from __future__ import annotations

import math
import os
import time
from typing import Annotated, Any

import typer

from docir.cli import render
from docir.cli.edge import caller_of, invocation_of
from docir.cli.options import JsonOption, RootOption
from docir.errors import DocirError, UsageError
from docir.settings import WORKER_IDLE
from docir.store import Store
from docir.worker import client, paths

app = typer.Typer(help="The warm worker: holds the model, drains the embedding queue, "
                       "answers commands in milliseconds.",
                  no_args_is_help=True)

IDLE_SECONDS = 900.0
MAX_IDLE_SECONDS = 86_400.0  # a day
START_WAIT_SECONDS = 30.0


def _a_number(value: float) -> float:
    """The range check lets 'nan' through (it compares false both ways); a worker that never exits would."""
    if math.isnan(value):
        raise typer.BadParameter("nan is not a number of seconds")
    return value


@app.command("status")
def status(ctx: typer.Context, root: RootOption = None, json_out: JsonOption = False) -> int:
    """Is a worker running for this store, with which model, how much is queued."""
    invocation = invocation_of(ctx, root, json_out)
    home = invocation.store_root()
    # Looking stops nothing: a worker of another docir version is shown (with its version) as it is.
    reply = client.request(home, {"cmd": "status"}, any_version=True) if invocation.settings().worker else None
    result: dict[str, Any] = {"running": reply is not None and "pid" in reply, **(reply or {})}
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        render.key_values("worker", result, invocation)
    return 0


@app.command("start")
def start(ctx: typer.Context, root: RootOption = None, json_out: JsonOption = False) -> int:
    """Start the worker in the background (if none runs) and wait until it answers."""
    invocation = invocation_of(ctx, root, json_out)
    home = invocation.store_root()
    if not invocation.settings().worker:
        raise UsageError("DOCIR_WORKER=0 is set; unset it to use the worker")
    deadline = time.monotonic() + START_WAIT_SECONDS
    reply = client.request(home, {"cmd": "status"})
    if reply is None:
        client.spawn(home)
    while reply is None and time.monotonic() < deadline:
        time.sleep(0.1)
        reply = client.request(home, {"cmd": "status"})
    if reply is None:
        raise DocirError(f"the worker did not start within {START_WAIT_SECONDS:.0f}s; see {paths.log_path(home)}")
    if invocation.wants_json():
        render.emit_json({"running": True, **reply}, invocation)
    else:
        invocation.print(f"worker {reply['pid']} running ({reply['semantic']})")
    return 0


@app.command("stop")
def stop(ctx: typer.Context, root: RootOption = None, json_out: JsonOption = False) -> int:
    """Stop the worker; queued embeddings stay queued for the next one."""
    invocation = invocation_of(ctx, root, json_out)
    home = invocation.store_root()
    reply = client.request(home, {"cmd": "stop"}, timeout=5.0, any_version=True)
    pid = int((reply or {}).get("pid") or 0)
    deadline = time.monotonic() + START_WAIT_SECONDS
    while pid and paths.pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # "stopped" means gone: a `start` right after must not meet the old one
    result = {"stopped": reply is not None, "pid": pid or None}
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        invocation.print("worker stopped" if reply else "no worker was running")
    return 0


@app.command("serve", hidden=True)
def serve(ctx: typer.Context, root: RootOption = None,
          idle: Annotated[float, typer.Option("--idle", min=1.0, max=MAX_IDLE_SECONDS, callback=_a_number,
                                              help="Exit after this many idle seconds.")] = IDLE_SECONDS) -> int:
    """Run the worker in the foreground (what `start` runs in the background)."""
    single_threaded_blas()
    invocation = invocation_of(ctx, root)
    from docir.cli.main import main as run_cli
    from docir.schema import load_schema
    from docir.services.indexing.session import open_session
    from docir.services.indexing.shared_walk import keep_watch
    from docir.services.vectors.query_source import LocalModel, load_local
    from docir.worker.handler import WarmWorker
    from docir.worker.server import AlreadyRunning, Server

    store = Store(invocation.store_root())
    settings = invocation.settings()
    idle = float(invocation.env.get(WORKER_IDLE, idle))
    server = Server(store.root, handler=_Pending(), idle_timeout=idle, log=_log, watch=lambda: _store_gone(store),
                    runtime=settings.runtime)
    try:
        server.claim()
    except AlreadyRunning:
        return 0  # another worker won the race: that is the single instance
    keep_watch()  # every read here walks docs/: after the first, only a change makes it walk again
    caller = caller_of(invocation).without_worker()  # this is the worker
    open_session(store.root, caller).close()  # bring the index in line with the files: new text gets queued
    source = load_local(caller, load_schema(store.schema_path).model_path, store.root)  # the model, loaded once
    embedder = source.embedder if isinstance(source, LocalModel) else None
    why = "" if embedder is not None else source.status.removeprefix("off: ")
    worker = WarmWorker(store, settings, run_cli, embedder, why)
    server.handler = worker
    serving = "model " + embedder.model_id if embedder else "lexical: " + why
    _log(f"worker {os.getpid()} serving {store.root} ({serving})")
    # Commands are handed their client's folder in their Invocation. The process's own folder is
    # the private socket folder, so a relative path a command resolves by mistake finds nothing.
    os.chdir(paths.runtime_dir(settings.runtime))
    from docir.org import kept

    kept.start()  # organisation store connections outlive a command here, and only here (adr-8a976b997594)
    try:
        server.serve({"model": embedder.model_id if embedder else None})
    finally:
        kept.stop()
    return 0


BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")  # numpy wheels bundle OpenBLAS


def single_threaded_blas() -> None:
    """One BLAS thread per calling thread in the worker, unless the user chose otherwise.

    Must run before numpy is first imported: BLAS reads these once, when it loads. The worker's
    parallelism is its commands, each on its own thread; a multi-threaded BLAS under them makes
    every query's cosine (a matrix-vector product) queue for one shared pool whose threads
    spin between calls, so a product costs many times its single-threaded CPU with several commands
    at once (the figures: adr-bf5a3f3b4a55).
    """
    import sys

    if "numpy" in sys.modules:
        return  # too late to matter (a test running serve in-process); leave the setting alone
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def _store_gone(store: Any) -> str | None:
    """Why this worker has nothing left to serve: its store folder or its index was deleted."""
    if not store.schema_path.is_file():
        return f"{store.schema_path} is gone"
    if not store.index_path.is_file():
        return f"{store.index_path} is gone"
    return None


class _Pending:
    def busy(self) -> bool:
        return False

    def close(self) -> None:
        pass


def _log(message: str) -> None:
    # fd 2 is the worker's log file; sys.stderr is the running command's client stream.
    os.write(2, f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {message}\n".encode())
