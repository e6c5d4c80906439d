"""What `docir --help` says of each command, read from the command module's source, never imported.

The help of a command is its function's docstring (or, for a group, its Typer's `help=`): that is
its one home. Importing eighteen command modules to list them would cost `--help` most of what the
lazy group saves (docir/cli/app.py), so the text is taken from the source with `ast` instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent


def summary(module: str) -> str:
    """The help text of the command in docir/cli/<module>.py, cleaned as inspect.getdoc cleans it."""
    tree = ast.parse((HERE / f"{module}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "command":
            return ast.get_docstring(node) or ""
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "app" for t in node.targets):
            call = node.value
            if isinstance(call, ast.Call):
                for keyword in call.keywords:
                    if keyword.arg == "help" and isinstance(keyword.value, ast.Constant):
                        return str(keyword.value.value)
    return ""
