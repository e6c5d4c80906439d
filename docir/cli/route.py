"""From argv to a command's function: one route, whoever parses the words and wherever it runs.

A command with a request (docir/request_options.py) is declared once, by that request: its module under
docir/cli/ holds a `DECLARED` that names the request and the one function that runs it. Its
plain forms are parsed here, from the request's fields, before typer is imported: without a warm
worker every command is a whole process, and importing typer and building a click command cost
about as much as the bare interpreter (adr-d5e80517405b). Anything unusual — `--help`, an unknown
option, `--opt=value`, a number that is not one or out of range, a path option naming a file — is
left to the typer command derived from the same request (typer_command.py): it answers, or refuses
with its own one-line message. Both parsers make the request with `request_of` and hand it back
to cli/main.py, which runs it, in this process or in the warm worker alike (adr-55e5e6673c40).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from docir.commands import BY_NAME
from docir.invocation import Invocation
from docir.request_options import REQUIRED, RequestField, fields
from docir.words import root_word

ROOT_HELP = "The store's root folder. Default: found upward from the current folder, like git."
JSON_HELP = "Print JSON. This is the default when stdout is not a terminal."
# The reads answer an agent in compact text off a terminal; JSON is asked for (adr-aa663d326ae5).
READ_JSON_HELP = "Print the complete JSON, for programs (off a terminal the default is compact text)."



class Declared(NamedTuple):
    """A command declared by its request (a NamedTuple: a cold command builds one).

    Either `serve` and `show`: main opens a session of the store at --root, `serve` (the service
    function, what the MCP tool runs too) does the work in it, and `show(request, result, invocation)`
    prints the result. Or `run(request, invocation)`, for a command not served in one session (lint: one
    store, or every store a commit touches), which does the whole command. The docstring of
    `show` or `run` is the command's help. Each returns the exit code.
    """

    request: type[Any]
    serve: Callable[..., Any] | None = None
    show: Callable[..., int] | None = None
    run: Callable[..., int] | None = None
    json: bool = True  # it takes --json
    check: Callable[[Any], Any] | None = None  # usage errors found before the store is opened

    @property
    def helped(self) -> Callable[..., int]:
        """The function whose docstring is the command's help."""
        found = self.run or self.show
        if found is None:
            raise TypeError(f"{self.request.__name__}: a declared command shows what it serves, or runs")
        return found


class Field(NamedTuple):
    """A request field as the terminal sees it, read from its Option once per process."""

    name: str
    kind: str  # "flag", "int", "value", "list" (repeatable value), "word" or "words" (positional)
    default: Any
    spellings: tuple[str, ...]  # for a flag: each spelling; else the option's name(s)
    sets: tuple[Any, ...]  # for a flag: the value each spelling sets
    field: RequestField | None  # None for --root and --json


_ROOT = Field("root", "value", None, ("--root",), (), None)
_JSON = Field("json_out", "flag", False, ("--json",), (True,), None)


class Table(NamedTuple):
    flags: Mapping[str, tuple[str, Any]]  # --flag -> (field, the value it sets)
    values: Mapping[str, Field]  # --option VALUE, once or repeated
    positional: Field | None
    fields: tuple[Field, ...]


_TABLES: dict[type[Any], Table] = {}


def declared(name: str) -> Declared:
    return importlib.import_module(f"docir.cli.{BY_NAME[name].module}").DECLARED  # type: ignore[no-any-return]


def spellings(f: RequestField) -> tuple[str, ...]:
    flag = f.option.flag or "--" + f.name.replace("_", "-")
    return (*flag.split("/"), *f.option.aliases)


def kind_of(f: RequestField) -> str:
    hint, option = f.hint, f.option
    args = getattr(hint, "__args__", ())
    if hint is bool or (bool in args and type(None) in args):
        return "flag"
    repeated = getattr(hint, "__origin__", None) is tuple or any(getattr(a, "__origin__", None) is tuple for a in args)
    if option.positional:
        return "words" if repeated else "word"
    if hint is int:
        return "int"
    return "list" if repeated and option.typed != "commas" else "value"


