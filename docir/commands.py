"""Every command docir has, once: its module, and what the router, the warm client and the MCP server
know of it.

The router (cli/route.py) and the lazy typer group (cli/app.py) take the modules, the order of
`docir --help` and which commands are declared by a request; the warm client (worker/client.py) takes
the commands it runs in its own process; the MCP server (cli/mcp_cmd.py) takes its tools and their
text. One row per command, so a new command is one row here and its module (adr-55e5e6673c40).

Plain classes and tuples: the warm client imports this on every call, and importing typing would
cost it a sixth of the interpreter's own start (worker/client.py).
"""


class Command:
    """One command. `here`: the warm client runs it in its own process, never the worker's (it manages
    the worker, makes the store, owns stdin and stdout for a session, or needs the caller's credentials).
    `walks`: a process of its own begins its walk of docs/ beside its imports, always ("") or when this
    field is given (adr-b4d840c5ec82). `reads`: a read an agent gets in compact text (adr-aa663d326ae5) and
    that may fan out to peer stores. `tool`: offered over MCP with this text; `writes`: that tool writes."""

    __slots__ = ("name", "module", "declared", "here", "walks", "reads", "tool", "writes")

    def __init__(self, name: str, module: str, *, declared: bool = False, here: bool = False,
                 walks: str | None = None, reads: bool = False, tool: str | None = None,
                 writes: bool = False) -> None:
        self.name = name
        self.module = module  # under docir.cli: a DECLARED, a typer `command`, or a group's `app`
        self.declared = declared  # by a request: its module imports no typer, so the fast path may load it
        self.here = here
        self.walks = walks
        self.reads = reads
        self.tool = tool
        self.writes = writes


# In the order `docir --help` lists them.
TABLE = (
    Command("init", "init_cmd", here=True),
    Command("add", "add_cmd", declared=True, writes=True, tool="Create a document; returns its id."),
    Command("update", "update_cmd", declared=True, writes=True, tool="Change a document in place."),
    Command("archive", "archive_cmd", declared=True, writes=True,
            tool="Move a document out of search into docs/archive/; `get` still finds it."),
    Command("get", "get_cmd", declared=True, walks="", reads=True,
            tool="Documents by id, many per call."),
    Command("query", "query_cmd", declared=True, walks="", reads=True,
            tool="Documents by filters, a line each; no filter: all of them."),
    Command("search", "search_cmd", declared=True, walks="", reads=True,
            tool="Full-text search (bm25). Prefer `context` for a task."),
    Command("context", "context_cmd", declared=True, reads=True,
            tool="The documents that matter for a task, ranked, with their links."),
    Command("reindex", "reindex_cmd"),
    Command("embed", "embed_cmd"),
    Command("lint", "lint_cmd", declared=True, walks="files"),
    Command("rule", "rule_cmd"),
    Command("mcp", "mcp_cmd", here=True),
    Command("agents", "agents_cmd"),
    Command("adopt", "adopt_cmd"),
    Command("worker", "worker_cmd", here=True),
    Command("hooks", "hooks_cmd"),
    Command("ref", "ref_cmd"),
    Command("publish", "publish_cmd", here=True),
)
BY_NAME = {command.name: command for command in TABLE}


def output_forms() -> str:
    """What every command prints off a terminal and on one, in the words `docir --help` and the reference
    page both use: one sentence, made from the table, so neither can drift from what the code does."""
    reads = ", ".join(command.name for command in TABLE if command.reads)
    return (f"On a terminal output is a table. Piped, the reads ({reads}) print compact text for an agent "
            "and the other commands JSON; `--json` gives a read's JSON; lint takes `--format`.")

