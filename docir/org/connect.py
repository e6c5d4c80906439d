"""Reach the organisation database: check the URL, connect, check pgvector and the tables' version, migrate.

Every connection reads `docir.meta.schema_version` (tables.py). A writer migrates an empty or
older database, under an advisory lock so that many CI jobs arriving at a new database at once
create its tables exactly once; a reader refuses an older one. A database newer than this docir
is refused by both. Every refusal is one line, exit 2, with nothing written.

Credentials come from libpq's own sources (PGPASSWORD, ~/.pgpass, PGSERVICE); a password written
into the URL still works, handed to libpq apart from the URL, and is never repeated in any message
(address.shown, address.scrub).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from docir.errors import InputError, UsageError
from docir.org.address import credentials, is_url, remember, shown, without_password
from docir.org.tables import MIGRATIONS, OLDEST_READABLE, SCHEMA_VERSION
from docir.redaction import scrub

if TYPE_CHECKING:
    import psycopg

    from docir.settings import Settings

CONNECT_TIMEOUT = 5  # seconds: an unreachable server is an answer, not a hang in CI (URL's connect_timeout wins)
INSTALL = "pip install 'docir[org]'"
# pg_advisory_xact_lock key of the migration step: one writer migrates, the others wait and find it done.
MIGRATION_LOCK = 0x646F6369_72000001
ENABLE_PGVECTOR = "CREATE EXTENSION vector;"


class OrgError(InputError):
    """The database cannot be used as it is (no pgvector, another schema version, no permission): exit 2."""


def check_url(url: str) -> str:
    """The URL if it names a PostgreSQL database; UsageError otherwise."""
    remember(url)
    if not is_url(url):
        raise UsageError("the organisation store must be a PostgreSQL URL (the one given is not shown: it may hold "
                         "a password): postgresql://[user@]host[:port]/database, the password from PGPASSWORD, "
                         "~/.pgpass or PGSERVICE")
    return url


def has_password(url: str) -> bool:
    return bool(credentials(url).password)  # "user:@host", a local socket's usual URL, holds none


def describe(url: str) -> str:
    """A short name for the database in messages: host and database, no credentials."""
    found = credentials(url)
    try:
        parts = urlsplit(found.head + found.rest)  # no userinfo: a password's delimiters are not read
        host = parts.hostname or parse_qs(parts.query).get("host", ["local socket"])[0]
        return scrub(f"{host}{parts.path or '/'}")
    except ValueError:
        return "the organisation store (its URL cannot be read)"


def connect(url: str, settings: Settings, timeout: int = CONNECT_TIMEOUT) -> psycopg.Connection[Any]:
    """An open connection (autocommit off); UsageError for a missing driver or an unreachable server."""
    try:
        import psycopg
    except ImportError:
        raise UsageError(f"the organisation store needs psycopg: {INSTALL}") from None
    check_url(url)
    options: dict[str, Any] = {"application_name": "docir"}
    if "connect_timeout" not in url and "PGCONNECT_TIMEOUT" not in settings.env:
        options["connect_timeout"] = timeout
    conninfo, password = without_password(url)
    if password is not None:
        options["password"] = password  # apart from the URL: libpq never reads its '/', '@' or '#' as delimiters
    try:
        # No server-side prepared statements: a pooler in transaction mode (PgBouncer) may hand each
        # transaction another server connection, where a statement prepared earlier does not exist.
        return psycopg.connect(conninfo, prepare_threshold=None, **options)
    except psycopg.Error as exc:
        raise UsageError(f"cannot connect to {describe(url)}: {first_line(exc)}") from None


def first_line(exc: BaseException) -> str:
    """libpq's message, first line, with any password it quotes hidden, whole or in pieces."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = scrub(lines[0] if lines else type(exc).__name__)
    if "://" in text:  # a URL it quotes: shown as any URL is
        text = " ".join(shown(word) if "://" in word else word for word in text.split(" "))
    return text


