"""One declaration per command: the fast path's parse and the typer command are both derived from the request.

A command's options are declared once, by its request (docir/request_options.py). The fast path
(docir/cli/route.py) parses its plain forms before typer is imported; the typer command
(docir/cli/typer_command.py) parses the rest. These tests check that both make the same request
of the same words, that the typer command shows exactly the request's options, and that the fast
path leaves anything unusual to typer.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import click
import pytest

from docir.cli import route
from docir.cli.main import _command
from docir.commands import TABLE, Command
from docir.invocation import here
from docir.request_options import Option, fields

ARGVS = [
    ["get", "adr-0000000000a1"],
    ["get", "adr-0000000000a1", "arch-0000000000b1", "--section", "Expiry", "--json"],
    ["get", "--store", "../peer", "adr-0000000000a1", "--store", "../other", "--root", "."],
    ["search", "sessions"],
    ["search", "sessions lost", "--limit", "3", "--include-resolved", "--json"],
    ["search", "--include-inactive", "x", "--store", "p"],
    ["query"],
    ["query", "--type", "decision", "--type", "issue", "--status", "open", "--tag", "a", "--owner", "@x",
     "--related-to", "adr-0000000000a1", "--limit", "7", "--fresh", "--json"],
    ["query", "--stale", "--include-inactive"],
    ["lint"],
    ["lint", "docs/a.md", "docs/b.md", "--format", "json", "--exit-zero"],
    ["lint", "--deep", "--require-model", "--format", "github", "x.md"],
    ["context", "task"],
    ["context", "--path", "src/a.py", "--path", "/abs/b.py", "--changed"],
    ["context", "t", "--sketch", "s", "--terms", "w", "--also", "u", "--also", "v", "--limit", "3", "--explain",
     "--no-expand", "--no-refs", "--budget", "0", "--full-links", "--store", "p", "--json"],
    ["add", "decision", "--title", "T", "--description", "D", "--tags", "a,b", "--related", "supersedes:x",
     "--field", "k=v", "--applies-to", "src/**", "--wait-embeddings", "--status", "open", "--owner", "@o",
     "--path", "p.md", "--body", "text"],
    ["add", "decision", "--title", "T", "--description", "D"],
    ["update", "adr-0000000000a1", "--title", "T", "--tags", "", "--add-related", "a:b", "--remove-related", "c:d",
     "--verified", "2024-01-02", "--append-section", "H", "--body", "b", "--applies-to", "x"],
    ["update", "adr-0000000000a1", "--replace-body", "--body", "b", "--field", "k="],
    ["archive", "adr-0000000000a1"],
]
# Left to typer: it answers these (help) or refuses them with its own message.
DECLINED = [
    ["get"], ["get", "--help"], ["search"], ["search", "a", "b"], ["search", "x", "--limit", "0"],
    ["search", "x", "--limit", "ten"], ["search", "x", "--limit=3"], ["query", "--limit", "-1"],
    ["query", "stray"], ["lint", "--format", "yaml"], ["get", "x", "--section"], ["get", "x", "--bogus"],
    ["search", "-x"], ["get", "x", "--", "y"], ["context", "a", "b"], ["context", "x", "--budget", "-1"],
    ["add", "decision", "--title", "T"], ["update"], ["archive", "a", "b"], ["reindex"], ["worker", "status"],
]


def typer_parse(argv: list[str]) -> Any:
    """What the typer command hands back to main for the same words."""
    return _command().main(args=argv, prog_name="docir", standalone_mode=False, obj=here())


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_the_fast_parse_is_the_typer_parse(argv: list[str]) -> None:
    fast, slow = route.parse(argv, here()), typer_parse(argv)
    assert fast is not None, argv
    assert isinstance(slow, route.Parsed)
    assert fast.declaration is slow.declaration
    assert fast.request == slow.request
    assert (fast.invocation.root, fast.invocation.json) == (slow.invocation.root, slow.invocation.json)


@pytest.mark.parametrize("argv", DECLINED, ids=[" ".join(a) for a in DECLINED])
def test_anything_unusual_is_left_to_typer(argv: list[str]) -> None:
    assert route.parse(argv, here()) is None


def test_a_path_option_naming_a_file_is_left_to_typer(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    assert route.parse(["get", "x", "--root", str(tmp_path / "f")], here()) is None
    assert route.parse(["get", "x", "--root", "f"], here()._replace(cwd=str(tmp_path))) is None  # the caller's folder
    assert route.parse(["get", "x", "--root", str(tmp_path)], here()) is not None


def test_an_option_added_to_a_request_reaches_both_parsers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A field is all a new option takes: its spelling, kind and range come to both parsers from its Option."""
    class Probe(NamedTuple):
        text: Annotated[str, Option("Words.", positional=True)]
        depth: Annotated[int, Option("How deep.", min=1, max=9)] = 3
        kind: Annotated[tuple[str, ...], Option("A kind (repeatable).", flag="--kind")] = ()

    probe = route.Declared(Probe, run=lambda request, call: 0)
    monkeypatch.setitem(route.BY_NAME, "probe", Command("probe", "probe_cmd", declared=True))
    monkeypatch.setattr(route, "declared", lambda name: probe)
    fast = route.parse(["probe", "x", "--depth", "4", "--kind", "a", "--kind", "b"], here())
    assert fast is not None and fast.request == Probe("x", 4, ("a", "b"))
    assert route.parse(["probe", "x", "--depth", "10"], here()) is None  # out of range: click's to refuse

    from docir.cli import typer_command

    command = typer_command.command("probe", probe)
    slow = command.main(args=["x", "--depth", "4", "--kind", "a", "--kind", "b"], standalone_mode=False, obj=here())
    assert slow.request == fast.request
    with pytest.raises(click.BadParameter, match="10 is not in the range 1<=x<=9"):
        command.main(args=["x", "--depth", "10"], standalone_mode=False, obj=here())


