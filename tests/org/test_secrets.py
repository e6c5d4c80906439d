"""No password is printed, whatever the URL's shape and whatever a library says of it: stdout, stderr and the
crash log of publish and of the readers, for passwords holding the characters a URL parser reads as its own."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.org.helpers import sample_repo

LEFT, RIGHT = "Qx7wrongA", "Zp4wrongB"  # each half is a piece a parser could quote on its own
JOINS = ["/", "@", "#", "%zz", ":", " ", "@/#:"]
PASSWORDS = [f"{LEFT}{join}{RIGHT}" for join in JOINS]


def leaked(text: str) -> list[str]:
    return [secret for secret in (LEFT, RIGHT) if secret in text]


def docir(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCIR_WORKER": "0", "TMPDIR": str(root.parent / "tmp")}
    (root.parent / "tmp").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "docir", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)


def every_output(root: Path, done: subprocess.CompletedProcess[str]) -> str:
    crash = root.parent / "tmp" / f"docir-{os.getuid()}" / "crash.log"
    return done.stdout + done.stderr + (crash.read_text(encoding="utf-8") if crash.exists() else "")


@pytest.mark.parametrize("password", PASSWORDS, ids=JOINS)
def test_no_url_shape_prints_its_password(tmp_path: Path, password: str) -> None:
    repo = sample_repo(tmp_path / "repo")
    shapes = {
        "unreachable": f"postgresql://reader:{password}@127.0.0.1:1/org",
        "bad port": f"postgresql://reader:{password}@db.example:port/org",
        "no scheme slashes": f"postgresql:/reader:{password}@db.example/org",
        "in the query": f"postgresql://db.example:1/org?password={password}",
    }
    for shape, url in shapes.items():
        published = docir(repo, "publish", url)
        errors = [line for line in published.stderr.splitlines() if line.startswith("docir: error: ")]
        assert published.returncode == 2 and len(errors) == 1, (shape, published.stderr)
        read = docir(repo, "search", "sessions", "--store", url)
        assert read.returncode in (0, 2), (shape, read.stderr)
        for done in (published, read):
            assert leaked(every_output(repo, done)) == [], (shape, done.stdout, done.stderr)
    # The reader with a reachable store list that names the URL falls back with one warning, and says no password.
    (repo / ".docir").mkdir(exist_ok=True)
    (repo / ".docir" / "stores.yaml").write_text(f"stores:\n  - url: '{shapes['unreachable']}'\n", encoding="utf-8")
    committed = docir(repo, "search", "sessions")
    assert committed.returncode == 2 and leaked(every_output(repo, committed)) == [], committed.stderr


@pytest.mark.parametrize("password", [PASSWORDS[0], PASSWORDS[2], PASSWORDS[-1]], ids=["/", "#", "@/#:"])
def test_a_reachable_server_takes_the_password_apart_from_the_url(tmp_path: Path, pg_url: str,
                                                                  password: str) -> None:
    """The test server trusts its socket, so any password connects: the URL must reach it whole, host and database
    read where they are written, and nothing of the password in the report."""
    parts = urlsplit(pg_url)
    socket = parse_qs(parts.query)["host"][0]
    url = f"postgresql://postgres:{password}@{parts.path}?host={socket}"
    repo = sample_repo(tmp_path / "repo")
    published = docir(repo, "publish", url, "--json")
    assert published.returncode == 0, published.stderr
    assert leaked(every_output(repo, published)) == []
    read = docir(repo, "search", "sessions", "--store", url, "--json")
    assert read.returncode == 0 and leaked(every_output(repo, read)) == [], read.stderr


def test_a_crash_log_holds_no_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any) -> None:
    """A crash whose exception quotes the URL, and the command line the log records."""
    repo = sample_repo(tmp_path / "repo")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    from docir.org import connect

    def broken(url: str, *_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError(f"could not parse {url} near '{RIGHT}@127.0.0.1'")

    monkeypatch.setattr(connect, "connect", broken)
    url = f"postgresql://reader:{PASSWORDS[-1]}@127.0.0.1:1/org"
    result = cli("publish", url, "--root", str(repo))
    assert result.code == 3, result.err
    log = (tmp_path / "tmp" / f"docir-{os.getuid()}" / "crash.log").read_text(encoding="utf-8")
    assert "RuntimeError" in log and "publish" in log  # the log was written, with the command's words
    assert leaked(log + result.out + result.err) == [], log
