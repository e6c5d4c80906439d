"""Shared expectations for the CLI tests: the sample store's ids and the one-line stderr rule."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

# The sample store (fixtures/stores/sample), by id.
A0 = "adr-0000000000a0"  # decision, superseded
A1 = "adr-0000000000a1"  # decision, accepted; supersedes A0, relates-to B1
B1 = "arch-0000000000b1"  # architecture, current; has an "## Expiry" section
B2 = "arch-0000000000b2"  # architecture, current, verified 2020: stale
C1 = "issue-0000000000c1"  # issue, resolved; relates-to A1
C2 = "issue-0000000000c2"  # issue, open; relates-to B2
D1 = "guide-0000000000d1"  # guide, current
E1 = "adr-0000000000e1"  # decision, archived under docs/archive/

# What `docir query` lists by default, in path order (inactive and archived hidden).
ACTIVE_IDS = [B2, B1, A1, D1, C2]
# With --include-inactive: closed statuses too, never the archived one.
ALL_VISIBLE_IDS = [B2, B1, A0, A1, D1, C1, C2]

PATHS = {
    A0: "docs/decisions/keep-sessions-in-memory.md",
    A1: "docs/decisions/keep-sessions-in-the-database.md",
    B1: "docs/architecture/session-service.md",
    B2: "docs/architecture/billing-pipeline.md",
    C1: "docs/issues/login-loop.md",
    C2: "docs/issues/slow-invoice-export.md",
    D1: "docs/guides/writing-a-decision.md",
    E1: "docs/archive/decisions/use-cookies-only.md",
}

SKELETON_KEYS = {"id", "type", "title", "description", "status", "tags", "related", "owner", "verified", "stale",
                 "path", "size"}
SEARCH_KEYS = SKELETON_KEYS | {"score", "similarity", "fts_score"}
LISTED_KEYS = SKELETON_KEYS | {"incoming"}  # what query lists: the links that point at it too
GET_KEYS = LISTED_KEYS | {"archived", "frontmatter", "body"}

ONE_LINE_RE = re.compile(r"^docir: (error|warning): \S.*$")


def one_line(err: str, kind: str | None = None) -> str:
    """Assert stderr is exactly one `docir: error|warning: ...` line, with no traceback; return it."""
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, f"expected exactly one stderr line, got {len(lines)}:\n{err}"
    assert err.endswith("\n"), repr(err)
    line = lines[0]
    assert ONE_LINE_RE.match(line), line
    if kind is not None:
        assert line.startswith(f"docir: {kind}: "), line
    return line


def ids(payload: Any, key: str = "results") -> list[str]:
    return [item["id"] for item in payload[key]]


def parse_json(text: str) -> Any:
    return json.loads(text)


def frontmatter_of(path: Path) -> dict[str, Any]:
    """The file's frontmatter, parsed independently of docir."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), text[:40]
    end = text.index("\n---\n", 4)
    data = yaml.safe_load(text[4:end])
    assert isinstance(data, dict)
    return data
