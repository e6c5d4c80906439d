"""A record named by its number ("ADR 21", "adr-0021", "#21"), as teams name decisions they adopted or read
in place: the `number` field `docir adopt` keeps from the title or file name, and a record read in place
is given (adr-0c5e2d8f1a47). Reads (`get`) and writes (`--related supersedes:ADR-21`) take one alike."""

from __future__ import annotations

import re

from docir.services.indexing.session import Session

NUMBER_REF_RE = re.compile(r"^\s*(?:([A-Za-z][A-Za-z ]{0,15}?)[\s#_.-]*)?#?0*(\d{1,6})\s*$")


def numbered(session: Session, ref: str) -> list[str] | None:
    """The ids of the documents `ref` names by number (of the type whose prefix or name it starts with, when it
    does), or None when `ref` is not a number reference at all."""
    match = NUMBER_REF_RE.match(ref)
    if match is None:
        return None
    word, number = (match.group(1) or "").strip().lower(), int(match.group(2))
    types = {name for name, spec in session.schema.types.items() if word in (spec.prefix, name)}
    ids: list[str] = []
    for _, doc_id, value in session.catalog.docs.with_field("number"):
        if _as_int(value) == number and (not types or _type_of(doc_id, session) in types):
            ids.append(doc_id)
    return list(dict.fromkeys(ids))


def id_of(session: Session, ref: str, said: str) -> str:
    """The id a command's argument names, read as `get` reads it: an id as it is, a record's number as the
    one id it names (one_id's errors, quoting `said`); anything else as it is, for the id check to refuse
    in its own words."""
    from docir.documents.ids import is_valid_id

    if is_valid_id(ref) or NUMBER_REF_RE.match(ref) is None:
        return ref
    return one_id(session, ref, said)


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _type_of(doc_id: str, session: Session) -> str | None:
    prefix = doc_id.split("-", 1)[0]
    return next((name for name, spec in session.schema.types.items() if spec.prefix == prefix), None)


def one_id(session: Session, ref: str, said: str) -> str:
    """The id `ref` names: itself when it is an id, else the one document its number names. UsageError,
    quoting `said` (the option as the user typed it), for a reference that names none or several."""
    from docir.documents.ids import is_valid_id
    from docir.errors import UsageError

    if is_valid_id(ref):
        return ref
    found = numbered(session, ref)
    if found is None:
        raise UsageError(f"{said}: '{ref}' is neither a document id (e.g. adr-4c21693aac55) nor a record's "
                         "number (e.g. ADR 12)")
    if not found:
        raise UsageError(f"{said}: no document is numbered so; find ids with 'docir query'")
    if len(found) > 1:
        raise UsageError(f"{said}: names {len(found)} documents ({', '.join(found)}); pass one's id")
    return found[0]
