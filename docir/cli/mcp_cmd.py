"""docir mcp: the same reads and writes, as tools for agents that speak the Model Context Protocol.

Each tool is generated from the request its CLI command builds (docir/requests.py):
the input schema is the request's fields with their help and ranges, the call runs
the very service function the command runs, and the reply is the command's JSON.
The model loads once in the background and stays loaded.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import threading
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

from docir.cli.options import RootOption
from docir.errors import UsageError
from docir.requests import info
from docir.services.indexing import session
from docir.services.retrieval import commands as reads
from docir.services.writing import commands as writes
from docir.store import open_store

INSTRUCTIONS = """docir holds this repository's design knowledge: decisions, architecture notes, issues, guides.
Before you change code, call `context` with your task in plain words and, in `path`, the files
you will touch (relative to the repository root): documents whose applies_to globs cover them
come first. It returns skeletons (title, description, status, links, and which section matched),
never bodies. Judge relevance from the descriptions, then fetch the few bodies you need in ONE
`get` call with all their ids (or one `section` of one). Record new decisions with `add` (with
`applies_to` globs of the files they govern); keep documents true with `update`."""


@dataclass(frozen=True)
class Tool:
    name: str
    request: type[Any]
    run: Callable[[session.Session, Any, Callable[[str], None]], Any]
    read_only: bool
    description: str


TOOLS = (
    Tool("context", reads.ContextRequest, reads.context, True,
         "The few documents that matter for a task, ranked (lexical + semantic) with linked documents.\n"
         "Returns skeletons only: id, title, description, status, links, matched_section, similarity.\n"
         "Read the descriptions, then fetch the bodies you need with ONE `get` call."),
    Tool("get", reads.GetRequest, reads.get, True,
         "Whole documents (frontmatter and body) by id, many in one call, any status, archived too.\n"
         "With `section`, only that section (e.g. a context result's matched_section)."),
    Tool("query", reads.QueryRequest, reads.query, True,
         "List skeletons by structured filters: type, status, tag, owner, stale, related_to."),
    Tool("search", reads.SearchRequest, reads.search, True,
         "Full-text search only (no model): skeletons ranked by bm25. Prefer `context` for tasks."),
    Tool("add", writes.AddRequest, writes.add, False,
         "Create a document. `related` entries are KIND:ID (e.g. supersedes:adr-4c21693aac55).\n"
         "The description must let a reader judge relevance without the body."),
    Tool("update", writes.UpdateRequest, writes.update, False,
         "Change a document in place; only what changes is rewritten. Section edits take `body`.\n"
         "`verified` is a date (YYYY-MM-DD) or \"today\"."),
    Tool("archive", writes.ArchiveRequest, writes.archive, False,
         "Move a document under docs/archive/: out of search and the graph, still returned by `get`."),
)


def command(root: RootOption = None) -> int:
    """Serve docir to MCP clients over stdio (tools: context, get, query, search, add, update, archive)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp_types import ToolAnnotations
    except ImportError:
        raise UsageError("the MCP server needs the mcp package: pip install 'docir[mcp]'") from None
    home = open_store(root).root
    server = MCPServer("docir", instructions=INSTRUCTIONS)
    for tool in TOOLS:
        hints = ToolAnnotations(read_only_hint=tool.read_only, destructive_hint=False, open_world_hint=False)
        server.tool(name=tool.name, description=tool.description, annotations=hints)(handler(tool, home))
    threading.Thread(target=_warm_up, args=(home,), name="model", daemon=True).start()
    server.run("stdio")
    return 0


def handler(tool: Tool, home: Path) -> Callable[..., str]:
    """A function whose signature is the request's fields, so the MCP SDK derives the input schema from it."""

    def call(**arguments: Any) -> str:
        request = tool.request(**{k: tuple(v) if isinstance(v, list) else v for k, v in arguments.items()})
        result = session.run(home, lambda s: tool.run(s, request, _ignore))
        payload = result.to_json() if hasattr(result, "to_json") else result
        return json.dumps(payload, ensure_ascii=False)

    call.__name__ = tool.name
    call.__doc__ = tool.description
    call.__signature__ = inspect.Signature(parameters(tool.request), return_annotation=str)  # type: ignore[attr-defined]
    return call


def parameters(request: type[Any]) -> list[inspect.Parameter]:
    from pydantic import Field

    hints = typing.get_type_hints(request)
    out = []
    for f in dataclasses.fields(request):
        meta = info(request, f.name)
        default = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        if isinstance(default, tuple):
            default = list(default)
        constraints = {k: v for k, v in (("ge", meta.min), ("le", meta.max)) if v is not None}
        field = Field(description=meta.help, **constraints)  # type: ignore[call-overload]
        annotation = Annotated[_json_type(hints[f.name]), field]  # type: ignore[valid-type]
        out.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    return out


def _json_type(hint: Any) -> Any:
    """A request's tuple (immutable, hashable) is a JSON array: a list to the schema."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple:
        return list[args[0]]  # type: ignore[valid-type]
    if type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        return Optional[_json_type(inner)]
    return hint


def _ignore(message: str) -> None:
    """Warnings (a skipped file, a peer that cannot be read) have no channel in a tool's reply."""


def _warm_up(home: Path) -> None:
    from docir.schema import load_schema
    from docir.services.vectors.query_source import LocalModel, load_local, register_process_model

    source = load_local(load_schema(home / "docs-schema.yaml").model_path, home)
    if isinstance(source, LocalModel):
        register_process_model(source.embedder)
