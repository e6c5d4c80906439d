"""docir mcp spoken to by the official MCP client over stdio: the reads answer as the CLI does off a terminal
(the agent's text), the writes with the CLI's JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from docir.commands import TABLE
from tests.conftest import FIXTURES, run_process

mcp_client = pytest.importorskip("mcp.client.stdio")
from mcp import ClientSession  # noqa: E402


@asynccontextmanager
async def docir_mcp(root: Path, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    """`docir mcp` in a child process, spoken to by the official client, initialised."""
    params = mcp_client.StdioServerParameters(command=sys.executable, args=["-m", "docir", "mcp", "--root", str(root)],
                                              env=env)
    async with mcp_client.stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def sample_store_and_env(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the sample store, and an environment with no worker and no model (lexical ranking)."""
    root = tmp_path / "sample"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    return root, {**os.environ, "DOCIR_WORKER": "0", "DOCIR_MODEL_PATH": str(tmp_path / "no-model")}


async def _session_calls(root: Path, env: dict[str, str],  # type: ignore[type-arg]
                         calls: list[tuple[str, dict]]) -> tuple[list[str], list[object]]:
    async with docir_mcp(root, env) as session:
        listed = await session.list_tools()
        results = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            assert not result.is_error, result.content
            text = result.content[0].text
            results.append(text if name in READS else json.loads(text))
        return [tool.name for tool in listed.tools], results


READS = {command.name for command in TABLE if command.reads}


def test_mcp_tools_mirror_the_cli(tmp_path: Path) -> None:
    root, env = sample_store_and_env(tmp_path)
    calls = [("context", {"task": "users logged out after a deploy", "limit": 4}),
             ("get", {"ids": ["adr-0000000000a1", "arch-0000000000b1"]}),
             ("get", {"ids": ["arch-0000000000b1"], "section": ["Expiry"]}),
             ("search", {"text": "sessions"}),
             ("query", {"type": ["decision"], "include_inactive": True})]
    names, results = anyio.run(_session_calls, root, env, calls)
    assert set(names) == {"context", "get", "query", "search", "add", "update", "archive"}
    cli_argv = [["context", "users logged out after a deploy", "--limit", "4"],
                ["get", "adr-0000000000a1", "arch-0000000000b1"],
                ["get", "arch-0000000000b1", "--section", "Expiry"],
                ["search", "sessions"],
                ["query", "--type", "decision", "--include-inactive"]]
    for argv, from_mcp in zip(cli_argv, results, strict=True):
        assert from_mcp == subprocess_text(root, env, argv), argv
    assert str(results[0]).splitlines()[1].startswith("1. adr-0000000000a1 (accepted, ")


def subprocess_text(root: Path, env: dict[str, str], argv: list[str]) -> str:
    """What the CLI prints off a terminal: the agent's text form of a read."""
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "docir", *argv, "--root", str(root)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_mcp_write_tools(tmp_path: Path) -> None:
    root, env = sample_store_and_env(tmp_path)
    calls = [("add", {"type": "decision", "title": "Rotate session keys weekly",
                      "description": "Session signing keys rotate every Monday; two stay valid during the overlap.",
                      "owner": "@platform", "body": "## Decision\n\nRotate weekly."}),
             ("update", {"id": "adr-0000000000a1", "status": "deprecated"})]
    _, results = anyio.run(_session_calls, root, env, calls)
    added, updated = results
    assert added["path"].startswith("docs/decisions/rotate-session-keys-weekly")  # type: ignore[index]
    assert updated["changed"] == ["status"]  # type: ignore[index]
    assert "## Decision\n\nRotate weekly." in (root / added["path"]).read_text()  # type: ignore[index]
    assert run_process("get", added["id"], "--root", str(root)).code == 0  # type: ignore[index]


async def _server_version(root: Path, env: dict[str, str]) -> str:
    async with docir_mcp(root, env) as session:
        initialized = await session.initialize()
        return str(initialized.server_info.version)


def test_mcp_says_which_docir_serves(tmp_path: Path) -> None:
    import docir

    root, env = sample_store_and_env(tmp_path)
    assert anyio.run(_server_version, root, env) == docir.__version__ != ""


async def _listing_and_bad_call(root: Path, env: dict[str, str]) -> tuple[list[object], str, object]:
    async with docir_mcp(root, env) as session:
        initialized = await session.initialize()
        listed = await session.list_tools()
        bad = await session.call_tool("query", {"limit": 100000000000000000000})
        return list(listed.tools), initialized.instructions or "", bad


