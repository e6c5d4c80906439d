"""The lint command as a request: the one declaration of its options, which the CLI derives its parsers from."""

# No `from __future__ import annotations`: typing would compile each annotation as a string when the class
# is made, on every cold lint a git hook runs (adr-d5e80517405b).
from typing import Annotated, NamedTuple

from docir.request_options import Option

FORMATS = ("text", "json", "github")


class LintRequest(NamedTuple):
    files: Annotated[tuple[str, ...], Option(
        "Check these files only: they are read, the rest of the store is known from the index (kept fresh by "
        "the usual stat walk). Default: every document.", positional=True, metavar="[PATHS]...",
        typed="relative")] = ()
    deep: Annotated[bool, Option("Also look for near-duplicate documents by embedding similarity.")] = False
    format: Annotated[str, Option("text (path:line:col: CODE message), json, or github annotations.",
                                  choices=FORMATS)] = "text"
    exit_zero: Annotated[bool, Option("Exit 0 even when there are errors.")] = False
    require_model: Annotated[bool, Option(
        "With --deep: fail (exit 2) when no embedding model is available.")] = False
    staged: Annotated[bool, Option(
        "Check what the next commit would hold: the documents and schema staged in git's index, not the files "
        "on disk (what the pre-commit hook runs).")] = False
