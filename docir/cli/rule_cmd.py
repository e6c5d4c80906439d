"""docir rule CODE"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.edge import invocation_of
from docir.cli.options import JsonOption
from docir.errors import UsageError
from docir.services.lint.rules import RULES, find_rule


def command(
    ctx: typer.Context,
    name: Annotated[
        Optional[str],
        typer.Argument(metavar="[CODE]", help="A rule code (DOC014) or alias (stale). Without one, list all rules.",
                       show_default=False),
    ] = None,
    json_out: JsonOption = False,
) -> int:
    """Explain a lint rule: what it checks, why, and how to fix a finding."""
    invocation = invocation_of(ctx, json=json_out)
    rules = list(RULES.values()) if name is None else [find_rule(name)]
    if rules == [None]:
        raise UsageError(f"no rule '{name}'; list them with 'docir rule'")
    found = [r for r in rules if r is not None]
    if invocation.wants_json():
        render.emit_json([{"code": r.code, "alias": r.name, "severity": r.severity, "summary": r.summary,
                           "explanation": r.explanation, "bad": r.bad, "good": r.good} for r in found], invocation)
    elif name is None:
        for rule in found:
            invocation.print(f"{rule.code}  {rule.name:<22} {rule.severity:<8} {rule.summary}")
    else:
        rule = found[0]
        invocation.print(f"{rule.code} ({rule.name}), {rule.severity} by default\n\n{rule.summary}\n\n"
                         f"{rule.explanation}\n\n"
                         f"Reported:\n{_indented(rule.bad)}\n\nFixed:\n{_indented(rule.good)}")
    return 0


def _indented(example: str) -> str:
    return "\n".join("    " + line for line in example.split("\n"))
