"""docir context ["TASK"] [--sketch "TEXT"] [--terms "WORDS"] [--also "TASK2" ...] [--path PATH ...] [...]"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from docir.cli import render
from docir.cli.options import IncludeInactiveOption, JsonOption, RootOption, StoreOption
from docir.requests import help_of, info
from docir.services.indexing import session
from docir.services.retrieval import commands
from docir.services.retrieval.budget import DEFAULT_BUDGET
from docir.services.retrieval.commands import ContextRequest as R

_LIMIT = info(R, "limit")
_BUDGET = info(R, "budget")
# The request's paths are relative to the repository root (an MCP client has no current folder); typed here,
# a path is relative to the current folder, like git's.
_PATH = ("A file you will change (repeatable): documents whose applies_to globs match it come first. "
         "Without a TASK, lists what governs these files.")


def command(
    task: Annotated[str, typer.Argument(help=help_of(R, "task"), show_default=False)] = "",
    sketch: Annotated[str, typer.Option("--sketch", metavar="TEXT", help=help_of(R, "sketch"),
                                        show_default=False)] = "",
    terms: Annotated[str, typer.Option("--terms", metavar="WORDS", help=help_of(R, "terms"),
                                       show_default=False)] = "",
    also: Annotated[Optional[list[str]], typer.Option("--also", help=help_of(R, "also"), show_default=False)] = None,
    limit: Annotated[int, typer.Option("--limit", min=_LIMIT.min, max=_LIMIT.max, help=_LIMIT.help)] = 8,
    explain: Annotated[bool, typer.Option("--explain", help=help_of(R, "explain"))] = False,
    no_expand: Annotated[bool, typer.Option("--no-expand", help="Do not add documents linked to the results.")] = False,
    no_refs: Annotated[bool, typer.Option("--no-refs", help="Leave reference corpora out.")] = False,
    include_inactive: IncludeInactiveOption = False,
    store: StoreOption = None,
    budget: Annotated[int, typer.Option("--budget", metavar="TOKENS", min=_BUDGET.min, max=_BUDGET.max,
                                        help=_BUDGET.help)] = DEFAULT_BUDGET,
    full_links: Annotated[bool, typer.Option("--full-links", help=help_of(R, "full_links"))] = False,
    path: Annotated[Optional[list[str]], typer.Option("--path", metavar="PATH", show_default=False, help=_PATH)] = None,
    changed: Annotated[bool, typer.Option("--changed", help=help_of(R, "changed"))] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """The few documents that matter for a task: hybrid ranking plus linked documents. Skeletons only.

    Describe the answer with --sketch when you can: one or two sentences, as the answering
    document's summary would read, in the words it would use (no question words). It finds what
    a task's wording misses; skip it when you cannot guess what the answer says, as a sketch
    that disagrees with the task is given little weight. Exact identifiers go in --terms.

    Pass the files you will change (--path, or --changed): the documents that govern them come first.
    Then fetch the bodies you need in one call: docir get ID1 ID2 ...

    Example: docir context "retry failed webhook deliveries" --sketch "Failed deliveries are retried
    with exponential backoff and a dead-letter queue after the last attempt." --path src/hooks.py
    """
    request = R(task=task, sketch=sketch, terms=terms, also=tuple(also or ()), limit=limit, explain=explain,
                expand=not no_expand, refs=not no_refs, include_inactive=include_inactive,
                store=tuple(str(s) for s in store or ()), budget=budget, full_links=full_links, changed=changed,
                path=tuple(str(Path(p).absolute()) for p in path or ()))
    result = session.run(root, lambda s: commands.context(s, request, render.warn), warn=render.warn)
    if result.semantic != "on" and task:
        render.note(f"semantic ranking is {result.semantic}; results are lexical only")
    elif result.pending:
        render.note(f"{result.pending} document(s) are still being embedded in the background; "
                    "they are found lexically until then ('docir embed --flush' waits for them)")
    elif result.sections_pending:
        render.note(f"{result.sections_pending} document(s) still wait for their section vectors; "
                    "they are ranked by their document vector until then")
    if (path or changed) and not any("matched_glob" in row for row in result.results):
        render.note("no document's applies_to matches " + ("these paths" if path else "the changed files"))
    if result.omitted:
        render.note(f"{result.omitted} more result(s) left out to stay within --budget {budget} tokens; "
                    "raise --budget (0: no budget) to see them")
    if render.wants_json(json_out):
        render.emit_json(result.to_json())
    else:
        heading = f"context: {task}" if task else f"governing: {', '.join(path or ()) or 'the changed files'}"
        render.skeleton_table(result.results, heading=heading)
    return 0
