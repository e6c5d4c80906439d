"""docir mcp: the same reads and writes, as tools for agents that speak the Model Context Protocol.

Each tool runs the very CLI command it mirrors, in this long-lived process,
and returns that command's JSON: identical skeletons and fields by
construction. The model loads once in the background and stays loaded.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Optional

from docir.cli.options import RootOption
from docir.errors import DocirError, UsageError
from docir.store import open_store

INSTRUCTIONS = """docir holds this repository's design knowledge: decisions, architecture notes, issues, guides.
Before you change code, call `context` with your task in plain words. It returns skeletons
(title, description, status, links, and which section matched), never bodies. Judge relevance
from the descriptions, then fetch the few bodies you need in ONE `get` call with all their ids
(or one `section` of one). Record new decisions with `add`; keep documents true with `update`."""


def command(root: RootOption = None) -> int:
    """Serve docir to MCP clients over stdio (tools: context, get, query, search, add, update)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        raise UsageError("the MCP server needs the mcp package: pip install 'docir[mcp]'") from None
    home = open_store(root).root
    server = MCPServer("docir", instructions=INSTRUCTIONS)
    tools = Tools(home)
    for name in ("context", "get", "query", "search", "add", "update"):
        method = getattr(tools, name)
        server.tool(name=name, description=method.__doc__)(method)
    threading.Thread(target=tools.warm_up, name="model", daemon=True).start()
    server.run("stdio")
    return 0


class Tools:
    """One method per tool; each builds the CLI argv and returns the CLI's JSON."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def warm_up(self) -> None:
        from docir.schema import load_schema
        from docir.services.vectors.query_source import LocalModel, load_local, register_process_model

        source = load_local(load_schema(self.home / "docs-schema.yaml").model_path, self.home)
        if isinstance(source, LocalModel):
            register_process_model(source.embedder)

    def context(self, task: str, also: Optional[list[str]] = None, limit: int = 8, explain: bool = False,
                expand: bool = True, include_inactive: bool = False, refs: bool = True) -> str:
        """The few documents that matter for a task, ranked (lexical + semantic) with linked documents.
        Returns skeletons only: id, title, description, status, links, matched_section, similarity.
        Read the descriptions, then fetch the bodies you need with ONE `get` call."""
        argv = ["context", task, "--limit", str(limit)]
        for extra in also or []:
            argv += ["--also", extra]
        argv += _flags(explain=explain, no_expand=not expand, include_inactive=include_inactive, no_refs=not refs)
        return self._run(argv)

    def get(self, ids: list[str], section: Optional[str] = None) -> str:
        """Whole documents (frontmatter and body) by id, many in one call, any status, archived too.
        With `section`, only that section (e.g. a context result's matched_section)."""
        argv = ["get", *ids]
        if section is not None:
            argv += ["--section", section]
        return self._run(argv, allow_not_found=True)

    def query(self, type: Optional[list[str]] = None, status: Optional[list[str]] = None,
              tag: Optional[list[str]] = None, owner: Optional[str] = None, stale: Optional[bool] = None,
              related_to: Optional[str] = None, limit: int = 50, include_inactive: bool = False) -> str:
        """List skeletons by structured filters: type, status, tag, owner, stale, related_to."""
        argv = ["query", "--limit", str(limit)]
        for flag, values in (("--type", type), ("--status", status), ("--tag", tag)):
            for value in values or []:
                argv += [flag, value]
        if owner is not None:
            argv += ["--owner", owner]
        if stale is not None:
            argv.append("--stale" if stale else "--fresh")
        if related_to is not None:
            argv += ["--related-to", related_to]
        return self._run(argv + _flags(include_inactive=include_inactive))

    def search(self, text: str, limit: int = 10, include_inactive: bool = False) -> str:
        """Full-text search only (no model): skeletons ranked by bm25. Prefer `context` for tasks."""
        return self._run(["search", text, "--limit", str(limit), *_flags(include_inactive=include_inactive)])

    def add(self, type: str, title: str, description: str, status: Optional[str] = None,
            tags: Optional[list[str]] = None, related: Optional[list[str]] = None, owner: Optional[str] = None,
            body: Optional[str] = None) -> str:
        """Create a document. `related` entries are KIND:ID (e.g. supersedes:adr-4c21693aac55).
        The description must let a reader judge relevance without the body."""
        argv = ["add", type, "--title", title, "--description", description]
        if status is not None:
            argv += ["--status", status]
        if tags:
            argv += ["--tags", ",".join(tags)]
        for edge in related or []:
            argv += ["--related", edge]
        if owner is not None:
            argv += ["--owner", owner]
        if body is not None:
            argv += ["--body", "-"]
        return self._run(argv, stdin=body or "")

    def update(self, id: str, title: Optional[str] = None, description: Optional[str] = None,
               status: Optional[str] = None, tags: Optional[list[str]] = None,
               add_related: Optional[list[str]] = None, remove_related: Optional[list[str]] = None,
               owner: Optional[str] = None, verified: Optional[str] = None,
               append_section: Optional[str] = None, replace_section: Optional[str] = None,
               replace_body: bool = False, body: Optional[str] = None) -> str:
        """Change a document in place; only what changes is rewritten. Section edits take `body`.
        `verified` is a date (YYYY-MM-DD) or "today"."""
        argv = ["update", id]
        for flag, value in (("--title", title), ("--description", description), ("--status", status),
                            ("--owner", owner), ("--append-section", append_section),
                            ("--replace-section", replace_section)):
            if value is not None:
                argv += [flag, value]
        if tags is not None:
            argv += ["--tags", ",".join(tags)]
        for flag, edges in (("--add-related", add_related), ("--remove-related", remove_related)):
            for edge in edges or []:
                argv += [flag, edge]
        if verified is not None:
            argv += ["--verified", verified]
        if replace_body:
            argv.append("--replace-body")
        if body is not None:
            argv += ["--body", "-"]
        return self._run(argv, stdin=body or "")

    def _run(self, argv: list[str], stdin: str = "", allow_not_found: bool = False) -> str:
        from docir.cli.main import main
        from docir.services.vectors.worker_handler import run_captured

        env = {k: v for k, v in os.environ.items() if k.startswith("DOCIR_")}
        reply = run_captured(main, {"argv": [*argv, "--root", str(self.home), "--json"], "cwd": str(self.home),
                                    "env": env, "stdin": stdin})
        code, out, err = int(reply["exit"]), str(reply["stdout"]), str(reply["stderr"]).strip()
        if code != 0 and not (allow_not_found and code == 1 and out):
            raise DocirError(err.removeprefix("docir: error: ") or f"docir {argv[0]} failed ({code})")
        return json.dumps(json.loads(out), ensure_ascii=False) if out.strip() else "{}"


def _flags(**flags: bool) -> list[str]:
    return [f"--{name.replace('_', '-')}" for name, on in flags.items() if on]


