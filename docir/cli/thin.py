"""The thin entry point: the everyday reads parsed before typer is imported.

Without a warm worker every command is a whole process, and importing typer and building a
click command costs about as much as the bare interpreter. A git hook (`lint FILE`), a CI job
or an agent's sandbox runs `get`, `search`, `query` and `lint` more than anything else, so
their plain forms are parsed here, from the same option names, and run the same bodies
(bodies.py). Anything else, or anything unusual — `--help`, an unknown option, `--opt=value`,
a number that is not one or out of range, a path option naming a file — is left to the
typer command (None): it answers, or refuses with its own one-line message. A test checks
that each spec here names exactly the options of its typer command, with their kinds
(adr-d5e80517405b).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from docir.requests import LIMIT_MAX

_NONE: Mapping[str, Any] = MappingProxyType({})


class Spec(NamedTuple):
    """One command's options: which parameter each fills, and how (a NamedTuple: cheap to create)."""

    body: str  # the function in docir.cli.bodies
    positional: str | None = None  # the parameter bare words go to
    many: bool = False  # the positional takes several words (at least one)
    optional_positional: bool = False  # ... or none at all (None then)
    values: Mapping[str, str] = _NONE  # --option VALUE
    lists: Mapping[str, str] = _NONE  # --option VALUE, repeatable
    flags: Mapping[str, tuple[str, Any]] = _NONE  # --flag: parameter, value it sets
    ints: Mapping[str, tuple[int, int]] = _NONE  # parameter: its range
    paths: frozenset[str] = frozenset()  # parameters that are folders (a file there is typer's error)
    choices: Mapping[str, tuple[str, ...]] = _NONE  # parameter: allowed values
    # The body walks docs/ before it answers (so a process of its own may begin that walk beside its
    # imports, adr-b4d840c5ec82), or only when this parameter is given (None: always).
    walks_with: str | None = None


_READ = {"--root": "root"}
_JSON = {"--json": ("json_out", True)}
_INACTIVE = {"--include-inactive": ("include_inactive", True), "--include-resolved": ("include_inactive", True)}

SPECS = {
    "get": Spec("get", positional="ids", many=True, values={"--section": "section", **_READ},
                lists={"--store": "store"}, flags=_JSON, paths=frozenset({"root"})),
    "search": Spec("search", positional="text", values={"--limit": "limit", **_READ}, lists={"--store": "store"},
                   flags={**_INACTIVE, **_JSON}, ints={"limit": (1, LIMIT_MAX)}, paths=frozenset({"root"})),
    "query": Spec("query", values={"--owner": "owner", "--related-to": "related_to", "--limit": "limit", **_READ},
                  lists={"--type": "doc_type", "--status": "status", "--tag": "tag", "--store": "store"},
                  flags={"--stale": ("stale", True), "--fresh": ("stale", False), **_INACTIVE, **_JSON},
                  ints={"limit": (1, LIMIT_MAX)}, paths=frozenset({"root"})),
    # A lint of named files walks to learn the rest of the store from the index; a whole-store one
    # reads every file instead.
    "lint": Spec("lint", positional="files", many=True, optional_positional=True,
                 values={"--format": "output", **_READ},
                 flags={"--deep": ("deep", True), "--exit-zero": ("exit_zero", True),
                        "--require-model": ("require_model", True), "--staged": ("staged", True)},
                 paths=frozenset({"root"}), choices={"output": ("text", "json", "github")}, walks_with="files"),
}


def parse(argv: list[str]) -> tuple[Spec, dict[str, Any]] | None:
    """The command's spec and its keyword arguments, or None: the typer command should parse this."""
    if not argv or argv[0] not in SPECS:
        return None
    spec = SPECS[argv[0]]
    words: list[str] = []
    kwargs: dict[str, Any] = {}
    rest = iter(argv[1:])
    for arg in rest:
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
        elif arg in spec.flags:
            name, value = spec.flags[arg]
            kwargs[name] = value
        elif arg in spec.values or arg in spec.lists:
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None  # a missing value: typer's message says which
            if arg in spec.values:
                kwargs[spec.values[arg]] = value
            else:
                kwargs.setdefault(spec.lists[arg], []).append(value)
        else:
            return None  # --help, --opt=value, -x, --: typer's to read
    if spec.positional is None:
        if words:
            return None
    elif spec.many:
        if not words and not spec.optional_positional:
            return None
        kwargs[spec.positional] = words or None
    else:
        if len(words) != 1:
            return None
        kwargs[spec.positional] = words[0]
    return _converted(spec, kwargs)


def _converted(spec: Spec, kwargs: dict[str, Any]) -> tuple[Spec, dict[str, Any]] | None:
    for name, (low, high) in spec.ints.items():
        if name in kwargs:
            text = kwargs[name]
            if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
                return None
            kwargs[name] = int(text)
    for name in spec.paths:
        if name in kwargs:
            values = kwargs[name] if isinstance(kwargs[name], list) else [kwargs[name]]
            if any(Path(v).is_file() for v in values):
                return None
            kwargs[name] = [Path(v) for v in values] if isinstance(kwargs[name], list) else Path(kwargs[name])
    if spec.positional == "files" and kwargs.get("files"):
        kwargs["files"] = [Path(v) for v in kwargs["files"]]
    for name, allowed in spec.choices.items():
        if name in kwargs:
            if kwargs[name] not in allowed:
                return None
            from docir.cli.bodies import Format

            kwargs[name] = Format(kwargs[name])
    return spec, kwargs


def run(argv: list[str], *, own_process: bool = False) -> int | None:
    """Run a plain read here and now; None when the typer command must parse it.

    `own_process`: this process runs this one command, not a thread of the warm worker: the stat walk
    of docs/ the command will need begins now, beside its imports (adr-b4d840c5ec82).
    """
    parsed = parse(argv)
    if parsed is None:
        return None
    spec, kwargs = parsed
    if own_process and (spec.walks_with is None or kwargs.get(spec.walks_with)):
        _prewalk(kwargs)
    from docir.cli import bodies

    body: Callable[..., int] = getattr(bodies, spec.body)
    return body(**kwargs)


def _prewalk(kwargs: dict[str, Any]) -> None:
    """Begin the walk of the store's docs/, and hand the body the store's root as found."""
    from docir.errors import UsageError
    from docir.services.indexing import prewalk
    from docir.store import open_store

    try:
        store = open_store(kwargs.get("root"))
    except UsageError:
        return  # the command says so, in its own words
    kwargs["root"] = store.root  # found once: the body need not look upward for it again
    prewalk.start(store.root, store.docs_dir)
