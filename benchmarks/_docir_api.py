"""docir's service calls as the benchmarks make them, on this checkout's docir or an older revision's.

Some benchmarks run this checkout's code against another tree's docir (model_build, publish_big): the
calls that gained a caller's settings (adr-3c5e7a90b1d4) are made here, in whichever form the docir
imported takes. The settings are this process's: a benchmark is its own caller.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any


def settings() -> Any:
    """This process's settings, or None for a docir that reads its environment itself."""
    if importlib.util.find_spec("docir.settings") is None:
        return None
    from docir.invocation import here

    return here().settings()


def caller() -> Any:
    """The Caller a command of this process makes (cli/edge.py), or None before there was one."""
    if settings() is None:
        return None
    from docir.cli.edge import caller_of
    from docir.invocation import here

    return caller_of(here())


def open_session(root: Path, *, refresh: bool = True) -> Any:
    from docir.services.indexing import session

    opened: Any = session.open_session  # either revision's signature
    made = caller()
    return opened(root, refresh=refresh) if made is None else opened(root, made, refresh=refresh)


def resolve(schema_model_path: str | None, store_root: Path | None = None) -> Any:
    from docir.embed import resolve as resolving

    resolved: Any = resolving.resolve
    chosen = settings()
    return resolved(schema_model_path, store_root) if chosen is None else resolved(chosen, schema_model_path,
                                                                                     store_root)


def load_local(schema_model_path: str | None, store_root: Path) -> Any:
    from docir.services.vectors import query_source

    loaded: Any = query_source.load_local
    made = caller()
    return loaded(schema_model_path, store_root) if made is None else loaded(made, schema_model_path, store_root)


def drain(catalog: Any, embedder: Any, **options: Any) -> Any:
    from docir.services.vectors import embedding

    drained: Any = embedding.drain
    chosen = settings()
    return drained(catalog, embedder, **options) if chosen is None else drained(catalog, embedder, chosen, **options)


def open_store(root: Path) -> Any:
    from docir import store

    opened: Any = store.open_store
    return opened(root, str(root)) if settings() is not None else opened(root)


def open_org_peer(address: Any) -> Any:
    from docir.org.peer import OrgPeer

    opened: Any = OrgPeer.open
    chosen = settings()
    return opened(address) if chosen is None else opened(address, chosen)


def local_context(*args: Any, **kwargs: Any) -> Any:
    """`context` over a local index, in process: local_ranking.context, or ranking.context before the
    ranking rule and the local store's lists were two modules."""
    if importlib.util.find_spec("docir.services.retrieval.local_ranking") is not None:
        from docir.services.retrieval import local_ranking as ranked
    else:
        from docir.services.retrieval import ranking as ranked  # type: ignore[no-redef]
    return ranked.context(*args, **kwargs)
