"""Where an organisation store is: a postgresql:// URL, checked and shown without its credentials.

Pure string work: nothing here imports psycopg, so a store list that names a URL is understood
(and a bad one refused) even where the `[org]` extra is not installed.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit

from docir.errors import UsageError

SCHEMES = ("postgresql://", "postgres://")
# Credentials and key material a URL's query may carry: never shown, never committed.
_SECRET_PARAMS = frozenset({"password", "passfile", "sslpassword", "sslkey"})


def is_url(value: str) -> bool:
    """Whether a store entry names a database rather than a folder."""
    return value.strip().lower().startswith(SCHEMES)


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
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number raises here, not at connect time
        query = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError as exc:
        raise UsageError(f"bad organisation store URL {_shown(text)}: {exc}") from None
    if not is_url(text) or " " in text:
        raise UsageError(f"bad organisation store URL {_shown(text)}: expected postgresql://[user@]host[:port]/database")
    secret = bool(parts.password) or any(key in _SECRET_PARAMS for key, _ in query)
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


def _shown(text: str) -> str:
    """A rejected URL as an error may quote it: everything after '://' up to '@' is hidden."""
    head, sep, rest = text.partition("://")
    if sep and "@" in rest.split("/", 1)[0]:
        return f"{head}://***@{rest.split('@', 1)[1]}"
    return text
