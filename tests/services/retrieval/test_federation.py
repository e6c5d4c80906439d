"""Reading across stores: exactly four commands fan out, peers are never written, merges use similarity."""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
import typer.main

from docir.cli.app import build_app
from docir.index import db
from docir.services.indexing.session import open_session
from docir.services.retrieval import federation
from docir.services.vectors import embedding
from docir.services.vectors.query_source import LocalModel, load_local
from tests.caller import caller, settings
from tests.conftest import FIXTURES, remove_index
from tests.fakes import CountingEmbedder
from tests.test_cli_surface import subcommands

SAMPLE_ID = "adr-0000000000a1"
PEER_ID = "adr-5e5510000001"  # in the semantic fixture: "Session renewal strategy"
WRITE_STATEMENT = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|BEGIN|VACUUM|REINDEX"
                             r"|PRAGMA\s+\w+\s*=)", re.I)
TEMPORARY_TABLE = re.compile(r"^\s*(INSERT\s+INTO|DELETE\s+FROM|CREATE\s+VIRTUAL\s+TABLE\s+IF\s+NOT\s+EXISTS)\s+temp\.",
                             re.I)


def test_exactly_four_commands_federate() -> None:
    """Computed from the CLI's own commands: a new one joins only by decision."""
    root = typer.main.get_command(build_app())
    federating = set()
    stack = [("", root)]
    while stack:
        prefix, command = stack.pop()
        for name, sub in subcommands(command):
            full = f"{prefix}{name}"
            stack.append((f"{full} ", sub))
            if any("--store" in getattr(p, "opts", []) for p in getattr(sub, "params", [])):
                federating.add(full)
    # Exactly these read commands may fan out to peer stores (adr-148bb3028835); writes never do.
    assert federating == {"get", "query", "search", "context"}


def build(store_dir: Path, fixture: str) -> Path:
    shutil.copytree(FIXTURES / "stores" / fixture, store_dir)
    open_session(store_dir, caller()).close()
    return store_dir


@pytest.fixture
def stores(tmp_path: Path) -> tuple[Path, Path]:
    local = build(tmp_path / "svc", "sample")
    peer = build(tmp_path / "platform", "semantic")
    (local / ".docir" / "stores.yaml").write_text("stores:\n  - ../platform\n")
    return local, peer


