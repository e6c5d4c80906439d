"""docir mcp: the same reads and writes, as tools for agents that speak the Model Context Protocol.

Each tool is generated from the request its CLI command builds (docir/requests.py):
the input schema is the request's fields with their help and ranges, the call runs
the very service function the command runs, and the reply is the command's JSON,
twice: as text (what a model reads) and as `structuredContent`, checked against the
tool's output schema, which comes from the typed result (results.py, writes.py).
Documents are also resources, `docir://doc/{id}`, so a client can attach one
without a tool call. The model loads once in the background and stays loaded.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
import threading
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

from docir.cli.options import RootOption
from docir.errors import DocirError, UsageError
from docir.requests import info
from docir.services.indexing import session
from docir.services.retrieval import commands as reads
from docir.services.retrieval.results import (
    ContextJSON,
    FullDocument,
    GetJSON,
    QueryJSON,
    ReferenceText,
    SearchJSON,
)
from docir.services.writing import commands as writes
from docir.services.writing.writes import AddResult, ArchiveResult, UpdateResult
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
    output: Any  # the TypedDict of the reply: its output schema


TOOLS = (
    Tool("context", reads.ContextRequest, reads.context, True,
         "The few documents that matter for a task, ranked (lexical + semantic) with linked documents.\n"
         "Returns skeletons only: id, title, description, status, matched_section, similarity; linked documents\n"
         "compact; within `budget` tokens (`omitted` counts what was left out). Pass `path` with the files you\n"
         "will change: the documents that govern them come first. Then fetch bodies with ONE `get` call.",
         ContextJSON),
    Tool("get", reads.GetRequest, reads.get, True,
         "Whole documents (frontmatter and body) by id, many in one call, any status, archived too.\n"
         "With `section`, only that section (e.g. a context result's matched_section).", GetJSON),
    Tool("query", reads.QueryRequest, reads.query, True,
         "List skeletons by structured filters: type, status, tag, owner, stale, related_to.", QueryJSON),
    Tool("search", reads.SearchRequest, reads.search, True,
         "Full-text search only (no model): skeletons ranked by bm25. Prefer `context` for tasks.", SearchJSON),
    Tool("add", writes.AddRequest, writes.add, False,
         "Create a document. `related` entries are KIND:ID (e.g. supersedes:adr-4c21693aac55).\n"
         "The description must let a reader judge relevance without the body.", AddResult),
    Tool("update", writes.UpdateRequest, writes.update, False,
         "Change a document in place; only what changes is rewritten. Section edits take `body`.\n"
         "`verified` is a date (YYYY-MM-DD) or \"today\".", UpdateResult),
    Tool("archive", writes.ArchiveRequest, writes.archive, False,
         "Move a document under docs/archive/: out of search and the graph, still returned by `get`.", ArchiveResult),
)


def command(root: RootOption = None) -> int:
    """Serve docir to MCP clients over stdio (tools: context, get, query, search, add, update, archive)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp_types import ToolAnnotations
    except ImportError:
        raise UsageError("the MCP server needs the mcp package: pip install 'docir[mcp]'") from None
    from docir.services.indexing.shared_walk import keep_watch

    home = open_store(root).root
    server = MCPServer("docir", instructions=INSTRUCTIONS)
    for tool in TOOLS:
        hints = ToolAnnotations(read_only_hint=tool.read_only, destructive_hint=False, open_world_hint=False)
        server.tool(name=tool.name, description=tool.description, annotations=hints)(handler(tool, home))
    server.resource(DOC_URI, name="document", mime_type="text/markdown",
                    description="A document by id: its file, frontmatter and body, as `get` finds it.")(reader(home))
    keep_watch()  # a session of many reads: after the first walk, only a change makes one walk again
    threading.Thread(target=_warm_up, args=(home,), name="model", daemon=True).start()
    server.run("stdio")
    return 0


def handler(tool: Tool, home: Path) -> Callable[..., Any]:
    """A function whose signature is the request's fields, so the MCP SDK derives the input schema from it,
    and whose return annotation names the reply's type, so the SDK derives and checks the output schema."""
    from mcp_types import CallToolResult, TextContent

    def call(**arguments: Any) -> Any:
        request = tool.request(**{k: tuple(v) if isinstance(v, list) else v for k, v in arguments.items()})
        result = session.run(home, lambda s: tool.run(s, request, _ignore))
        payload = result.to_json() if hasattr(result, "to_json") else result
        # The text is the CLI's JSON byte for byte (what the budget counts); the SDK validates the structure.
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
                              structured_content=payload)

    call.__name__ = tool.name
    call.__doc__ = tool.description
    returns = Annotated[CallToolResult, portable(tool.output)]
    call.__signature__ = inspect.Signature(parameters(tool.request), return_annotation=returns)  # type: ignore[attr-defined]
    return call


DOC_URI = "docir://doc/{doc_id}"


def reader(home: Path) -> Callable[[str], str]:
    """The resource behind docir://doc/{id}: a document's file as written (a peer's or a reference's text)."""

    from mcp.server.mcpserver.exceptions import ResourceError

    def read_document(doc_id: str) -> str:
        try:
            found = session.run(home, lambda s: reads.get(s, reads.GetRequest(ids=(doc_id,)), _ignore))
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


def portable(hint: Any) -> Any:
    """The same type with every TypedDict made by typing_extensions: below Python 3.12 pydantic (which
    builds output schemas) reads no other kind. docir's own types stay stdlib, so a command pays nothing."""
    if sys.version_info >= (3, 12):
        return hint
    import typing_extensions as te

    if typing.is_typeddict(hint):
        if hint not in _PORTABLE:
            fields = {}
            # Read NotRequired from the hints: under postponed annotations Python 3.11 cannot, so its
            # __optional_keys__ calls every key required.
            for name, field_type in typing.get_type_hints(hint, include_extras=True).items():
                optional = typing.get_origin(field_type) is typing.NotRequired
                inner = portable(typing.get_args(field_type)[0] if optional else field_type)
                fields[name] = te.NotRequired[inner] if optional else inner
            _PORTABLE[hint] = te.TypedDict(hint.__name__, fields)  # type: ignore[operator]
        return _PORTABLE[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(portable(a) for a in args)]
    if origin is list:
        return list[portable(args[0])]  # type: ignore[misc]
    if origin is dict:
        key, value = args
        return dict[key, portable(value)]  # type: ignore[misc, valid-type]
    return hint


_PORTABLE: dict[Any, Any] = {}


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
