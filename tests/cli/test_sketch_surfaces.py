"""`--sketch` where agents and people reach it: the CLI, the warm worker and the MCP tool, with the real model."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.conftest import FIXTURES
from tests.services.retrieval.test_sketch import CRON, SKETCH, TASK
from tests.worker.helpers import docir, start_worker

OTHER = "phone client without connectivity"
OFFLINE = "arch-5e5510000008"  # Offline mode for the mobile client: what OTHER finds first on its own


@pytest.fixture
def embedded(tmp_path: Path, model_cache: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A copy of the semantic store with every vector computed, and an environment without a worker."""
    root = tmp_path / "semantic"
    shutil.copytree(FIXTURES / "stores" / "semantic", root)
    env = {**os.environ, "DOCIR_WORKER": "0", "XDG_CACHE_HOME": str(model_cache), "COLUMNS": "120"}
    flushed = docir(root, "embed", "--flush", env=env, timeout=300)
    assert flushed.returncode == 0, flushed.stderr
    yield root, env
    docir(root, "worker", "stop", env={**env, "DOCIR_WORKER": "1"}, timeout=60)


def context_json(root: Path, env: dict[str, str], *args: str) -> dict:  # type: ignore[type-arg]
    done = docir(root, "context", *args, "--json", "--no-expand", env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def first_ids(found: dict, count: int = 1) -> list[str]:  # type: ignore[type-arg]
    return [row["id"] for row in found["results"][:count]]


def test_the_cli_fuses_the_sketch_and_also_still_takes_turns(embedded: tuple[Path, dict[str, str]]) -> None:
    root, env = embedded
    assert CRON not in first_ids(context_json(root, env, TASK), 3)
    found = context_json(root, env, TASK, "--sketch", SKETCH, "--explain")
    assert first_ids(found) == [CRON]
    assert found["sketch"] == SKETCH and found["results"][0]["explain"]["sketch"]["weight"] > 0.5
    turns = context_json(root, env, TASK, "--sketch", SKETCH, "--also", OTHER)
    assert first_ids(turns, 2) == [CRON, OFFLINE]


def test_a_sketch_without_a_task_is_a_usage_error(embedded: tuple[Path, dict[str, str]]) -> None:
    root, env = embedded
    done = docir(root, "context", "--sketch", SKETCH, env=env)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["docir: error: --sketch adds to a task; give the task first"]


def test_the_warm_worker_answers_a_sketch_as_the_cli_does(embedded: tuple[Path, dict[str, str]]) -> None:
    root, env = embedded
    args = ("context", TASK, "--sketch", SKETCH, "--terms", "crontab", "--explain", "--no-expand", "--json")
    cold = docir(root, *args, env=env)
    warm_env = {**env, "DOCIR_WORKER": "1", "DOCIR_WORKER_IDLE": "60"}
    start_worker(root, warm_env)
    warm = docir(root, *args, env=warm_env)
    assert json.loads(docir(root, "worker", "status", env=warm_env).stdout)["running"]
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert json.loads(warm.stdout)["results"][0]["id"] == CRON


def test_the_mcp_context_tool_takes_a_sketch(embedded: tuple[Path, dict[str, str]]) -> None:
    pytest.importorskip("mcp.client.stdio")
    from tests.cli.test_mcp import docir_mcp

    root, env = embedded

    async def call() -> str:
        async with docir_mcp(root, env) as session:
            result = await session.call_tool("context", {"task": TASK, "sketch": SKETCH})
            assert not result.is_error, result.content
            return str(result.content[0].text)  # type: ignore[union-attr]

    text = anyio.run(call)
    assert text.splitlines()[1].startswith(f"1. {CRON} ")  # the sketch's answer first, in the agent's text
