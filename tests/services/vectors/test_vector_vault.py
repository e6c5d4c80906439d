"""The vector vault keeps every vector outside the index; an index is set aside only on proof of damage.

Vault: adr-ff14e9367673. Damage and the machine's refusals: issue-dae9d980f587.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from docir.index import db
from docir.index.vault import Vault
from docir.services.indexing.session import open_session
from docir.services.vectors import embedding
from tests.caller import caller, settings
from tests.conftest import remove_index
from tests.fakes import CountingEmbedder


def drained(root: Path, embedder: CountingEmbedder) -> embedding.DrainReport:
    session = open_session(root, caller())
    try:
        return embedding.drain(session.catalog, embedder, settings())
    finally:
        session.close()


def due(root: Path, model_id: str) -> int:
    session = open_session(root, caller())
    try:
        return session.catalog.vectors.queue_counts(model_id)[0]
    finally:
        session.close()


def test_a_deleted_index_gets_every_vector_back_without_the_model(sample_store: Path) -> None:
    first = CountingEmbedder()
    made = drained(sample_store, first)
    assert made.texts_embedded > 0 and first.texts
    remove_index(sample_store / ".docir" / "index.db")

    again = CountingEmbedder()
    report = drained(sample_store, again)

    assert again.texts == []  # no text reached the model
    assert report.documents == made.documents
    assert report.texts_restored > 0
    assert due(sample_store, again.model_id) == 0


def test_a_second_clone_on_the_machine_embeds_nothing(sample_store: Path, tmp_path: Path) -> None:
    drained(sample_store, CountingEmbedder())
    clone = tmp_path / "clone"
    shutil.copytree(sample_store, clone, ignore=shutil.ignore_patterns(".docir"))

    model = CountingEmbedder()
    drained(clone, model)

    assert model.texts == []
    assert due(clone, model.model_id) == 0


def test_only_texts_never_embedded_reach_the_model(sample_store: Path) -> None:
    drained(sample_store, CountingEmbedder())
    remove_index(sample_store / ".docir" / "index.db")
    path = next((sample_store / "docs").rglob("slow-invoice-export.md"))
    path.write_text(path.read_text(encoding="utf-8") + "\n## Retries\n\nBack off on a timeout.\n", encoding="utf-8")

    model = CountingEmbedder()
    drained(sample_store, model)

    # The edited document's own text and its new or changed sections; nothing of the others.
    assert model.texts and all("invoice" in text.lower() or "Retries" in text for text in model.texts)


def test_vectors_of_another_model_never_serve(sample_store: Path) -> None:
    drained(sample_store, CountingEmbedder(model_id="fake@one"))
    remove_index(sample_store / ".docir" / "index.db")
    other = CountingEmbedder(model_id="fake@two")
    drained(sample_store, other)
    assert other.texts  # the vault holds fake@one's vectors only


def test_an_index_made_before_the_vault_seeds_it(sample_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCIR_VECTORS", "off")
    drained(sample_store, CountingEmbedder())
    monkeypatch.setenv("DOCIR_VECTORS", str(sample_store.parent / "vault.db"))
    drained(sample_store, CountingEmbedder())  # nothing due: it only copies the index's vectors into the vault
    remove_index(sample_store / ".docir" / "index.db")

    model = CountingEmbedder()
    drained(sample_store, model)

    assert model.texts == []


def test_the_vault_evicts_least_recently_used_vectors_past_its_cap(tmp_path: Path) -> None:
    vault = Vault(tmp_path / "vault.db", cap=1024 * 1024)
    blob = os.urandom(1536)
    for batch in range(12):  # 12 x 100 x 1.5 KB: past the 1 MB cap
        vault.put_vectors("m", [(f"{batch:04d}{i:060d}", blob) for i in range(100)])
        with sqlite3.connect(tmp_path / "vault.db") as conn:  # each batch used a day later than the last
            conn.execute("UPDATE vectors SET used = ? WHERE text_sha LIKE ?", (batch * 86_400, f"{batch:04d}%"))
    kept = vault.vectors("m", [f"{b:04d}{i:060d}" for b in range(12) for i in range(100)])
    vault.close()

    assert 0 < len(kept) < 1200
    assert f"{11:04d}{0:060d}" in kept  # the newest batch stays
    assert f"{0:04d}{0:060d}" not in kept  # the oldest went first
    with sqlite3.connect(tmp_path / "vault.db") as conn:
        pages, free, size = conn.execute("SELECT * FROM pragma_page_count(), pragma_freelist_count(),"
                                         " pragma_page_size()").fetchone()
    assert (pages - free) * size <= 1024 * 1024


def test_a_vault_that_cannot_be_written_turns_off_and_embedding_goes_on(sample_store: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = sample_store.parent / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("DOCIR_VECTORS", str(blocker / "vault.db"))
    model = CountingEmbedder()
    report = drained(sample_store, model)
    assert report.texts_embedded == len(model.texts) > 0
    assert due(sample_store, model.model_id) == 0
    vault = Vault.default(settings())
    assert vault.summary()["off"]


# --- an index is damaged only on SQLite's word ----------------------------------------------------------------


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_injected_io_error_at_open_is_retried_and_never_deletes(sample_store: Path, cli,  # type: ignore[no-untyped-def]
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("reindex", "--root", str(sample_store)).code == 0
    index = sample_store / ".docir" / "index.db"
    before = (os.stat(index).st_ino, _digest(index))
    real = db._open
    failures = iter([True])

    def flaky(path: Path) -> sqlite3.Connection:
        if next(failures, False):
            error = sqlite3.OperationalError("disk I/O error")
            error.sqlite_errorcode = 10  # type: ignore[attr-defined]  # SQLITE_IOERR
            raise error
        return real(path)

    monkeypatch.setattr(db, "_open", flaky)
    result = cli("search", "sessions", "--root", str(sample_store))

    assert result.code == 0, result.err
    assert result.err == ""
    assert (os.stat(index).st_ino, _digest(index)) == before
    assert list(index.parent.glob("index.db.damaged-*")) == []


def test_a_lasting_io_error_is_one_line_exit_2_and_the_index_stays(sample_store: Path, cli,  # type: ignore[no-untyped-def]
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("reindex", "--root", str(sample_store)).code == 0
    index = sample_store / ".docir" / "index.db"
    before = (os.stat(index).st_ino, _digest(index))

    def broken(path: Path) -> sqlite3.Connection:
        error = sqlite3.OperationalError("disk I/O error")
        error.sqlite_errorcode = 266  # type: ignore[attr-defined]  # SQLITE_IOERR_READ
        raise error

    monkeypatch.setattr(db, "_open", broken)
    result = cli("search", "sessions", "--root", str(sample_store))

    assert result.code == 2
    assert result.err.count("\n") == 1 and "disk I/O error" in result.err and str(index) in result.err
    assert "internal error" not in result.err
    assert (os.stat(index).st_ino, _digest(index)) == before
    assert list(index.parent.glob("index.db.damaged-*")) == []


def test_a_damaged_index_is_set_aside_and_the_last_two_are_kept(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    index = sample_store / ".docir" / "index.db"
    for round_ in range(3):
        assert cli("reindex", "--root", str(sample_store)).code == 0
        for suffix in ("-wal", "-shm"):
            Path(f"{index}{suffix}").unlink(missing_ok=True)
        index.write_bytes(b"garbage " * 1000 + bytes([round_]))

        result = cli("query", "--root", str(sample_store))

        assert result.code == 0, result.err
        assert "moved it to .docir/index.db.damaged-" in result.err and result.err.count("\n") == 1
    kept = sorted(index.parent.glob("index.db.damaged-*"))
    assert len(kept) == 2
    assert {p.read_bytes()[-1] for p in kept} == {1, 2}  # the newest two


_HOLD_AND_OPEN = """
import sqlite3, sys
from pathlib import Path
from docir.index.db import open_index
path = Path(sys.argv[1])
holder = open_index(path)          # like the drain: a connection that stays open, a read under way
holder.execute("BEGIN")
holder.execute("SELECT count(*) FROM documents").fetchone()
open_index(path).close()           # like a request opening the index beside it in the same process
print("ready", flush=True)
sys.stdin.readline()               # the other process closes its connection now
holder.execute("COMMIT")
holder.execute("INSERT INTO settings VALUES ('after', '1') ON CONFLICT(key) DO UPDATE SET value = '1'")
print("wrote", flush=True)
"""


def test_opening_the_index_beside_a_live_connection_keeps_its_locks(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The cause of "disk I/O error" inside a draining worker (issue-dae9d980f587): reading the file's
    header with open()/close() dropped the POSIX locks of every SQLite connection of the process, so
    another process closing its connection took itself for the last one and removed the WAL under them."""
    assert cli("reindex", "--root", str(sample_store)).code == 0
    index = sample_store / ".docir" / "index.db"
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_AND_OPEN, str(index)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline().strip() == "ready", holder.stderr.read() if holder.stderr else ""

    other = sqlite3.connect(index)  # another process's connection: a hook, a cold command
    other.execute("SELECT count(*) FROM documents").fetchone()
    other.close()  # the last connection out checkpoints and deletes the WAL: it must see it is not the last

    assert Path(f"{index}-wal").exists()
    holder.stdin.write("go\n")
    holder.stdin.flush()
    out, err = holder.communicate(timeout=60)
    assert holder.returncode == 0, err
    assert "wrote" in out


