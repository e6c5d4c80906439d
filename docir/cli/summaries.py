"""What `docir --help` says of each command, read from the command module's source, never imported.

The help of a command is its function's docstring (`show` or `run` of a declared command, else `command`;
for a group, its Typer's `help=`): that is its one home. Importing eighteen command modules to
list them would cost `--help` most of what the lazy group saves (docir/cli/app.py), so the text
is taken from the source with `ast` instead.
Only what holds it is parsed, a command's signature and docstring or `app`'s statement: parsing
all the command modules whole cost a cold `--help` a share it would notice (adr-d5e80517405b).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Where the help text is defined, and where the next top-level statement starts (a `)` closing a
# signature at column 0 is not one).
_DEFINED = re.compile(r"^(?:def (?:command|show|run)\(|app = )", re.MULTILINE)
_NEXT_STATEMENT = re.compile(r"^[A-Za-z_@]", re.MULTILINE)


def summary(module: str) -> str:
    """The help text of the command in docir/cli/<module>.py, cleaned as inspect.getdoc cleans it."""
    source = (HERE / f"{module}.py").read_text(encoding="utf-8")
    for part in _parts(source):
        # A part that does not parse, or holds no help, proves nothing: the next, larger one is read,
        # and last the whole module, so the answer is always the one the whole module gives.
        try:
            found = _help(ast.parse(part))
        except SyntaxError:
            continue
        if found is not None:
            return found
    return _help(ast.parse(source)) or ""


def _parts(source: str) -> list[str]:
    """The smallest sources that may hold the help: `def command(...):` up to the end of its docstring
    (a function with only its docstring parses), then the whole top-level statement."""
    start = _DEFINED.search(source)
    if start is None:
        return []
    end = _NEXT_STATEMENT.search(source, start.end())
    statement = source[start.start() : end.start() if end else len(source)]
    opening = statement.find('"""')
    closing = statement.find('"""', opening + 3) if opening >= 0 else -1
    return [statement[: closing + 3], statement] if closing >= 0 else [statement]


def _help(tree: ast.Module) -> str | None:
    """The first command function's docstring or `app`'s help=, in source order; None when neither is there."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in ("command", "show", "run"):
            return ast.get_docstring(node) or ""
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "app" for t in node.targets):
            invocation = node.value
            if isinstance(invocation, ast.Call):
                for keyword in invocation.keywords:
                    if keyword.arg == "help" and isinstance(keyword.value, ast.Constant):
                        return str(keyword.value.value)
    return None
