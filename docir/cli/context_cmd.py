"""docir context ["TASK"] [--sketch "TEXT"] [--terms "WORDS"] [--also "TASK2" ...] [--path PATH ...] [...]"""

from __future__ import annotations

from docir.cli import agent_text, render
from docir.cli.route import Declared
from docir.invocation import Invocation
from docir.services.retrieval import reads
from docir.services.retrieval.results import ContextResult


def show(request: reads.ContextRequest, result: ContextResult, invocation: Invocation) -> int:
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
    task, path = request.task, request.path
    if result.semantic != "on" and task:
        invocation.note(f"semantic ranking is {result.semantic}; results are lexical only")
    elif result.pending:
        invocation.note(f"{result.pending} document(s) are still being embedded in the background; "
                        "they are found lexically until then ('docir embed --flush' waits for them)")
    elif result.sections_pending:
        invocation.note(f"{result.sections_pending} document(s) still wait for their section vectors; "
                        "they are ranked by their document vector until then")
    if (path or request.changed) and not any("matched_glob" in row for row in result.results):
        invocation.note("no document's applies_to matches " + ("these paths" if path else "the changed files"))
    form = invocation.read_form()
    if form == "json":
        from docir.services.retrieval import budget

        result = budget.as_json(result)
    if result.omitted and form != "text":  # the text form's first line says it
        invocation.note(f"{result.omitted} more result(s) left out to stay within --budget {request.budget} tokens; "
                        "raise --budget (0: no budget) to see them")
    if form == "json":
        render.emit_json(result.to_json(), invocation)
    elif form == "text":
        invocation.stdout.write(agent_text.of("context", request, result.to_json()))
    else:
        typed = ", ".join(_as_typed(p, invocation.cwd) for p in path)
        heading = f"context: {task}" if task else f"governing: {typed or 'the changed files'}"
        render.skeleton_table(result.results, heading=heading, invocation=invocation)
    return 0


def _as_typed(path: str, cwd: str) -> str:
    """A --path as the caller wrote it: the request holds it made absolute from the caller's folder."""
    folder = cwd.rstrip("/") + "/"
    return path[len(folder):] if path.startswith(folder) else path


DECLARED = Declared(reads.ContextRequest, serve=reads.context, show=show)