def test_a_clone_imports_the_file_its_schema_names_before_it_embeds(sample_store: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from docir.services.vectors import flush, transfer

    made = CountingEmbedder()
    drained(sample_store, made)
    session = open_session(sample_store, caller())
    try:
        transfer.export_vectors(session, tmp_path / "team.docirvec", "float32",
                                transfer.StoreModel(made.model_id, made.max_tokens))
    finally:
        session.close()
    clone = tmp_path / "clone"
    shutil.copytree(sample_store, clone, ignore=shutil.ignore_patterns(".docir"))
    schema = clone / "docs-schema.yaml"
    schema.write_text(schema.read_text(encoding="utf-8").replace(
        "  model_path: null", "  vectors_from: ../team.docirvec\n  model_path: null"), encoding="utf-8")
    monkeypatch.setenv("DOCIR_VECTORS", str(tmp_path / "another-machine" / "vectors.db"))

    model = CountingEmbedder()
    session = open_session(clone, caller())
    try:
        report = flush.drain_due(session, model)
    finally:
        session.close()

    assert model.texts == []
    assert report["texts_embedded"] == 0
    assert due(clone, model.model_id) == 0


def test_an_export_of_the_model_as_shipped_answers_then_is_made_again(sample_store: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A vector file made before the packaged model was built (adr-5b1e0c7d2a94) still imports: its
    vectors answer at once, and the drain makes every one again with the built model."""
    from docir.embed.model_ids import BUILD, OFFLINE_MODEL, answers_with
    from docir.services.vectors import transfer

    shipped, built = CountingEmbedder(f"{OFFLINE_MODEL}@int8-w256"), CountingEmbedder(f"{OFFLINE_MODEL}@{BUILD}-w256")
    drained(sample_store, shipped)
    session = open_session(sample_store, caller())
    try:
        transfer.export_vectors(session, tmp_path / "before.docirvec", "float32",
                                transfer.StoreModel(shipped.model_id, 256))
        documents = session.catalog.vectors.queue_counts(shipped.model_id)[1]
    finally:
        session.close()
    clone = tmp_path / "clone"
    shutil.copytree(sample_store, clone, ignore=shutil.ignore_patterns(".docir"))
    monkeypatch.setenv("DOCIR_VECTORS", str(tmp_path / "another-machine" / "vectors.db"))
    now = transfer.StoreModel(built.model_id, 256)

    session = open_session(clone, caller())
    try:
        report = transfer.import_into(session.catalog, session.store.lock_path, now, tmp_path / "before.docirvec",
                                      settings())
        answering = session.catalog.vectors.vector_set(answers_with(built.model_id))
        assert session.catalog.vectors.vector_set([built.model_id]).rowids == []
    finally:
        session.close()
    assert report["documents_restored"] == documents > 0
    assert report["due"] == documents  # every one is still due the built model's vectors
    assert len(set(answering.rowids)) == documents  # ... and answers with the shipped one's meanwhile

    drained(clone, built)
    assert built.texts and due(clone, built.model_id) == 0
    session = open_session(clone, caller())
    try:
        again = transfer.import_into(session.catalog, session.store.lock_path, now, tmp_path / "before.docirvec",
                                     settings())
        made_again = session.catalog.vectors.vector_set([built.model_id])
    finally:
        session.close()
    assert again["documents_restored"] == 0 and again["due"] == 0  # the built model's vectors are never replaced
    assert len(set(made_again.rowids)) == documents


def test_a_file_of_an_unrelated_model_is_still_refused(sample_store: Path, tmp_path: Path) -> None:
    from docir.errors import InputError
    from docir.services.vectors import transfer

    other = CountingEmbedder("BAAI/bge-small-en-v1.5@local-w256")
    drained(sample_store, other)
    session = open_session(sample_store, caller())
    try:
        transfer.export_vectors(session, tmp_path / "other.docirvec", "float32",
                                transfer.StoreModel(other.model_id, 256))
        with pytest.raises(InputError, match="never mixed"):
            transfer.import_into(session.catalog, session.store.lock_path,
                                 transfer.StoreModel("sentence-transformers/all-MiniLM-L6-v2@int8pc1-w256", 256),
                                 tmp_path / "other.docirvec", settings())
    finally:
        session.close()
