"""`docir --help` kept as click printed it (cli/help_cache.py): the same text, without typer or click."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = ("import sys, runpy; sys.argv = ['docir', *sys.argv[1:]]\n"
         "try: runpy.run_module('docir', run_name='__main__')\n"
         "except SystemExit as exit: code = exit.code\n"
         "print('\\n--', code, sorted({m.split('.')[0] for m in sys.modules} & {'click', 'typer'}))")


def _help(*args: str, columns: str) -> tuple[str, str]:
    """What the command printed, and the last line: its exit code and which of click and typer it imported."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": columns})
    text, _, tail = done.stdout.rpartition("\n--")
    return text, tail.strip()


def _clicks_own(columns: str) -> str:
    """The help as click prints it for `--help`, through the whole app: the text to match."""
    probe = ("import sys; from docir.cli.main import _command\n"
             "try: _command().main(args=['--help'], prog_name='docir', standalone_mode=False)\n"
             "except SystemExit: pass")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": columns})
    return done.stdout


@pytest.mark.parametrize("columns", ["80", "60"])
def test_help_is_kept_per_width_and_then_printed_without_typer_or_click(columns: str) -> None:
    expected = _clicks_own(columns)
    assert "Commands:" in expected
    first, how = _help("--help", columns=columns)
    assert first == expected and how == "0 ['click', 'typer']"
    again, how = _help("--help", columns=columns)
    assert again == expected and how == "0 []"
    bare, how = _help(columns=columns)  # `docir` alone prints the same help
    assert bare == expected and how == "0 []"


def test_a_kept_help_from_other_code_is_not_used_and_is_replaced() -> None:
    expected = _clicks_own("72")
    _help("--help", columns="72")
    (kept,) = (Path(os.environ["XDG_CACHE_HOME"]) / "docir" / "help").glob("width-*.txt")  # click's 70 of 72
    kept.write_text('["0.0.0", []]\nstale help\n', encoding="utf-8")
    text, how = _help("--help", columns="72")
    assert text == expected and how == "0 ['click', 'typer']"
    assert kept.read_text(encoding="utf-8").endswith(expected)


def test_without_a_writable_cache_help_is_rendered_every_time() -> None:
    cache = Path(os.environ["XDG_CACHE_HOME"])
    cache.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(cache / "docir", ignore_errors=True)  # the test session's shared models link, not followed
    (cache / "docir").write_text("a file where the folder would be\n", encoding="utf-8")
    expected = _clicks_own("80")
    for _ in range(2):
        text, how = _help("--help", columns="80")
        assert text == expected and how == "0 ['click', 'typer']"
