"""Organisation store URLs: told apart from folders, shown without credentials, refused when committed with a
password, and a store list that names none never imports psycopg."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docir.errors import UsageError
from docir.org.address import is_url, parse


@pytest.mark.parametrize("value, expected", [
    ("postgresql://db/org", True), ("POSTGRES://db/org", True), ("../platform", False), ("postgresql:/x", False)])
def test_a_url_is_told_apart_from_a_folder(value: str, expected: bool) -> None:
    assert is_url(value) is expected


@pytest.mark.parametrize("url, label", [
    ("postgresql://reader@db.example:5433/org", "postgresql://db.example:5433/org"),
    ("postgresql://reader:s3cret@db.example/org?sslmode=require", "postgresql://db.example/org?sslmode=require"),
    ("postgresql:///org?host=/run/pg&password=s3cret", "postgresql:///org?host=/run/pg"),
])
def test_the_label_has_no_credentials(url: str, label: str) -> None:
    assert parse(url, committed=False).label == label


@pytest.mark.parametrize("url", ["postgresql://u:s3cret@db/org", "postgresql://db/org?password=s3cret"])
def test_a_committed_password_is_refused_without_repeating_it(url: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse(url, committed=True)
    message = str(caught.value)
    assert "s3cret" not in message and "PGPASSWORD" in message and "\n" not in message


def test_an_empty_password_is_no_password() -> None:
    """What a local socket URL often carries (user 'postgres', nothing after the colon)."""
    assert parse("postgresql://postgres:@/org?host=/tmp/pg", committed=True).label == "postgresql:///org?host=/tmp/pg"


@pytest.mark.parametrize("url", ["postgresql://db:port/org", "postgresql://db/org name", "postgresql://db/o?a&&b"])
def test_a_bad_url_is_one_line(url: str) -> None:
    with pytest.raises(UsageError, match="bad organisation store URL"):
        parse(url, committed=False)


def test_repos_and_exclude_are_globs() -> None:
    address = parse("postgresql://db/org", committed=True, repos=("github.com/acme/*",), exclude=("*/sandbox-*",))
    assert [address.reads(name) for name in ("github.com/acme/api", "github.com/acme/sandbox-1",
                                             "github.com/other/api")] == [True, False, False]


def test_no_url_no_psycopg(sample_store: Path) -> None:
    """A read whose store list names no database never imports the driver (cold start, adr-d5e80517405b)."""
    (sample_store / ".docir").mkdir(exist_ok=True)
    (sample_store / ".docir" / "stores.yaml").write_text("stores:\n  - ../elsewhere\n")
    code = ("import sys; from docir.cli.main import main; main(['search', 'sessions', '--root', sys.argv[1]]); "
            "print('psycopg' in sys.modules, 'docir.org.peer' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, str(sample_store)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == "False False"


@pytest.mark.parametrize("entry, message", [
    ("  - url: postgresql://db/org\n    repos: 5\n", "repos must be a list of repository names or globs"),
    ("  - url: 7\n", "url must be text"),
    ("  - postgresql://u:s3cret@db/org\n", "a password in a committed URL is refused"),
])
def test_a_bad_url_entry_is_a_one_line_usage_error(cli, sample_store: Path, entry: str, message: str) -> None:  # type: ignore[no-untyped-def]
    (sample_store / ".docir").mkdir(exist_ok=True)
    (sample_store / ".docir" / "stores.yaml").write_text("stores:\n" + entry)
    result = cli("query", "--root", str(sample_store))
    assert result.code == 2 and result.err.count("\n") == 1 and message in result.err, result.err