def tree_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_no_read_command_writes_a_peer(cli, stores: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    local, peer = stores
    attempts: list[str] = []
    opened: list[Path] = []
    real_open = db.open_index_readonly

    def spy(path: Path) -> sqlite3.Connection:
        """Every statement docir sends through a peer connection is seen; writes are recorded."""
        conn = real_open(path)
        opened.append(path)

        def trace(statement: str) -> None:
            # The connection's own temporary tables (the tokenizer behind LexicalSearch.weightless)
            # live apart from the peer's file; the digest below checks the files as well.
            if WRITE_STATEMENT.match(statement) and not TEMPORARY_TABLE.search(statement):
                attempts.append(statement)

        conn.set_trace_callback(trace)
        return conn

    monkeypatch.setattr("docir.services.indexing.session.open_index_readonly", spy)
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(local / "no-model"))  # lexical: no model loads here
    before = tree_digest(peer)
    for path in [peer, *peer.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        for args in (["get", PEER_ID, SAMPLE_ID], ["query"], ["search", "sessions"], ["context", "nightly jobs"]):
            result = cli(*args, "--root", str(local), "--json")
            assert result.code == 0, (args, result.err)
            assert any(row.get("store") == "../platform" for row in _rows(result.json())), args
    finally:
        for path in [peer, *peer.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert len(opened) == 4  # the spy saw every command's peer connection
    assert attempts == []
    assert tree_digest(peer) == before


def _rows(payload: dict) -> list[dict]:  # type: ignore[type-arg]
    return payload.get("results") or payload.get("documents") or []


@pytest.mark.parametrize("damage", ["missing-folder", "no-index", "corrupt-index", "newer-schema"])
def test_an_unreadable_peer_is_skipped_with_one_warning(cli, stores: tuple[Path, Path], damage: str) -> None:  # type: ignore[no-untyped-def]
    local, peer = stores
    index = peer / ".docir" / "index.db"
    if damage == "missing-folder":
        shutil.rmtree(peer)
    elif damage == "no-index":
        remove_index(index)
    elif damage == "corrupt-index":
        remove_index(index)
        index.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    else:
        conn = sqlite3.connect(index)
        conn.execute(f"PRAGMA user_version = {db.SCHEMA_VERSION + 1}")
        conn.close()
    before = tree_digest(peer) if peer.exists() else {}
    result = cli("search", "sessions", "--root", str(local), "--json")
    assert result.code == 0
    assert [line for line in result.err.splitlines()] == [result.err.splitlines()[0]]
    assert result.err.startswith("docir: warning: peer store ../platform skipped: ")
    assert {row.get("store", ".") for row in result.json()["results"]} == {"."}  # the local rows, answered
    assert (tree_digest(peer) if peer.exists() else {}) == before


def test_store_field_only_while_federating(cli, stores: tuple[Path, Path]) -> None:  # type: ignore[no-untyped-def]
    local, _ = stores
    (local / ".docir" / "stores.yaml").write_text("stores: []\n")
    alone = cli("query", "--root", str(local), "--json").json()
    assert all("store" not in row for row in alone["results"])
    together = cli("query", "--root", str(local), "--store", str(local.parent / "platform"), "--limit", "50",
                   "--json").json()
    assert {row["store"] for row in together["results"]} == {".", str(local.parent / "platform")}


def test_get_finds_a_peer_document_in_the_order_asked(cli, stores: tuple[Path, Path]) -> None:  # type: ignore[no-untyped-def]
    local, _ = stores
    payload = cli("get", PEER_ID, SAMPLE_ID, "--root", str(local), "--json").json()
    assert [(d["id"], d["store"]) for d in payload["documents"]] == [(PEER_ID, "../platform"), (SAMPLE_ID, ".")]


@pytest.fixture(scope="module")
def model(model_cache: Path):  # type: ignore[no-untyped-def]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        source = load_local(caller(), None, model_cache)
    assert isinstance(source, LocalModel)
    return source


def test_best_match_in_a_small_peer_ranks_first_by_similarity(tmp_path: Path, model: LocalModel) -> None:
    local = build(tmp_path / "svc", "sample")
    big = build(tmp_path / "big", "semantic")
    for doc in ("decisions/session-renewal-strategy.md", "architecture/token-bucket-rate-limiter.md"):
        (big / "docs" / doc).unlink()
    small = tmp_path / "small"
    shutil.copytree(FIXTURES / "stores" / "semantic", small)
    for path in (small / "docs").rglob("*.md"):
        if path.name not in ("session-renewal-strategy.md", "token-bucket-rate-limiter.md"):
            path.unlink()
    for root in (local, big, small):
        session = open_session(root, caller())
        embedding.drain(session.catalog, model.embedder, settings())
        session.close()
    (local / ".docir" / "stores.yaml").write_text("stores:\n  - ../big\n  - ../small\n")
    session = open_session(local, caller())
    warnings: list[str] = []
    result = federation.with_peers(session, [], warnings.append, lambda peers: federation.context(
        session, peers, ["refresh token handling"], model, limit=6, expand=False, explain=False,
        include_inactive=False))
    rows = result.results
    sims = [r["similarity"] for r in rows]
    assert sims == sorted(sims, reverse=True)
    # The local store says nothing of refresh tokens: it adds no row, where it once padded the list.
    assert {r["store"] for r in rows} == {"../big", "../small"}
    best_renewal = next(r for r in rows if r["id"] == "adr-5e5510000001")
    assert best_renewal["store"] == "../small"
    # Its own store ranked it below the token-bucket document (which shares the word "token"),
    # so its RRF score is lower than rows it now outranks: the merge did not use scores.
    assert any(r["score"] > best_renewal["score"] and r["similarity"] < best_renewal["similarity"] for r in rows)
    assert warnings == []


def test_a_peer_with_another_model_is_searched_lexically_with_a_note(tmp_path: Path, model: LocalModel) -> None:
    local = build(tmp_path / "svc", "sample")
    peer = build(tmp_path / "platform", "semantic")
    session = open_session(peer, caller())
    embedding.drain(session.catalog, CountingEmbedder(model_id="other-model@test"), settings())
    session.close()
    (local / ".docir" / "stores.yaml").write_text("stores:\n  - ../platform\n")
    session = open_session(local, caller())
    embedding.drain(session.catalog, model.embedder, settings())
    result = federation.with_peers(session, [], lambda m: None, lambda peers: federation.context(
        session, peers, ["nightly jobs with cron"], model, limit=5, expand=False, explain=False,
        include_inactive=False))
    peer_rows = [r for r in result.results if r["store"] == "../platform"]
    assert peer_rows and all(r["similarity"] is None for r in peer_rows)
    assert any("peer store ../platform searched lexically" in w and "other-model@test" in w for w in session.warnings)


def _ranked(store: str, *rows: tuple[str, float | None]) -> list[Any]:
    return [{"id": doc_id, "store": store, "similarity": similarity, "score": 1.0 / rank, "via": None}
            for rank, (doc_id, similarity) in enumerate(rows, start=1)]


def test_the_merge_keeps_each_stores_own_order() -> None:
    """A store's fused order weighs words and sections its cosines do not: the merge never reorders it
    (adr-8a976b997594). One store alone keeps its order exactly; several are merged by their next rows."""
    peer = _ranked("../peer", ("p1", 0.41), ("p2", 0.62), ("p3", 0.35))
    assert [r["id"] for r in federation.merge_by_similarity([[], peer], 10)] == ["p1", "p2", "p3"]
    local = _ranked(".", ("l1", 0.50), ("l2", 0.38))
    merged = [r["id"] for r in federation.merge_by_similarity([local, peer], 10)]
    # l1 (0.50) before p1 (0.41); then p1 (0.41) before l2 (0.38), p2 after its own store's p1.
    assert merged == ["l1", "p1", "p2", "l2", "p3"]
    assert [r["id"] for r in federation.merge_by_similarity([local, peer], 3)] == ["l1", "p1", "p2"]


def test_the_merge_gives_a_lexical_store_turns_and_puts_linked_rows_last() -> None:
    local = _ranked(".", ("l1", 0.50), ("l2", 0.38))
    lexical = _ranked("../words", ("w1", None), ("w2", None))
    linked = {"id": "x1", "store": ".", "similarity": 0.9, "score": None, "via": {"id": "l1"}}
    repeat = {"id": "l2", "store": ".", "similarity": 0.38, "score": None, "via": {"id": "l1"}}
    merged = federation.merge_by_similarity([[*local, linked, repeat], lexical], 10)
    assert [r["id"] for r in merged] == ["l1", "w1", "l2", "w2", "x1"]