def table(declaration: Declared) -> Table:
    """The terminal's view of a request's fields, built once per class and process."""
    request = declaration.request
    known = _TABLES.get(request)
    if known is not None:
        return known
    flags: dict[str, tuple[str, Any]] = {}
    values: dict[str, Field] = {}
    positional = None
    found = []
    for f in fields(request):
        kind, names = kind_of(f), spellings(f)
        if kind == "flag":
            # "--a/--b" sets True then False; "--no-x" (its default True) sets False.
            sets = (True, False) if len(names) > 1 and f.option.flag and "/" in f.option.flag else \
                tuple(not names[0].startswith("--no-") for _ in names)
            item = Field(f.name, kind, f.default, names, sets, f)
            flags.update((n, (f.name, v)) for n, v in zip(names, sets, strict=True))
        else:
            item = Field(f.name, kind, f.default, names, (), f)
            if kind in ("word", "words"):
                positional = item
            else:
                values.update((n, item) for n in names)
        found.append(item)
    values["--root"] = _ROOT
    found.append(_ROOT)
    if declaration.json:
        flags["--json"] = ("json_out", True)
        found.append(_JSON)
    made = _TABLES[request] = Table(flags, values, positional, tuple(found))
    return made


class Parsed(NamedTuple):
    """A declared command's request, as either parser made it, and the call it runs for."""

    declaration: Declared
    request: Any
    invocation: Invocation


def parse(argv: list[str], invocation: Invocation) -> Parsed | None:
    """The request of a declared command's plain form, or None: the typer command should parse this."""
    command = BY_NAME.get(argv[0]) if argv else None
    if command is None or not command.declared:
        return None
    # A walk of docs/ that is always needed begins before the command's module (and the services it
    # imports) is even loaded, at the --root its words name (adr-b4d840c5ec82).
    walks = command.walks
    named = root_word(argv)
    walked = (_prewalk(invocation, None if named is None else Path(named))
              if invocation.own_process and walks == "" else None)
    declaration = declared(argv[0])
    known = table(declaration)
    words: list[str] = []
    given: dict[str, Any] = {}
    at = 1
    while at < len(argv):
        arg = argv[at]
        at += 1
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
        elif arg in known.flags:
            name, value = known.flags[arg]
            given[name] = value
        elif arg in known.values:
            item = known.values[arg]
            value = argv[at] if at < len(argv) else None
            alone = _alone_means(item)
            if alone is not None and not _a_value_of(item, value):
                value = alone
            elif value is None or value.startswith("-"):
                return None  # a missing value: typer's message says which
            else:
                at += 1
            if item.kind == "list":
                given.setdefault(item.name, []).append(value)
            else:
                given[item.name] = value
        else:
            return None  # --help, --opt=value, -x, --: typer's to read
    if not _positional(known.positional, words, given):
        return None
    if any(item.default is REQUIRED and item.name not in given for item in known.fields):
        return None  # a required option left out: typer's message says which
    if not _checked(known, given, invocation):
        return None
    invocation = invocation._replace(root=Path(given["root"]) if "root" in given else None,
                                     json=given.get("json_out", False))
    if invocation.own_process and walks and given.get(walks):
        # A lint of named files forks once the index's modules are loaded, which it imports anyway: a child
        # forked before them imports them again, on the same two cores (benchmarks/speed_against_revision.py:
        # lint-one 13% slower that way, 9% faster without a walk at all).
        from docir.services.indexing import session  # noqa: F401

        walked = _prewalk(invocation, invocation.root)
    if walked is not None:
        invocation = invocation._replace(root=walked)  # found once: the command need not look upward for it again
    return Parsed(declaration, request_of(declaration, given, invocation), invocation)


