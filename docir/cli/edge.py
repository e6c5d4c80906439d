"""Where the command line hands the layers below what they may know of the caller (adr-3c5e7a90b1d4).

A command runs for an Invocation: this process's folder, environment and streams, or a client's in
the warm worker. Below the command line nothing reads them; what they decide is made here, once per
command, into the Caller a session carries: the settings of the caller's environment, the way to the
store's warm worker, and whether the caller has gone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from docir.invocation import Invocation
from docir.services.indexing.caller import Caller

T = TypeVar("T")


def caller_of(invocation: Invocation) -> Caller:
    settings = invocation.settings()
    worker = None
    if settings.worker:
        from docir.worker.link import ClientLink

        worker = ClientLink()
    return Caller(settings, worker, None if invocation.cancelled is None else invocation.cancelled.is_set)


def invocation_of(ctx: Any, root: Path | None = None, json: bool = False) -> Invocation:
    """The Invocation a typer command runs for (cli/main.py hands it to click as the context's object;
    click run by other code, this process's own), with the command's --root and --json."""
    invocation = ctx.find_root().obj
    if not isinstance(invocation, Invocation):
        from docir.invocation import here

        invocation = here()
    return invocation._replace(root=root, json=json)


def in_store(invocation: Invocation, action: Callable[..., T], *args: Any, refresh: bool = True) -> T:
    """`action(session, *args)` in a session of the caller's store (--root, else found upward)."""
    from docir.services.indexing import session

    return session.run(invocation.store_root(), action, *args, caller=caller_of(invocation), refresh=refresh,
                       warn=invocation.warn)
