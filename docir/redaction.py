"""Passwords kept out of every line docir writes to stderr and to a crash log.

Whatever a URL holds (docir/org/address.py finds a password by the URL's structure and tells it here),
a library may still quote a piece of it: libpq reads an unencoded '/', '@' or '#' of a password as the
URL's own delimiter and names what follows as a host. So every password seen in this process is kept,
and a message is scrubbed of each, percent-decoded or not, and of every piece of PIECE_MIN characters
or more a parser could have cut from it. Imports nothing at start: every command writes through here.
"""

from __future__ import annotations

import threading

PIECE_MIN = 4  # a shorter piece is too common a string to hide without hiding what is not secret
HIDDEN = "***"
_DELIMITERS = "/@#?:%&=;"
# A URL's own words, which a piece cut from a misread password can be ("...?password=..."): never hidden
# alone, or every message naming a password would lose the word.
_URL_WORDS = frozenset({"password", "sslpassword", "passfile", "sslkey", "postgres", "postgresql", "host", "port",
                        "user", "dbname"})
_SECRETS: set[str] = set()
_PIECES: tuple[str, ...] = ()  # what scrub replaces, longest first: made once each time a secret is remembered
_LOCK = threading.Lock()


def remember(secret: str) -> None:
    """A password (or any credential) this process was given: never written out from now on."""
    global _PIECES
    if not secret or secret in _SECRETS:
        return
    with _LOCK:
        _SECRETS.add(secret)
        _PIECES = _pieces(_SECRETS)


def scrub(message: str) -> str:
    """`message` with every remembered secret, and each of its pieces, replaced by ***."""
    for piece in _PIECES:
        message = message.replace(piece, HIDDEN)
    return message


def _pieces(secrets: set[str]) -> tuple[str, ...]:
    from urllib.parse import unquote

    whole = {variant for secret in secrets for variant in (secret, unquote(secret))}
    pieces = set(whole)
    for text in whole:
        for delimiter in _DELIMITERS:
            text = text.replace(delimiter, " ")
        pieces.update(piece for piece in text.split() if len(piece) >= PIECE_MIN and piece.lower() not in _URL_WORDS)
    return tuple(sorted((piece for piece in pieces if piece), key=len, reverse=True))