def _alone_means(item: Field) -> str | None:
    """What an option given without its value means (`update --verified`: today), or None: it needs one."""
    return item.field.option.alone_means if item.field is not None else None


def _a_value_of(item: Field, word: str | None) -> bool:
    """Whether the word after an option that may stand alone is its value: a date's begins with a digit."""
    return word is not None and word[:1].isdigit()


def typer_words(argv: list[str]) -> list[str]:
    """The words for typer, whose options cannot stand alone: each declared option given without its value
    (`update --verified`) followed by what it then means. Not an option's value, nothing after `--`."""
    command = BY_NAME.get(argv[0]) if argv else None
    if command is None or not command.declared:
        return argv
    known = table(declared(argv[0]))
    if not any(_alone_means(item) is not None for item in known.values.values()):
        return argv
    out: list[str] = [argv[0]]
    at = 1
    while at < len(argv):
        arg = argv[at]
        out.append(arg)
        at += 1
        if arg == "--":
            out.extend(argv[at:])
            break
        item = known.values.get(arg)
        if item is None:
            continue
        alone = _alone_means(item)
        following = argv[at] if at < len(argv) else None
        if alone is not None and not _a_value_of(item, following):
            out.append(alone)
        elif following is not None:
            out.append(following)
            at += 1
    return out


def _positional(item: Field | None, words: list[str], given: dict[str, Any]) -> bool:
    if item is None:
        return not words
    required = item.default is REQUIRED
    if item.kind == "words":
        if not words and required:
            return False
    elif len(words) > 1 or (required and not words):
        return False
    if words:
        given[item.name] = words if item.kind == "words" else words[0]
    return True


def _checked(known: Table, given: dict[str, Any], invocation: Invocation) -> bool:
    """The values click would refuse, left to it for its message: numbers, choices, files for folders."""
    for item in known.fields:
        if item.name not in given:
            continue
        value = given[item.name]
        option = item.field.option if item.field is not None else None
        if item.kind == "int":
            low, high = option.min, option.max  # type: ignore[union-attr]
            if not (value.isascii() and value.isdigit()) or not (low is None or low <= int(value)) or \
                    not (high is None or int(value) <= high):
                return False
            given[item.name] = int(value)
        elif option is not None and option.choices and value not in option.choices:
            return False
        elif (item is _ROOT or (option is not None and option.folder)) and \
                any(invocation.path(v).is_file() for v in (value if isinstance(value, list) else [value])):
            return False
    return True


def request_of(declaration: Declared, given: Mapping[str, Any], invocation: Invocation) -> Any:
    """The request of the words given (by either parser), each field as its Option says the terminal gives it."""
    kwargs: dict[str, Any] = {}
    for f in fields(declaration.request):
        if f.name not in given:
            continue
        value, typed = given[f.name], f.option.typed
        if isinstance(value, (list, tuple)):
            if f.option.folder or typed == "relative":
                value = tuple(str(Path(v)) for v in value)
            elif typed == "absolute":
                value = tuple(str(invocation.path(v)) for v in value)
            elif typed == "place":
                from docir.org.address import meant_as_url

                value = tuple(str(v) if meant_as_url(str(v)) else str(invocation.path(v)) for v in value)
            else:
                value = tuple(str(v) for v in value)
        elif typed == "commas":
            value = tuple(value.split(","))
        elif typed == "body":
            from docir.cli.body_input import read_body

            value = read_body(value, invocation)
        kwargs[f.name] = value
    return declaration.request(**kwargs)


def _prewalk(invocation: Invocation, root: Path | None) -> Path | None:
    """Begin the walk of the store's docs/; the store's root as found, or None when there is none."""
    from docir.errors import UsageError
    from docir.services.indexing import prewalk
    from docir.store import open_store

    try:
        store = open_store(root, cwd=invocation.cwd)
    except UsageError:
        return None  # the command says so, in its own words
    prewalk.start(store.root, store.docs_dir)
    return store.root
