"""Where an organisation store is: a postgresql:// URL, checked and shown without its credentials.

Pure string work: nothing here imports psycopg, so a store list that names a URL is understood
(and a bad one refused) even where the `[org]` extra is not installed.

A password is found by the URL's structure before anything parses it (`credentials`): generated
passwords hold `/ @ # % :` and spaces unencoded, which a URL parser, and libpq, read as the
URL's own delimiters, and then quote a piece of the password as a host or a path in their
messages. Every password seen is told to docir/redaction.py (`remember`), which scrubs every
line docir writes to stderr or a crash log of it.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import NamedTuple
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from docir import redaction
from docir.errors import UsageError
from docir.redaction import HIDDEN, scrub

SCHEMES = ("postgresql://", "postgres://")
# Credentials and key material a URL's query may carry: never shown, never committed.
_SECRET_PARAMS = frozenset({"password", "passfile", "sslpassword", "sslkey"})



class Credentials(NamedTuple):
    """A URL cut by structure: `scheme://`, the user and password (None: none written), and the rest."""

    head: str
    user: str | None
    password: str | None
    rest: str  # host[:port][,...][/database][?query], as written


def credentials(text: str) -> Credentials:
    """The userinfo of `scheme://userinfo@rest`, ended by the last '@' (a host holds none; a password may)."""
    head, sep, after = text.partition("://")
    if not sep or "@" not in after:
        return Credentials(head + sep, None, None, after if sep else text)
    userinfo, _, rest = after.rpartition("@")
    user, colon, password = userinfo.partition(":")
    return Credentials(head + sep, user, password if colon else None, rest)


def remember(text: str) -> None:
    """Keep the password a URL (or a store entry) carries, and its query's secrets, for `scrub`."""
    found = credentials(text)
    secrets = [found.password] if found.password else []
    # The query as the rest holds it, and as the whole text does: an unencoded '@' in a query's password
    # makes the first '?' the query's start, not what the userinfo rule leaves.
    for rest in (found.rest, text):
        secrets += [value for key, value in _query_pairs(rest) if key in _SECRET_PARAMS and value]
    for secret in secrets:
        redaction.remember(secret)


def shown(text: str) -> str:
    """A URL as a message may quote it: its password replaced by ***, its query's secrets left out. What
    does not start like a PostgreSQL URL is not quoted at all."""
    remember(text)
    if not is_url(text):
        return "(not shown: it does not start with postgresql://)"
    found = credentials(text.strip())
    user = "" if found.user is None else found.user + (f":{HIDDEN}" if found.password else "") + "@"
    base = found.rest.partition("?")[0]
    kept = [(key, value) for key, value in _query_pairs(found.rest) if key not in _SECRET_PARAMS]
    return scrub(f"{found.head}{user}{base}" + (f"?{urlencode(kept, safe='/')}" if kept else ""))


def password_hidden(text: str) -> str:
    """Any URL (a git remote's too) with its password replaced by ***, found by structure."""
    remember(text)
    found = credentials(text)
    if not found.password:
        return text
    return scrub(f"{found.head}{found.user}:{HIDDEN}@{found.rest}")


def without_password(text: str) -> tuple[str, str | None]:
    """The URL with its password taken out (the user percent-encoded, so a parser reads it whole), and the
    password, decoded: handed to libpq apart, it is never read as a delimiter (connect.connect)."""
    from urllib.parse import quote

    found = credentials(text.strip())
    if found.user is None:
        return text.strip(), None
    user = quote(unquote(found.user), safe="")
    password = unquote(found.password) if found.password else None
    return f"{found.head}{user}@{found.rest}" if user else f"{found.head}{found.rest}", password


def _query_pairs(rest: str) -> list[tuple[str, str]]:
    _, mark, query = rest.partition("?")
    return parse_qsl(query, keep_blank_values=True) if mark else []


def is_url(value: str) -> bool:
    """Whether a store entry names a database rather than a folder."""
    return value.strip().lower().startswith(SCHEMES)


def meant_as_url(value: str) -> bool:
    """Whether a store entry was meant to name a database, written well or not (`postgresql:/u:pw@db`): it
    is read as a URL, and refused as a bad one without being quoted, never taken for a folder whose path a
    warning would print, password and all."""
    text = value.strip().lower()
    return text.startswith("postgres") and ":" in text


class OrgAddress(NamedTuple):
    """An organisation store to read: its URL, the label rows show, and which repositories to read."""

    url: str
    label: str  # the URL without user, password or secret parameters
    repos: tuple[str, ...] = ()  # names or globs; empty: every repository
    exclude: tuple[str, ...] = ()  # globs

    def reads(self, repo: str) -> bool:
        """Whether `repo` is one this entry asks for."""
        if self.repos and not any(fnmatchcase(repo, pattern) for pattern in self.repos):
            return False
        return not any(fnmatchcase(repo, pattern) for pattern in self.exclude)


def parse(url: str, *, committed: bool, repos: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> OrgAddress:
    """An address from a URL; UsageError (one line) for a malformed one, or for a password in a
    `committed` one (.docir/stores.yaml): credentials come from PGPASSWORD or ~/.pgpass."""
    text = url.strip()
    remember(text)
    found = credentials(text)
    expected = "expected postgresql://[user@]host[:port]/database"
    try:
        # Parsed without its userinfo: a password's '/', '#' or '@' would be read as the URL's own.
        parts = urlsplit(found.head + found.rest)
        parts.port  # noqa: B018 - a port that is not a number raises here, not at connect time
        query = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        # The parser's message may quote the URL: never passed on.
        raise UsageError(f"bad organisation store URL {shown(text)}: it cannot be read as a URL; {expected}") from None
    if not is_url(text):
        raise UsageError(f"bad organisation store URL (not shown: it may hold a password): {expected}")
    if " " in found.rest:
        raise UsageError(f"bad organisation store URL {shown(text)}: {expected}")
    secret = bool(found.password) or any(key in _SECRET_PARAMS for key, _ in query)
    label = _label(parts.scheme, parts.hostname, parts.port, parts.path, query)
    if secret and committed:
        raise UsageError(f"organisation store {label}: a password in a committed URL is refused; "
                         "set PGPASSWORD or use ~/.pgpass instead")
    return OrgAddress(text, label, repos, exclude)


def _label(scheme: str, host: str | None, port: int | None, path: str, query: list[tuple[str, str]]) -> str:
    netloc = (host or "") + (f":{port}" if port is not None else "")
    shown = [(key, value) for key, value in query if key not in _SECRET_PARAMS]
    # Built by hand: urlunsplit drops the '//' of an empty host (a Unix socket named in the query).
    return f"{scheme}://{netloc}{path}" + (f"?{urlencode(shown, safe='/')}" if shown else "")