@pytest.mark.parametrize("name", sorted(c.name for c in TABLE if c.declared))
def test_every_option_the_typer_command_shows_comes_from_the_request(name: str) -> None:
    """The typer command is derived: each option, its spelling, help, range and choices are the request's."""
    group = _command()
    command = group.get_command(click.Context(group), name)
    declaration = route.declared(name)
    declared = {f.name: f for f in fields(declaration.request)}
    common = {"root": ["--root"], **({"json_out": ["--json"]} if declaration.json else {})}
    shown = [p for p in command.params if p.name != "help"]
    assert [p.name for p in shown] == [*declared, *common]
    for param in shown:
        if param.name in common:
            assert param.opts == common[param.name or ""]
            continue
        f = declared[param.name or ""]
        option = f.option
        assert isinstance(param, click.Argument) is option.positional, param.name
        if isinstance(param, click.Option):
            assert [*param.opts, *param.secondary_opts] == list(route.spellings(f))
            assert param.help == (option.cli_help or option.help)
            assert param.multiple is (route.kind_of(f) == "list")
        if isinstance(param.type, click.IntRange):
            assert (param.type.min, param.type.max) == (option.min, option.max)
        if isinstance(param.type, click.Choice):
            assert tuple(param.type.choices) == option.choices
        if isinstance(param.type, click.Path):
            assert param.type.file_okay is not option.folder
        if option.metavar is not None:
            assert param.metavar == option.metavar


def test_the_declared_commands_are_the_modules_that_declare_one() -> None:
    """A module with DECLARED imports no typer (the fast path loads it); every other command module is typer's."""
    from docir.cli import summaries

    for command in TABLE:
        name, module = command.name, command.module
        source = (summaries.HERE / f"{module}.py").read_text(encoding="utf-8")
        assert ("\nDECLARED = " in source) is command.declared, name
        if command.declared:
            assert "import typer" not in source and "import click" not in source, name
            assert isinstance(importlib.import_module(f"docir.cli.{module}").DECLARED, route.Declared)


def test_a_plain_read_runs_without_importing_typer_click_or_another_command_module(sample_store: Path) -> None:
    import os
    import subprocess
    import sys

    probe = ("import sys, runpy; sys.argv = ['docir', 'search', 'sessions', '--root', sys.argv[1]]\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit as exit: code = exit.code\n"
             "print(code, 'typer' in sys.modules, 'click' in sys.modules,\n"
             "      sorted(m for m in sys.modules if m.endswith('_cmd')))")
    done = subprocess.run([sys.executable, "-c", probe, str(sample_store)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "DOCIR_WORKER": "0"})
    assert done.stdout.strip().splitlines()[-1] == "0 False False ['docir.cli.search_cmd']", \
        done.stdout[-400:] + done.stderr


# What a cold read of an unchanged store must not load: the schema comes from its cache, the stat walk
# reads no file, no worker is asked, and its records are NamedTuples or plain classes, not dataclasses
# (which import inspect) (adr-d5e80517405b). Each one was milliseconds of every call.
NOT_ON_THE_COLD_PATH = ("yaml", "socket", "_hashlib", "dataclasses", "inspect", "docir.services.indexing.convert",
                        "docir.embed.resolve")


@pytest.mark.parametrize("argv", [["get", "adr-0000000000a1", "issue-0000000000c1"], ["search", "sessions"],
                                  ["query", "--type", "decision"]], ids=["get", "search", "query"])
def test_a_cold_read_of_an_unchanged_store_imports_no_yaml_socket_or_parser(sample_store: Path,
                                                                           argv: list[str]) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "DOCIR_WORKER": "0"}
    for setup in (["reindex"], argv):  # the index is built, then the schema's parse is kept
        done = subprocess.run([sys.executable, "-m", "docir", *setup, "--root", str(sample_store)],
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
    probe = (f"import sys, runpy; sys.argv = ['docir', *{argv!r}, '--root', sys.argv[1]]\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit as exit: code = exit.code\n"
             f"print(code, sorted(m for m in {NOT_ON_THE_COLD_PATH!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe, str(sample_store)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stdout[-400:] + done.stderr


def test_a_pre_commit_lint_of_one_file_imports_no_dataclasses(sample_store: Path) -> None:
    """It parses the file (yaml), but its records are NamedTuples or plain classes (adr-d5e80517405b)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "DOCIR_WORKER": "0"}
    one = "docs/issues/login-loop.md"
    assert subprocess.run([sys.executable, "-m", "docir", "reindex", "--root", str(sample_store)],
                          capture_output=True, text=True, timeout=120, env=env).returncode == 0
    probe = (f"import sys, runpy; sys.argv = ['docir', 'lint', {one!r}, '--root', sys.argv[1]]\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit as exit: code = exit.code\n"
             "print(code, sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe, str(sample_store)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=sample_store)
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stdout[-400:] + done.stderr
