"""docir mcp: the same reads and writes, as tools for agents that speak the Model Context Protocol.

Each tool is generated from the request its CLI command is declared by (docir/request_options.py,
cli/route.py): the call runs the very service function the command runs and replies with the command's JSON
as text. What the client is shown (mcp_schema.py) is kept small, since every agent session
pays for it before its first answer: input schemas without generated titles, no output
schemas, descriptions written for an agent. Documents are also resources, `docir://doc/{id}`,
so a client can attach one without a tool call. The model loads once in the background.
"""

from __future__ import annotations

import inspect
import json
import threading
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from docir.cli import agent_text, route
from docir.cli.edge import caller_of, invocation_of
from docir.cli.mcp_schema import input_schema
from docir.cli.options import RootOption
from docir.commands import BY_NAME, TABLE, Command
from docir.errors import DocirError, UsageError
from docir.request_options import REQUIRED, fields
from docir.services.indexing import session
from docir.services.indexing.caller import Caller
from docir.services.retrieval import reads
from docir.services.retrieval.results import FullDocument, ReferenceText

# One line: a client receives a newline as two bytes.
INSTRUCTIONS = ("docir holds this repository's decisions, design notes, issues and guides. Before changing code, "
                "call `context` with your task, a `sketch` (what the answer would say) and, in `path`, the files "
                "you will touch; judge results by their descriptions, then fetch what you need in ONE `get`. On a "
                "small store, `query` lists every document. Record decisions with `add`, fix them with `update`.")


@dataclass(frozen=True)
class Tool:
    name: str
    request: type[Any]
    run: Callable[[session.Session, Any, Callable[[str], None]], Any]
    read_only: bool
    description: str


def _tool(command: Command) -> Tool:
    """The tool of a declared command: its request and the service function its CLI command runs."""
    declared = route.declared(command.name)
    if declared.serve is None or command.tool is None:
        raise TypeError(f"{command.name} serves no request in a session: it cannot be a tool")
    return Tool(command.name, declared.request, declared.serve, not command.writes, command.tool)


# The commands docir/commands.py gives a tool's text: the reads first, `context` at their head (what an agent
# calls first), then the writes.
TOOLS = tuple(_tool(c) for c in sorted((c for c in TABLE if c.tool), key=lambda c: (c.writes, c.name != "context")))
SCHEMAS = {tool.name: input_schema(tool.request) for tool in TOOLS}


def command(ctx: typer.Context, root: RootOption = None) -> int:
    """Serve docir to MCP clients over stdio (tools: context, get, query, search, add, update, archive)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp_types import ToolAnnotations
    except ImportError:
        raise UsageError("the MCP server needs the mcp package: pip install 'docir[mcp]'") from None
    from docir.services.indexing.shared_walk import keep_watch, let_go

    class Server(MCPServer):
        async def list_tools(self) -> Any:
            """The SDK's listing with docir's own input schemas in place of pydantic's."""
            return [t.model_copy(update={"input_schema": SCHEMAS[t.name]}) for t in await super().list_tools()]

    invocation = invocation_of(ctx, root)
    home = invocation.store_root()
    caller = caller_of(invocation)
    import docir

    server = Server("docir", instructions=INSTRUCTIONS, version=docir.__version__)  # serverInfo names it
    for tool in TOOLS:
        # Only what differs from the protocol's defaults (a tool may write; a write may destroy): a read is read
        # only, and a write here never destroys (archive keeps the file).
        hints = ToolAnnotations(read_only_hint=True) if tool.read_only else ToolAnnotations(destructive_hint=False)
        server.tool(name=tool.name, description=tool.description, annotations=hints,
                    structured_output=False)(handler(tool, home, caller))
    described = "A document by id: its file, frontmatter and body, as `get` finds it."
    server.resource(DOC_URI, name="document", mime_type="text/markdown", description=described)(reader(home, caller))
    keep_watch()  # a session of many reads: after the first walk, only a change makes one walk again
    threading.Thread(target=_warm_up, args=(home, caller), name="model", daemon=True).start()
    try:
        server.run("stdio")
    finally:
        let_go()
    return 0


def handler(tool: Tool, home: Path, caller: Caller) -> Callable[..., Any]:
    """A function whose signature is the request's fields, so the MCP SDK checks a call's arguments (types,
    ranges) before it reaches the store. The schema the client sees is mcp_schema's, not the SDK's."""
    from mcp_types import CallToolResult, TextContent

    def tool_call(**arguments: Any) -> Any:
        request = tool.request(**{k: tuple(v) if isinstance(v, list) else v for k, v in arguments.items()})
        result = session.run(home, lambda s: tool.run(s, request, _ignore), caller=caller)
        payload = result.to_json() if hasattr(result, "to_json") else result
        # A read's agent text, as the CLI prints it off a terminal (adr-aa663d326ae5); a write's JSON without
        # its indentation. Once: structured content would send every byte a second time (adr-9fa8dcd099b0).
        text = (agent_text.of(tool.name, request, payload) if BY_NAME[tool.name].reads
                else json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
        return CallToolResult(content=[TextContent(type="text", text=text)])

    tool_call.__name__ = tool.name
    tool_call.__doc__ = tool.description
    tool_call.__signature__ = inspect.Signature(parameters(tool.request), return_annotation=CallToolResult)  # type: ignore[attr-defined]
    return tool_call


DOC_URI = "docir://doc/{doc_id}"


def reader(home: Path, caller: Caller) -> Callable[[str], str]:
    """The resource behind docir://doc/{id}: a document's file as written (a peer's or a reference's text)."""

    from mcp.server.mcpserver.exceptions import ResourceError

    def read_document(doc_id: str) -> str:
        try:
            found = session.run(home, lambda s: reads.get(s, reads.GetRequest(ids=(doc_id,)), _ignore), caller=caller)
        except DocirError as exc:  # e.g. not an id at all: the client gets docir's one-line message
            raise ResourceError(exc.message) from None
        if not found.documents:
            raise ResourceError(f"no document with id {doc_id}")
        doc = found.documents[0]
        if doc.get("kind") == "reference":  # a reference chunk: its whole section
            return typing.cast(ReferenceText, doc)["text"]
        full = typing.cast(FullDocument, doc)
        file = home / full["path"]
        if full.get("store", ".") == "." and file.is_file():
            return file.read_text(encoding="utf-8")
        return f"# {full['title']}\n\n{full['body']}"  # a peer's document: its path is in another store

    return read_document


def parameters(request: type[Any]) -> list[inspect.Parameter]:
    from pydantic import Field

    out = []
    for f in fields(request):
        meta = f.option
        if meta.terminal_only:
            continue  # not offered to an agent: the request's default stands
        default = inspect.Parameter.empty if f.default is REQUIRED else f.default
        if isinstance(default, tuple):
            default = list(default)
        constraints = {k: v for k, v in (("ge", meta.min), ("le", meta.max)) if v is not None}
        field = Field(**constraints)  # type: ignore[call-overload]  # the ranges the SDK enforces
        annotation = Annotated[_json_type(f.hint), field]  # type: ignore[valid-type]
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


def _warm_up(home: Path, caller: Caller) -> None:
    from docir.schema import load_schema
    from docir.services.vectors.model_registry import register_process_model
    from docir.services.vectors.query_source import LocalModel, load_local

    source = load_local(caller, load_schema(home / "docs-schema.yaml").model_path, home)
    if isinstance(source, LocalModel):
        register_process_model(source.embedder)
