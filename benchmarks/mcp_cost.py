"""What an agent session pays for docir's MCP server before and per answer, in tokens (bytes / 4).

    python -m benchmarks.mcp_cost [--task "..."] [--out benchmarks/results/mcp_cost.json]

Copies this repository's own store (docs/ and docs-schema.yaml) to a temporary folder, starts
`docir mcp` on it with the MCP SDK's own stdio client (no worker, no model: lexical ranking, so
the figures do not depend on a model being installed) and counts:

    instructions     the server's instructions from `initialize` (sent once per session)
    tools/list       every tool as the client receives it (name, description, input and output
                     schema, annotations), serialised as the SDK serialises it
    per tool         the same for each tool alone, and its output schema's share
    context call     one `context` call with the task below: the whole tool result as sent
                     (text content plus structuredContent), beside the CLI's JSON for the same call

Target: instructions + tools/list at most 2,000 tokens; the context call at most the CLI's JSON.
Prints a table, writes JSON. Run it from another revision's checkout (PYTHONPATH at its tree) to
get the "before" figures with the same script.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._harness import REPO, arguments, docir_argv, machine_info, report, run

TASK = "how does docir keep a superseded decision out of the results"
BUDGET_TOKENS = 2000


def tokens(size: int) -> int:
    return -(-size // 4)  # bytes / 4, rounded up: the estimate docir's own budget uses


def wire(model: Any) -> bytes:
    """A protocol object as the SDK puts it on the wire: by alias, no unset fields."""
    return json.dumps(model.model_dump(mode="json", by_alias=True, exclude_none=True),
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


async def session_figures(root: Path, env: dict[str, str], task: str) -> dict[str, Any]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "docir", "mcp", "--root", str(root)], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        listed = await session.list_tools()
        result = await session.call_tool("context", {"task": task})
    if result.is_error:
        raise SystemExit(f"mcp_cost: the context call failed: {result.content}")
    per_tool = []
    for tool in listed.tools:
        data = json.loads(wire(tool))
        output = data.get("outputSchema")
        per_tool.append({"name": tool.name, "bytes": len(wire(tool)),
                         "output_schema_bytes": len(json.dumps(output, separators=(",", ":"))) if output else 0})
    text = "".join(getattr(c, "text", "") for c in result.content)
    return {"instructions_bytes": len((init.instructions or "").encode("utf-8")),
            "tools_list_bytes": len(wire(listed)), "tools": per_tool,
            "context_call_bytes": len(wire(result)), "context_text_bytes": len(text.encode("utf-8")),
            "context_structured": result.structured_content is not None}


def main(argv: list[str] | None = None) -> int:
    import anyio

    parser = arguments("mcp_cost", __doc__)
    parser.add_argument("--task", default=TASK, help="the context call's task")
    args = parser.parse_args(argv)
    machine = machine_info()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "store"
        root.mkdir()
        shutil.copytree(REPO / "docs", root / "docs")
        shutil.copy(REPO / "docs-schema.yaml", root / "docs-schema.yaml")
        (Path(tmp) / "no-model").mkdir()
        env = {**os.environ, "DOCIR_WORKER": "0", "DOCIR_MODEL_PATH": str(Path(tmp) / "no-model")}
        figures = anyio.run(session_figures, root, env, args.task)
        cli = run(docir_argv("context", args.task, "--root", str(root)), what="docir context", env=env)
    cli_bytes = len(cli.stdout.rstrip(b"\n"))
    surface = figures["instructions_bytes"] + figures["tools_list_bytes"]
    payload: dict[str, Any] = {
        "machine": machine,
        "config": {"task": args.task, "store": "this repository's docs/ (lexical ranking, no model)"},
        **figures,
        "surface_tokens": tokens(surface),
        "context_call_tokens": tokens(figures["context_call_bytes"]),
        "cli_context_bytes": cli_bytes,
        "cli_context_tokens": tokens(cli_bytes),
        "targets": [
            {"name": f"instructions + tools/list at most {BUDGET_TOKENS} tokens", "value": tokens(surface),
             "status": "PASS" if tokens(surface) <= BUDGET_TOKENS else "FAIL", "detail": f"{tokens(surface)} tokens"},
            {"name": "a context call costs no more than the CLI's JSON", "value": tokens(figures["context_call_bytes"]),
             "limit": tokens(cli_bytes), "status": "PASS" if figures["context_call_bytes"] <= cli_bytes else "FAIL",
             "detail": f"{tokens(figures['context_call_bytes'])} tokens"},
        ],
    }
    sizes = [("instructions", figures["instructions_bytes"]),
             *((f"  tool {t['name']} (output schema {t['output_schema_bytes']})", t["bytes"])
               for t in figures["tools"]),
             ("tools/list", figures["tools_list_bytes"]), ("session surface (both)", surface),
             ("context call, as sent", figures["context_call_bytes"]), ("context, the CLI JSON", cli_bytes)]
    report("mcp_cost", payload, out=args.out, columns=[("what", ""), ("bytes", "d"), ("tokens", "d")],
           rows=[[label, size, tokens(size)] for label, size in sizes])
    return 0


if __name__ == "__main__":
    sys.exit(main())
