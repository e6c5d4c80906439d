"""Many CI jobs publishing at once: each repository lands whole, and a reader never sees half of one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from docir.org.tables import SCHEMA_VERSION
from tests.org.helpers import SAMPLE_DOCUMENTS, sample_repo, sql

REPOSITORIES = 8
EXTRA = 40  # documents added to each copy of the sample, so a publish is more than a few rows
GUIDE = """---
id: guide-{id}
type: guide
title: Guide {n} of repository {repo}
description: How step {n} of the release of repository {repo} is done, and who signs it off.
status: current
owner: "@docs"
---

## Steps

Step {n} runs after step {previous}.

## Sign-off

The owner of repository {repo} signs it off.
"""


def grown_repo(root: Path, index: int) -> Path:
    sample_repo(root, f"https://github.com/acme/r{index}.git")
    for n in range(EXTRA):
        text = GUIDE.format(id=f"{index:02x}{n:010x}", n=n, previous=n - 1, repo=index)
        (root / "docs" / "guides" / f"guide-{n}.md").write_text(text, encoding="utf-8")
    return root


def start(root: Path, url: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "docir", "publish", url, "--root", str(root), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "DOCIR_WORKER": "0"})


def test_concurrent_publishers_land_whole_and_a_reader_never_sees_half(tmp_path: Path, pg_url: str) -> None:
    roots = [grown_repo(tmp_path / f"r{i}", i) for i in range(REPOSITORIES)]
    whole = SAMPLE_DOCUMENTS + EXTRA
    # Every repository at once, into a database with no tables yet (they migrate together), and the
    # first repository twice: its two publishes must take turns.
    processes = [start(root, pg_url) for root in roots] + [start(roots[0], pg_url)]
    seen: list[dict[str, int]] = []
    while any(p.poll() is None for p in processes):
        exists = sql(pg_url, "SELECT to_regclass('docir.documents') IS NOT NULL")[0][0]
        if exists:
            seen.append(dict(sql(pg_url, "SELECT repo, count(*) FROM docir.documents GROUP BY repo")))  # type: ignore[arg-type]
    outputs = [p.communicate() for p in processes]
    for process, (_out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
    partial = [counts for counts in seen if any(n != whole for n in counts.values())]
    assert partial == []
    final = dict(sql(pg_url, "SELECT repo, count(*) FROM docir.documents GROUP BY repo"))
    assert final == {f"github.com/acme/r{i}": whole for i in range(REPOSITORIES)}
    assert sql(pg_url, "SELECT value FROM docir.meta") == [(str(SCHEMA_VERSION),)]
    twice = [json.loads(outputs[i][0]) for i in (0, REPOSITORIES)]
    # One of the two publishes of r0 wrote it; the other waited, then found nothing left to write.
    assert sorted(r["written"] for r in twice) == [False, True]
    assert sorted(r["added"] for r in twice) == [0, whole]
