"""docir publish carries the vectors the local index has, computed by the real model only when asked."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import A1, E1
from tests.org.helpers import SAMPLE_DOCUMENTS, sample_repo, sql, versions
from tests.org.test_publish import publish


def local_vector(root: Path, doc_id: str) -> list[float]:
    conn = sqlite3.connect(root / ".docir" / "index.db")
    blob = conn.execute("SELECT v.vector FROM embeddings e JOIN vectors v ON v.text_sha = e.vector_sha"
                        " AND v.model_id = e.model_id JOIN documents d ON d.rowid = e.doc WHERE d.id = ?",
                        (doc_id,)).fetchone()[0]
    conn.close()
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


def local_section_vectors(root: Path) -> int:
    conn = sqlite3.connect(root / ".docir" / "index.db")
    count = conn.execute("SELECT count(*) FROM chunk_embeddings WHERE shared = 0").fetchone()[0]
    conn.close()
    return int(count)


def test_vectors_arrive_with_wait_embeddings_and_are_the_index_s_own(
        cli: Any, tmp_path: Path, pg_url: str, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    root = sample_repo(tmp_path / "repo")
    first = publish(cli, root, pg_url)
    assert (first["vectors_missing"], first["model"]) == (SAMPLE_DOCUMENTS - 1, None)
    before = versions(pg_url)

    report = publish(cli, root, pg_url, "--wait-embeddings")
    # Every document that can have vectors is written again with them; the archived one is not touched.
    assert (report["vectors_missing"], report["changed"], report["added"]) == (0, SAMPLE_DOCUMENTS - 1, 0)
    assert versions(pg_url)[E1] == before[E1]
    model = report["model"]
    assert model.startswith("sentence-transformers/all-MiniLM-L6-v2@")
    assert sql(pg_url, "SELECT model_id, dimension, model_window, chunking FROM docir.repos") == [
        (model, 384, 256, f"{model}|chunks-v3")]
    assert sql(pg_url, "SELECT count(*) FROM docir.documents WHERE vector IS NOT NULL") == [(SAMPLE_DOCUMENTS - 1,)]
    assert sql(pg_url, "SELECT count(*) FROM docir.sections WHERE vector IS NOT NULL") == [
        (local_section_vectors(root),)]
    published = sql(pg_url, "SELECT vector::text FROM docir.documents WHERE id = %s", (A1,))[0][0]
    assert [float(x) for x in published.strip("[]").split(",")] == pytest.approx(local_vector(root, A1), abs=1e-6)
    # The HNSW index of the 384-dimension model answers a nearest-neighbour query.
    nearest = sql(pg_url, "SELECT id FROM docir.documents WHERE vector_dims(vector) = 384 ORDER BY"
                          " vector::vector(384) <=> (SELECT vector::vector(384) FROM docir.documents WHERE id = %s)"
                          " LIMIT 1", (A1,))
    assert nearest == [(A1,)]

    again = publish(cli, root, pg_url)
    assert again["written"] is False

    # A rebuilt index gets its vectors back from the vault, with no model: the publish has nothing to write.
    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("publish loaded a model")

    monkeypatch.setattr("docir.embed.load.load_embedder", no_model)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{root / '.docir' / 'index.db'}{suffix}").unlink(missing_ok=True)
    rebuilt = publish(cli, root, pg_url)
    assert (rebuilt["written"], rebuilt["vectors_missing"]) == (False, 0)

    # Vectors the local index holds of another model than the store's are not published: the
    # repository's documents lose theirs, and its row names no model, in the same publish.
    conn = sqlite3.connect(root / ".docir" / "index.db")
    conn.execute("UPDATE embeddings SET model_id = 'another-model'")
    conn.commit()
    conn.close()
    monkeypatch.setenv("DOCIR_VECTORS", "off")  # and no vault to bring them back
    other = publish(cli, root, pg_url)
    assert (other["changed"], other["vectors_missing"], other["model"]) == (SAMPLE_DOCUMENTS - 1,
                                                                            SAMPLE_DOCUMENTS - 1, None)
    assert sql(pg_url, "SELECT count(*) FROM docir.documents WHERE vector IS NOT NULL") == [(0,)]
    assert sql(pg_url, "SELECT count(*) FROM docir.sections WHERE vector IS NOT NULL") == [(0,)]
    assert sql(pg_url, "SELECT model_id, dimension FROM docir.repos") == [(None, None)]
