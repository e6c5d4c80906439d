"""docir update ID [--title] [--status] [--append-section H --body B] [...]"""

from __future__ import annotations

from docir.cli import render
from docir.cli.route import Declared, table
from docir.invocation import Invocation
from docir.services.writing import writes
from docir.services.writing.store_writes import UpdateResult


def show(request: writes.UpdateRequest, result: UpdateResult, invocation: Invocation) -> int:
    """Change a document in place: only the lines of what changed are rewritten.

    A document it comes to supersede (--add-related supersedes:ID) is marked superseded in the same
    write, unless --keep-status."""
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        what = ", ".join(result["changed"]) or "nothing (already so)"
        invocation.print(f"{result['id']} {result['path']}: {what}")
        render.superseded(result["superseded"], result["id"], invocation)
    return 0


# writes.changes: a usage error before the store is even opened.
DECLARED = Declared(writes.UpdateRequest, serve=writes.update, show=show, check=writes.changes)


def optional_value(argv: list[str]) -> list[str]:
    """Let `update --verified` stand alone (meaning today), which click options cannot express.

    Only `update`'s own --verified flag is touched: not another command's text, not an
    option's value, nothing after `--`. Which options take a value is read from the request.
    """
    if not argv or argv[0] != "update":
        return argv
    known = table(DECLARED)
    alone = {name: item.field.option.alone_means for item in known.fields if item.field is not None
             and item.field.option.alone_means is not None for name in item.spellings}
    takes_value = set(known.values) - set(alone)
    out: list[str] = [argv[0]]
    index = 1
    while index < len(argv):
        arg = argv[index]
        out.append(arg)
        index += 1
        if arg == "--":
            out.extend(argv[index:])
            break
        if arg in takes_value and index < len(argv):
            out.append(argv[index])
            index += 1
        elif arg in alone:
            following = argv[index] if index < len(argv) else None
            if following is None or not following[:1].isdigit():
                out.append(str(alone[arg]))
    return out