def require_pgvector(conn: psycopg.Connection[Any], url: str) -> None:
    """OrgError, saying how to enable it, when the database has no pgvector extension."""
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is not None:
        return
    available = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is not None
    conn.rollback()
    if available:
        raise OrgError(f"{describe(url)} has no pgvector extension; a superuser enables it once with: "
                       f"{ENABLE_PGVECTOR}")
    raise OrgError(f"the server of {describe(url)} has no pgvector: install pgvector on it, then a superuser runs "
                   f"{ENABLE_PGVECTOR}")


def database_version(conn: psycopg.Connection[Any]) -> int:
    """The version of docir's tables in this database; 0 when it has none."""
    # pg_class read by a query, not to_regclass: a lookup through the catalog cache may not yet see the
    # tables another migrator committed while this one waited for MIGRATION_LOCK (an advisory lock
    # makes the backend process no invalidations); a query's snapshot does.
    found = conn.execute("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
                         " ON n.oid = c.relnamespace WHERE n.nspname = 'docir' AND c.relname = 'meta')").fetchone()
    if not found or not found[0]:
        return 0
    row = conn.execute("SELECT value FROM docir.meta WHERE key = 'schema_version'").fetchone()
    if row is None or not str(row[0]).isdigit():
        raise OrgError("the schema docir of this database has no schema_version in docir.meta; "
                       "it was not made by docir")
    return int(row[0])


def check_version(version: int, url: str, *, write: bool) -> None:
    if version > SCHEMA_VERSION:
        raise OrgError(f"{describe(url)} holds docir tables of version {version}, newer than this docir's "
                       f"{SCHEMA_VERSION}; upgrade docir (pip install -U 'docir[org]')")
    if version == 0 and not write:
        raise OrgError(f"{describe(url)} has no docir tables yet; a 'docir publish' creates them")
    if version < OLDEST_READABLE and not write:
        raise OrgError(f"{describe(url)} holds docir tables of version {version}, older than this docir's "
                       f"{SCHEMA_VERSION}; the next 'docir publish' migrates them")


def migrate(conn: psycopg.Connection[Any], url: str) -> int:
    """Bring the tables to SCHEMA_VERSION in one transaction; return the version found before.

    Under MIGRATION_LOCK, and the version read again once it is held: publishers that arrive
    together at an empty database wait for the first, then find the tables made.
    """
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            before = database_version(conn)
            check_version(before, url, write=True)
            for script in MIGRATIONS[before:]:
                conn.execute(script.encode("utf-8"))
            if before < SCHEMA_VERSION:
                conn.execute("INSERT INTO docir.meta (key, value) VALUES ('schema_version', %s)"
                             " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))
    except psycopg.errors.InsufficientPrivilege as exc:
        raise OrgError(f"cannot create or migrate docir's tables in {describe(url)}: {first_line(exc)}; "
                       "the publishing role needs CREATE on the database (or to own schema docir)") from None
    return before


def open_database(url: str, settings: Settings, *, write: bool,
                  dry_run: bool = False) -> tuple[psycopg.Connection[Any], int]:
    """A connection, and the version of docir's tables found in the database (0: none yet).

    `write` (a publish): an empty or older database is migrated first, unless `dry_run`, which
    only reports what a publish would do. A reader (`write` False) refuses tables older than this
    docir's. Every side refuses newer ones. Raises OrgError or UsageError, the connection closed.
    """
    conn = connect(url, settings)  # first: it says what to install when psycopg is missing
    import psycopg

    try:
        require_pgvector(conn, url)
        found = database_version(conn)
        conn.rollback()
        if write and not dry_run and found < SCHEMA_VERSION:
            found = migrate(conn, url)
        elif found or not write:
            check_version(found, url, write=write)
        return conn, found
    except psycopg.Error as exc:  # a role that may not even read docir's schema, a server going away
        conn.close()
        raise OrgError(f"cannot use {describe(url)}: {first_line(exc)}") from None
    except BaseException:
        conn.close()
        raise