def test_mcp_tools_are_generated_from_the_requests_with_every_option(tmp_path: Path) -> None:
    from docir.cli.mcp_cmd import TOOLS
    from docir.cli.mcp_schema import agent_text
    from docir.request_options import fields, help_of

    root, env = sample_store_and_env(tmp_path)
    tools, _, bad = anyio.run(_listing_and_bad_call, root, env)
    by_name = {tool.name: tool for tool in tools}  # type: ignore[attr-defined]
    for spec in TOOLS:
        listed = by_name[spec.name]
        properties = listed.input_schema["properties"]
        # every option but those for a person at a terminal (a debugging view, a wait, a peer named by hand)
        assert set(properties) == {f.name for f in fields(spec.request) if not f.option.terminal_only}, spec.name
        for name, schema in properties.items():
            assert schema["description"] == agent_text(help_of(spec.request, name))
            assert "title" not in schema and "--" not in schema["description"], (spec.name, name)
        # A write leaves readOnlyHint out: the protocol's default is that a tool may write.
        assert listed.annotations.read_only_hint is (True if spec.read_only else None), spec.name
        assert listed.output_schema is None, spec.name  # the reply is JSON text; no schema sent twice
    assert by_name["context"].input_schema["properties"]["limit"]["minimum"] == 1
    assert by_name["add"].input_schema["properties"]["field"]["type"] == "array"  # KEY=VALUE pairs, as --field
    assert "store" not in by_name["search"].input_schema["properties"]  # a peer is named by a person
    assert bad.is_error  # type: ignore[attr-defined]  # out of range: refused before the store is read


# What every agent session pays for docir before its first answer (adr-9fa8dcd099b0): 6,000 bytes.
SURFACE_BYTES = 6000


def test_the_tool_list_and_instructions_fit_the_budget(tmp_path: Path) -> None:
    """Counted as a client receives them: the bytes of the server's replies to `initialize` (its instructions)
    and `tools/list`, as they come over stdio. A new tool, option or longer help must pay for itself."""
    root, env = sample_store_and_env(tmp_path)
    asked = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    server = subprocess.Popen([sys.executable, "-m", "docir", "mcp", "--root", str(root)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"".join(json.dumps(message).encode() + b"\n" for message in asked))
        server.stdin.flush()
        replies = [server.stdout.readline() for _ in range(2)]
    finally:
        server.kill()
        server.wait()
    init, listed = (json.loads(line) for line in replies)
    assert init["result"]["instructions"] and len(listed["result"]["tools"]) == 7
    size = sum(len(line.rstrip(b"\n")) for line in replies)
    assert size <= SURFACE_BYTES, f"{size:,} bytes"


def test_every_cli_read_option_is_reachable_over_mcp(tmp_path: Path) -> None:
    """Read from the click commands themselves, so an option added to a read command must reach its tool."""
    from docir.cli.main import _command

    root, env = sample_store_and_env(tmp_path)
    tools, _, _ = anyio.run(_listing_and_bad_call, root, env)
    by_name = {tool.name: tool.input_schema["properties"] for tool in tools}  # type: ignore[attr-defined]
    group = _command()
    import click

    from docir.cli.route import declared
    from docir.request_options import fields

    for name in ("context", "get", "query", "search"):
        command = group.get_command(click.Context(group), name)
        terminal = {f.name for f in fields(declared(name).request) if f.option.terminal_only}
        options = {p.name for p in command.params} - {"root", "json_out", "help"} - terminal
        assert options and options <= set(by_name[name]), (name, options - set(by_name[name]))


async def _structured(root: Path, env: dict[str, str]) -> dict[str, object]:
    async with docir_mcp(root, env) as session:
        calls = {name: await session.call_tool(name, arguments) for name, arguments in (
            ("context", {"task": "sessions", "budget": 60}),
            ("get", {"ids": ["adr-0000000000a1", "adr-999999999999"]}),
            ("query", {"type": ["decision"]}),
            ("search", {"text": "sessions"}),
            ("update", {"id": "adr-0000000000a1", "owner": "@sessions"}),
        )}
        templates = await session.list_resource_templates()
        read_doc = await session.read_resource("docir://doc/adr-0000000000a1")
        missing: object = None
        try:
            missing = await session.read_resource("docir://doc/adr-999999999999")
        except Exception as exc:  # the SDK raises the server's error
            missing = exc
        return {"calls": calls, "templates": templates, "read": read_doc, "missing": missing}


def test_mcp_replies_are_sent_once_and_documents_are_resources(tmp_path: Path) -> None:
    root, env = sample_store_and_env(tmp_path)
    found = anyio.run(_structured, root, env)
    for name, result in found["calls"].items():  # type: ignore[attr-defined]
        assert not result.is_error, (name, result.content)
        (text,) = result.content
        assert result.structured_content is None, name  # the same bytes a second time would cost as much again
        if name not in READS:
            assert "\n" not in text.text, name  # a write's JSON, without indentation: a model reads every byte
    context = found["calls"]["context"].content[0].text  # type: ignore[index]
    assert "held back by the 60-token budget" in context.splitlines()[0]  # 60 tokens do not hold every result
    got = found["calls"]["get"].content[0].text  # type: ignore[index]
    assert got.startswith("=== adr-0000000000a1 ") and got.rstrip().endswith("no document with id adr-999999999999")
    (template,) = found["templates"].resource_templates  # type: ignore[attr-defined]
    assert template.uri_template == "docir://doc/{doc_id}" and template.mime_type == "text/markdown"
    (content,) = found["read"].contents  # type: ignore[attr-defined]
    assert content.text == (root / "docs/decisions/keep-sessions-in-the-database.md").read_text()
    assert "owner: '@sessions'" in content.text or "owner: \"@sessions\"" in content.text  # the update shows
    assert "no document with id adr-999999999999" in str(found["missing"])
