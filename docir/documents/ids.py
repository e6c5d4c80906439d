"""Document ids: `<type prefix>-<12 lowercase hex>`, random, independent of the path."""

from __future__ import annotations

import re
from collections.abc import Iterable

from docir.errors import UsageError

ID_RE = re.compile(r"^([a-z][a-z0-9]{0,15})-([0-9a-f]{12})$")


def new_id(prefix: str) -> str:
    import secrets  # writes only; reads check ids and would pay for random and hmac (cold start, adr-d5e80517405b)

    return f"{prefix}-{secrets.token_hex(6)}"


def is_valid_id(text: str) -> bool:
    return ID_RE.match(text) is not None


def id_prefix(doc_id: str) -> str | None:
    match = ID_RE.match(doc_id)
    return match.group(1) if match else None


def check_ids(ids: Iterable[str]) -> None:
    """Reject anything that is not an id before it reaches a path or a query."""
    for doc_id in ids:
        if not is_valid_id(doc_id):
            raise UsageError(f"'{doc_id}' is not a document id (expected <prefix>-<12 hex>, e.g. adr-4c21693aac55)")
