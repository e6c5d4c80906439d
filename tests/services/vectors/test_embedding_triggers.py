"""When vectors are recomputed: only for what is embedded, never twice for the same text."""

from __future__ import annotations

from pathlib import Path

from docir.documents.model import EMBEDDED_FIELDS, text_sha
from docir.services.indexing.session import Session, open_session
from docir.services.vectors import embedding
from docir.services.writing import store_writes as writes
from tests.caller import caller, settings
from tests.fakes import CountingEmbedder

BODY = "## Context\n\nShared context paragraph.\n\n## Decision\n\nWe decide things.\n"


def make(store: Path) -> tuple[Session, str]:
    session = open_session(store, caller())
    result = writes.add(session, "decision", title="Pick a queue", description="Which message queue the platform uses.",
                        owner="@team", body=BODY)
    return session, str(result["id"])


def vectors_of(session: Session, doc_id: str, model_id: str) -> tuple[bytes | None, dict[int, str]]:
    rowid = session.catalog.docs.by_id(doc_id)[0][0]
    chunks = {o: c.vector_sha for o, c in session.catalog.vectors.chunk_rows(rowid).items()}
    rowids, blobs = session.catalog.vectors.document_vectors([model_id])  # what near-duplicate checks compare
    return dict(zip(rowids, blobs, strict=True)).get(rowid), chunks


def test_add_schedules_and_drain_writes_document_and_section_vectors(store: Path) -> None:
    session, doc_id = make(store)
    fake = CountingEmbedder()
    assert session.catalog.vectors.queue_counts(fake.model_id) == (1, 1)
    report = embedding.drain(session.catalog, fake, settings())
    assert report.documents == 1
    doc_vector, chunks = vectors_of(session, doc_id, fake.model_id)
    assert doc_vector is not None and len(doc_vector) == 16 * 4
    assert len(chunks) == 2
    assert session.catalog.vectors.queue_counts(fake.model_id) == (0, 1)
    # Each section chunk carries the title as its breadcrumb, inside the embedded text.
    assert any(t.startswith("Pick a queue > Context") for t in fake.texts)


def test_status_only_update_leaves_vectors_untouched(store: Path) -> None:
    session, doc_id = make(store)
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake, settings())
    before = vectors_of(session, doc_id, fake.model_id)
    for change in (writes.Changes(status="accepted"), writes.Changes(tags=("queues",)),
                   writes.Changes(owner="@other")):
        result = writes.update(session, doc_id, change)
        assert result["embedding"] == "unchanged"
        assert session.catalog.vectors.queue_counts(fake.model_id) == (0, 1)
    assert vectors_of(session, doc_id, fake.model_id) == before


def test_text_changes_schedule_and_only_new_text_reaches_the_model(store: Path) -> None:
    session, doc_id = make(store)
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake, settings())
    fake.texts.clear()
    result = writes.update(session, doc_id, writes.Changes(append_section=("Consequences", "Fewer outages.")))
    assert result["embedding"] == "scheduled"
    assert session.catalog.vectors.queue_counts(fake.model_id) == (1, 1)
    report = embedding.drain(session.catalog, fake, settings())
    # The document text and the new section are new; the two old sections are reused by hash.
    assert report.texts_embedded == 2
    assert report.texts_reused == 2


def test_identical_text_is_never_embedded_twice(store: Path) -> None:
    session, first = make(store)
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake, settings())
    # Same title and body under another path: every text is already known.
    path = store / "docs" / "decisions" / "copy.md"
    text = (store / session.catalog.docs.by_id(first)[0][1].path).read_text()
    path.write_text(text.replace(first, "adr-0123456789ab"))
    session.refresh()
    fake.texts.clear()
    report = embedding.drain(session.catalog, fake, settings())
    # The copy, and the original: every section of it is now said by two documents (adr-5d1c0a7e94b2).
    assert report.documents == 2
    assert fake.texts == []


def test_archive_removes_vectors_in_the_same_transaction(store: Path) -> None:
    session, doc_id = make(store)
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake, settings())
    writes.archive(session, doc_id)
    assert vectors_of(session, doc_id, fake.model_id) == (None, {})
    assert session.catalog.vectors.vector_set([fake.model_id]).rowids == []
    assert session.catalog.vectors.queue_counts(fake.model_id) == (0, 0)


def test_rows_of_another_model_count_as_dirty(store: Path) -> None:
    session, _ = make(store)
    embedding.drain(session.catalog, CountingEmbedder(model_id="old@test"), settings())
    newer = CountingEmbedder(model_id="new@test")
    assert session.catalog.vectors.queue_counts(newer.model_id) == (1, 1)
    assert embedding.drain(session.catalog, newer, settings()).documents == 1
    assert session.catalog.vectors.queue_counts(newer.model_id) == (0, 1)


def test_debounce_waits_for_a_quiet_document(store: Path) -> None:
    session, _ = make(store)
    fake = CountingEmbedder()
    assert embedding.drain(session.catalog, fake, settings(), debounce=60).documents == 0
    assert embedding.drain(session.catalog, fake, settings(), debounce=0).documents == 1


def test_full_reindex_reembeds_nothing_it_already_knows(store: Path) -> None:
    session, _ = make(store)
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake, settings())
    fake.texts.clear()
    with session.locked(), session.catalog.transaction():
        session.catalog.clear_all()
    session.refresh()
    assert embedding.drain(session.catalog, fake, settings()).documents == 1
    assert fake.texts == []


def test_the_text_embedded_is_the_text_whose_change_marks_a_document_due(store: Path) -> None:
    """One definition of a document's embedded text: the drain embeds exactly what text_sha hashes."""
    session, doc_id = make(store)
    fake = CountingEmbedder()
    (job,) = session.catalog.vectors.dirty_jobs(fake.model_id)
    embedding.drain(session.catalog, fake, settings())
    assert job.text_sha in {text_sha(t) for t in fake.texts}
    changes = {"title": writes.Changes(title="Pick a message queue"),
               "description": writes.Changes(description="Which message queue the platform runs on."),
               "body": writes.Changes(replace_body="## Decision\n\nRabbitMQ.\n")}
    assert set(changes) == set(EMBEDDED_FIELDS)
    for name, change in changes.items():
        result = writes.update(session, doc_id, change)
        assert result["embedding"] == "scheduled", name
        (job,) = session.catalog.vectors.dirty_jobs(fake.model_id)
        fake.texts.clear()
        embedding.drain(session.catalog, fake, settings())
        assert job.text_sha in {text_sha(t) for t in fake.texts}, name
