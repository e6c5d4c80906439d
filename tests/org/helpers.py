"""What the organisation store's tests share: sample repositories in git, and plain SQL against the database."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.conftest import FIXTURES

REMOTE = "https://github.com/acme/sample.git"
NAME = "github.com/acme/sample"
SAMPLE_DOCUMENTS = 8


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin:/usr/local/bin",
                               "HOME": str(root)})
    return done.stdout


def sample_repo(root: Path, remote: str | None = REMOTE) -> Path:
    """A copy of the sample store in a git repository of its own, with `remote` as origin."""
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    git(root, "init", "-q")
    if remote is not None:
        git(root, "remote", "add", "origin", remote)
    return root


def sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def as_user(url: str, user: str) -> str:
    """The same database reached as another role (the test server trusts its Unix socket)."""
    parts = urlsplit(url)
    return parts._replace(netloc=f"{user}@{parts.hostname or ''}").geturl()


def counts(url: str) -> dict[str, int]:
    """Rows per table of docir's schema."""
    return {table: sql(url, f"SELECT count(*) FROM docir.{table}")[0][0]
            for table in ("repos", "documents", "sections", "links")}


def versions(url: str, repo: str = NAME) -> dict[str, str]:
    """Each document row's xmin: it moves exactly when the row is written again."""
    return {r[0]: r[1] for r in sql(url, "SELECT id, xmin::text FROM docir.documents WHERE repo = %s", (repo,))}


SIGNING = "Session tokens are signed with rotating keys"
HSM = "Session tokens are signed inside the hardware security module"


class Org:
    """The published repositories and the reader, with the ids the tests look for."""

    def __init__(self, url: str, platform: Path, service: Path, reader: Path, ids: dict[str, str]) -> None:
        self.url = url
        self.platform = platform
        self.service = service
        self.reader = reader
        self.ids = ids


def publish_as(cli: Any, url: str, root: Path, name: str) -> None:
    result = cli("publish", url, "--as", name, "--root", str(root), "--wait-embeddings", "--json")
    assert result.code == 0, result.err


def stores_yaml(reader: Path, text: str) -> None:
    (reader / ".docir" / "stores.yaml").write_text(text, encoding="utf-8")
