"""The CLI as a whole: every command teaches with --help, and the README stays true."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
import typer.main

from docir.cli.app import build_app
from docir.invocation import here
from tests.conftest import REPO


def subcommands(command: click.Command) -> list[tuple[str, click.Command]]:
    """A group's commands as click resolves them: docir's top group builds each on demand."""
    if not isinstance(command, click.Group):
        return []
    ctx = click.Context(command)
    found = [(name, command.get_command(ctx, name)) for name in command.list_commands(ctx)]
    return [(name, sub) for name, sub in found if sub is not None]


def all_commands() -> list[list[str]]:
    root = typer.main.get_command(build_app())
    found: list[list[str]] = []

    def walk(command: click.Command, path: list[str]) -> None:
        for name, sub in subcommands(command):
            if getattr(sub, "hidden", False):
                continue
            found.append([*path, name])
            walk(sub, [*path, name])

    walk(root, [])
    return found


COMMANDS = all_commands()


def test_the_command_set() -> None:
    names = {" ".join(c) for c in COMMANDS}
    assert {"init", "add", "update", "archive", "get", "query", "search", "context", "reindex", "embed", "lint",
            "rule", "worker start", "worker stop", "worker status", "hooks install", "hooks uninstall"} <= names


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_every_command_has_help(cli, command: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = cli(*command, "--help")
    assert result.code == 0, result.err
    assert "Usage:" in result.out
    body = result.out.split("Usage:", 1)[1]
    assert len(body.strip().splitlines()) >= 3  # a description and options, not just a usage line


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second() -> None:
    readme = (REPO / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block is not None and readme.index("```bash") < readme.index("## ")
    first, second = block.group(1).strip().splitlines()
    assert "docir context" in first
    ci = (REPO / ".ci" / "run").read_text()
    for part in second.split(" && "):
        words = [w for w in part.split() if w != "--quiet"]
        assert any([w for w in line.split() if w != "--quiet"] == words for line in ci.splitlines()), part


def test_update_knows_which_of_its_options_take_a_value_from_its_request() -> None:
    """`update --verified` may stand alone; the pre-parse must skip every value, and click agrees which."""
    from docir.cli import route, update_cmd

    group = typer.main.get_command(build_app())
    click_command = group.get_command(click.Context(group), "update")  # type: ignore[attr-defined]
    takes_value = {name for param in click_command.params if not getattr(param, "is_flag", False)
                   and param.param_type_name == "option" for name in param.opts if name.startswith("--")}
    assert set(route.table(update_cmd.DECLARED).values) == takes_value
    assert route.typer_words(["update", "adr-000000000001", "--title", "--verified"]) == [
        "update", "adr-000000000001", "--title", "--verified"]
    assert route.typer_words(["update", "adr-000000000001", "--verified", "--owner", "x"]) == [
        "update", "adr-000000000001", "--verified", "today", "--owner", "x"]
    assert route.typer_words(["update", "adr-000000000001", "--verified", "2026-01-02", "--", "--verified"]) == [
        "update", "adr-000000000001", "--verified", "2026-01-02", "--", "--verified"]
    # The route's own parse reads the same words the same way, without typer.
    for words, verified, owner in ((["--verified", "--owner", "x"], "today", "x"),
                                   (["--owner", "x", "--verified"], "today", "x"),
                                   (["--verified", "2026-01-02"], "2026-01-02", None)):
        parsed = route.parse(["update", "adr-000000000001", *words], here())
        assert parsed is not None, words
        assert (parsed.request.verified, parsed.request.owner) == (verified, owner), words


def test_the_root_a_command_line_names_is_read_one_way() -> None:
    """The warm client and the route read --root before any parser, in both of its spellings."""
    from docir.words import root_word

    assert root_word(["context", "x", "--root", "a/b"]) == "a/b"
    assert root_word(["context", "x", "--root=a/b", "--root", "c"]) == "a/b"
    assert root_word(["context", "--", "--root", "a/b"]) is None
    assert root_word(["context", "x", "--root"]) is None


def test_help_lists_every_command_as_click_would_without_importing_them() -> None:
    """`docir --help` reads the summaries from source (cli/summaries.py): they must be the commands' own."""
    import subprocess
    import sys

    root = typer.main.get_command(build_app())
    ctx = click.Context(root, info_name="docir")
    listed = root.get_help(ctx).split("Commands:", 1)[1]
    limit = ctx.make_formatter().width - 6 - max(len(name) for name, _ in subcommands(root))
    for name, sub in subcommands(root):
        assert f"  {name}" in listed and sub.get_short_help_str(limit) in listed, name
    probe = ("import sys, runpy; sys.argv = ['docir', '--help']\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('docir.cli.') and m.endswith('_cmd')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "DOCIR_WORKER": "0"})
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout[-500:] + done.stderr


def test_a_command_imports_its_own_module_and_no_other_command_module(sample_store: Path) -> None:
    """The cold path through typer (here `--section=X`, a form cli/route.py leaves to it): `get` pays for
    get_cmd, not for update_cmd's or mcp_cmd's imports, nor for numpy or rich."""
    import os
    import subprocess
    import sys

    argv = ["docir", "get", "adr-0000000000a1", "--section=Expiry", "--root", str(sample_store)]
    probe = (f"import sys, runpy; sys.argv = {argv!r}\n"
             "try: runpy.run_module('docir', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "print(sorted(m for m in sys.modules if m.endswith('_cmd')),\n"
             "      sorted(m for m in ('numpy', 'rich') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "DOCIR_WORKER": "0"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['docir.cli.get_cmd'] []", done.stdout[-500:] + done.stderr


def _is_json(text: str) -> bool:
    import json

    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_what_help_and_the_reference_say_is_printed_off_a_terminal_is_what_each_command_prints(
        cli, store: Path) -> None:  # type: ignore[no-untyped-def]
    from docir.commands import TABLE, output_forms

    sentence = output_forms()
    top = cli("--help")
    assert " ".join(sentence.split()) in " ".join(top.out.split())
    assert sentence in (REPO / "docs/reference/commands.markdown").read_text(encoding="utf-8")
    added = cli("add", "decision", "--title", "Keep the cache warm",
                "--description", "The cache stays warm between runs.",
                "--owner", "@team", "--body", "## Context\n\nCold starts cost.\n\n## Decision\n\nKeep it warm.\n",
                "--root", str(store))
    assert added.code == 0 and _is_json(added.out), added.err  # a write: JSON off a terminal
    doc_id = __import__("json").loads(added.out)["id"]
    reads = {"get": [doc_id], "query": [], "search": ["cache"], "context": ["keep the cache warm"]}
    assert set(reads) == {command.name for command in TABLE if command.reads}  # the sentence names these
    for name, args in reads.items():
        piped = cli(name, *args, "--root", str(store))
        assert piped.code == 0 and piped.out.strip() and not _is_json(piped.out), (name, piped.out)
        asked = cli(name, *args, "--root", str(store), "--json")
        assert asked.code == 0 and _is_json(asked.out), (name, asked.out)
    for others in (["reindex"], ["rule", "DOC001"], ["update", doc_id, "--tags", "cache"]):
        out = cli(*others, "--root", str(store)) if others[0] != "rule" else cli(*others)
        assert out.code == 0 and _is_json(out.out), (others, out.out, out.err)


def test_the_reference_prints_a_default_as_the_user_types_it() -> None:
    page = (REPO / "docs/reference/commands.markdown").read_text(encoding="utf-8")
    assert "| `--format` | `text` \\| `json` \\| `github` | `text` |" in page
    assert not re.search(r"`[A-Z]\w+\.\w+`", page)  # no enum member such as `Format.text`
