"""The thin entry point (docir/cli/thin.py) parses exactly what the typer commands parse, or leaves it to them."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import click
import pytest

from docir.cli import bodies, thin
from docir.cli.main import _command

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
]
# Left to typer: it answers these (help) or refuses them with its own message.
DECLINED = [
    ["get"], ["get", "--help"], ["search"], ["search", "a", "b"], ["search", "x", "--limit", "0"],
    ["search", "x", "--limit", "ten"], ["search", "x", "--limit=3"], ["query", "--limit", "-1"],
    ["query", "stray"], ["lint", "--format", "yaml"], ["get", "x", "--section"], ["get", "x", "--bogus"],
    ["context", "task"], ["update", "adr-0000000000a1"], ["search", "-x"], ["get", "x", "--", "y"],
]
SIGNATURES = {spec.body: inspect.signature(getattr(bodies, spec.body)) for spec in thin.SPECS.values()}


def typer_kwargs(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The keyword arguments the typer command hands to the same body."""
    seen: dict[str, Any] = {}
    spec = thin.SPECS[argv[0]]

    def record(*args: Any, **kwargs: Any) -> int:
        bound = SIGNATURES[spec.body].bind(*args, **kwargs)
        seen.update(bound.arguments)
        return 0

    monkeypatch.setattr(bodies, spec.body, record)
    _command().main(args=argv, prog_name="docir", standalone_mode=False)
    return seen


def normal(kwargs: dict[str, Any], body: str) -> dict[str, Any]:
    """Every parameter with its value, defaults filled in; lists and tuples alike, empty ones as None."""
    full = {name: p.default for name, p in SIGNATURES[body].parameters.items()}
    full.update(kwargs)
    return {k: (list(v) or None) if isinstance(v, (list, tuple)) else v for k, v in full.items()}


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_the_thin_parse_is_the_typer_parse(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = thin.parse(argv)
    assert parsed is not None, argv
    spec, kwargs = parsed
    assert normal(kwargs, spec.body) == normal(typer_kwargs(argv, monkeypatch), spec.body)


@pytest.mark.parametrize("argv", DECLINED, ids=[" ".join(a) for a in DECLINED])
def test_anything_unusual_is_left_to_typer(argv: list[str]) -> None:
    assert thin.parse(argv) is None


def test_a_path_option_naming_a_file_is_left_to_typer(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    assert thin.parse(["get", "x", "--root", str(tmp_path / "f")]) is None
    assert thin.parse(["get", "x", "--root", str(tmp_path)]) is not None


@pytest.mark.parametrize("name", sorted(thin.SPECS))
def test_each_spec_names_exactly_its_commands_options(name: str) -> None:
    """A new option on get, search, query or lint must be added to its spec, or thin would refuse it."""
    group = _command()
    command = group.get_command(click.Context(group), name)
    spec = thin.SPECS[name]
    options = {opt: param for param in command.params if isinstance(param, click.Option)
               for opt in (*param.opts, *param.secondary_opts)}
    assert set(options) - {"--help"} == set(spec.values) | set(spec.lists) | set(spec.flags)
    for opt, param in options.items():
        if opt in spec.flags:
            parameter, value = spec.flags[opt]
            assert param.is_flag and param.name == parameter, opt
            assert value is (opt not in param.secondary_opts), opt  # --fresh sets False
        elif opt in spec.lists:
            assert param.multiple and param.name == spec.lists[opt], opt
        elif opt in spec.values:
            assert not param.multiple and not param.is_flag and param.name == spec.values[opt], opt
    for param in command.params:
        if isinstance(param.type, click.IntRange):
            assert spec.ints[param.name or ""] == (param.type.min, param.type.max)
        if isinstance(param.type, click.Path) and isinstance(param, click.Option):
            assert (param.name in spec.paths) is (not param.type.file_okay), param.name
        if isinstance(param.type, click.Choice):
            assert spec.choices[param.name or ""] == tuple(param.type.choices)
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    assert [a.name for a in arguments] == ([spec.positional] if spec.positional else [])
    for argument in arguments:
        assert (argument.nargs == -1) is spec.many and argument.required is not spec.optional_positional


def test_a_plain_read_runs_without_importing_typer_click_or_a_command_module(sample_store: Path) -> None:
    import os
    import subprocess
    import sys

    probe = ("import sys, runpy; sys.argv = ['docir', 'search', 'sessions', '--root', sys.argv[1]]\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit as exit: code = exit.code\n"
             "print(code, 'typer' in sys.modules, 'click' in sys.modules,\n"
             "      any(m.endswith('_cmd') for m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe, str(sample_store)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "DOCIR_WORKER": "0"})
    assert done.stdout.strip().splitlines()[-1] == "0 False False False", done.stdout[-400:] + done.stderr


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
