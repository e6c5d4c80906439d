"""A publish streams its rows a part at a time: however the parts fall, the same rows land, vectors bit for bit."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path
from typing import Any

import pytest

from tests.org.conftest import new_database
from tests.org.helpers import SAMPLE_DOCUMENTS, sample_repo, sql
from tests.org.test_publish import publish

# Each table by its key; every column but published_at (the time of the publish) is compared.
TABLES = {"repos": "name", "documents": "repo, id", "sections": "repo, doc_id, ord",
          "links": "repo, doc_id, kind, target", "terms": "repo, lexeme"}

WORDY = """---
id: adr-5e1f00c0ffee
type: decision
title: Retry the WebhookDispatcher with an idempotency_key
description: The retry_policy of outbound webhooks, with HTTPServer limits and a --dry-run flag.
status: accepted
tags: [webhooks, retry_policy]
---
Words before any heading: some_identifier, CamelCaseWord and x-request-id.
<!-- hidden_words a reader never sees -->
## Context

The WebhookDispatcher retries with back-off; see the retry_policy and the --max-attempts flag.

### Nested detail

Accented words: éclair naïve café, and the O'Brien case.

## Options weighed by the TextLess_Heading
## Decision

Keep an idempotency_key per delivery.
Last line without a newline"""


def contents(url: str) -> dict[str, list[Any]]:
    return {table: sql(url, f"SELECT to_jsonb(t) - 'published_at' FROM docir.{table} t ORDER BY {key}")
            for table, key in TABLES.items()}


def local_vectors(root: Path) -> set[bytes]:
    conn = sqlite3.connect(root / ".docir" / "index.db")
    found = {bytes(r[0]) for r in conn.execute("SELECT vector FROM vectors")}
    conn.close()
    return found


def published_vectors(url: str) -> list[bytes]:
    """Every published vector as little-endian float32, read back as float4 values (exact)."""
    rows = sql(url, "SELECT vector::real[] FROM docir.documents WHERE vector IS NOT NULL UNION ALL"
                    " SELECT vector::real[] FROM docir.sections WHERE vector IS NOT NULL")
    return [struct.pack(f"<{len(r[0])}f", *r[0]) for r in rows]


def test_a_publish_in_many_parts_writes_exactly_the_rows_of_one_part(
        cli: Any, tmp_path: Path, pg_server: Any, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    root = sample_repo(tmp_path / "repo")
    (root / "docs" / "decisions" / "retry-webhooks.md").write_text(WORDY, encoding="utf-8")
    whole, parts = new_database(pg_server), new_database(pg_server)
    assert publish(cli, root, whole, "--wait-embeddings")["vectors_missing"] == 0

    monkeypatch.setattr("docir.services.publishing.publish.PART_CHARS", 1)  # a document a part
    monkeypatch.setattr("docir.services.publishing.publish.BATCH", 4)
    result = cli("publish", parts, "--root", str(root), "--json")
    assert result.code == 0, result.err
    assert result.json()["added"] == SAMPLE_DOCUMENTS + 1
    # Progress is still told a batch at a time, however many parts a batch is sent in.
    assert [line for line in result.err.splitlines() if "publishing:" in line] == [
        f"docir: publishing: {n}/9 documents written" for n in (4, 8, 9)]

    assert contents(parts) == contents(whole)
    vectors = published_vectors(whole)
    assert len(vectors) > SAMPLE_DOCUMENTS  # documents' and sections'
    assert set(vectors) <= local_vectors(root)
    lex = sql(whole, "SELECT lex::text FROM docir.documents WHERE id = 'adr-5e1f00c0ffee'")[0][0]
    assert "'webhookdispatch'" in lex and "'dispatch'" in lex and "hidden" not in lex
