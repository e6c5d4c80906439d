"""A section whose body another document says word for word gets no vector, and gets one back when
it is no longer shared; the model sees only what is new (adr-5d1c0a7e94b2)."""

from __future__ import annotations

from pathlib import Path

from docir.services.indexing.session import Session, open_session
from docir.services.vectors import embedding
from docir.services.writing import store_writes as writes
from tests.caller import caller, settings
from tests.conftest import UNDO_M008, as_written_at, remove_index
from tests.fakes import CountingEmbedder

STOCK = "No backward compatibility issues found."


def body(own: str, stock: str = STOCK) -> str:
    return f"## Motivation\n\n{own}\n\n## Backwards Compatibility\n\n{stock}\n"


def add(session: Session, title: str, text: str) -> tuple[str, Path]:
    result = writes.add(session, "decision", title=title, description=f"What {title} decides.", owner="@team",
                        body=text)
    return str(result["id"]), session.store.root / str(result["path"])


def chunks(session: Session, doc_id: str, model_id: str) -> dict[str, bool]:
    """Each chunk's section, and whether it is ranked (it has a vector in the matrix)."""
    rowid = session.catalog.docs.by_id(doc_id)[0][0]
    matrix = session.catalog.vectors.vector_set([model_id])
    ranked = set(zip(matrix.rowids, matrix.ordinals, strict=True))
    return {c.section: (rowid, o) in ranked for o, c in session.catalog.vectors.chunk_rows(rowid).items()}


def crumbs(fake: CountingEmbedder) -> list[str]:
    """The breadcrumb line of each section chunk that reached the model (a document's text has none)."""
    return sorted(line for line in (t.split("\n")[0] for t in fake.texts) if " > " in line)


def test_a_body_two_documents_say_gets_no_vector_and_gets_one_back_when_one_changes(store: Path) -> None:
    session = open_session(store, caller())
    fake = CountingEmbedder()
    gas, _ = add(session, "Gas", body("Price gas by the block."))
    blob, blob_path = add(session, "Blob", body("Carry blobs beside blocks."))
    embedding.drain(session.catalog, fake, settings())
    assert chunks(session, gas, fake.model_id) == {"Motivation": True, "Backwards Compatibility": False}
    assert chunks(session, blob, fake.model_id) == {"Motivation": True, "Backwards Compatibility": False}
    assert crumbs(fake) == ["Blob > Motivation", "Gas > Motivation"]  # the shared section's chunks never did

    # Blob says something of its own there now: Gas's section is no longer shared, and gets its vector.
    blob_path.write_text(blob_path.read_text().replace(STOCK, "Old blob readers must upgrade."))
    session.refresh()
    fake.texts.clear()
    embedding.drain(session.catalog, fake, settings())
    assert chunks(session, gas, fake.model_id) == {"Motivation": True, "Backwards Compatibility": True}
    assert chunks(session, blob, fake.model_id) == {"Motivation": True, "Backwards Compatibility": True}
    assert crumbs(fake) == ["Blob > Backwards Compatibility", "Gas > Backwards Compatibility"]
    session.close()


def test_a_new_document_saying_a_body_takes_the_first_ones_vector_away_without_the_model(store: Path) -> None:
    session = open_session(store, caller())
    fake = CountingEmbedder()
    gas, _ = add(session, "Gas", body("Price gas by the block."))
    embedding.drain(session.catalog, fake, settings())
    assert chunks(session, gas, fake.model_id) == {"Motivation": True, "Backwards Compatibility": True}
    fee, _ = add(session, "Fee", body("Burn the base fee."))
    fake.texts.clear()
    report = embedding.drain(session.catalog, fake, settings())
    assert chunks(session, gas, fake.model_id) == {"Motivation": True, "Backwards Compatibility": False}
    assert chunks(session, fee, fake.model_id) == {"Motivation": True, "Backwards Compatibility": False}
    # Fee's document text and its Motivation; Gas's rows were rewritten from what was there.
    assert report.texts_embedded == 2 and report.documents == 2
    assert session.catalog.vectors.queue_counts(fake.model_id) == (0, 2)

    # Archiving Fee gives Gas's section its vector back: found by hash, not embedded again.
    writes.archive(session, fee)
    fake.texts.clear()
    embedding.drain(session.catalog, fake, settings())
    assert chunks(session, gas, fake.model_id) == {"Motivation": True, "Backwards Compatibility": True}
    assert fake.texts == []
    session.close()


def test_a_shared_section_stays_out_after_the_index_is_rebuilt_from_the_vault(store: Path) -> None:
    session = open_session(store, caller())
    fake = CountingEmbedder()
    gas, _ = add(session, "Gas", body("Price gas by the block."))
    add(session, "Blob", body("Carry blobs beside blocks."))
    embedding.drain(session.catalog, fake, settings())
    session.close()
    remove_index(store / ".docir" / "index.db")
    session = open_session(store, caller())
    fake.texts.clear()
    report = embedding.drain(session.catalog, fake, settings())
    assert fake.texts == [] and report.texts_restored > 0
    assert chunks(session, gas, fake.model_id) == {"Motivation": True, "Backwards Compatibility": False}
    session.close()


def test_an_index_from_before_gains_body_keys_and_replans_with_no_model_call(store: Path) -> None:
    session = open_session(store, caller())
    fake = CountingEmbedder()
    gas, _ = add(session, "Gas", body("Price gas by the block.") + "\n## Notes\n\n### One\n\nA note.\n")
    add(session, "Blob", body("Carry blobs beside blocks."))
    embedding.drain(session.catalog, fake, settings())
    session.close()
    as_written_at(store / ".docir" / "index.db", 7, *UNDO_M008)
    session = open_session(store, caller())
    assert session.catalog.conn.execute("SELECT count(*) FROM sections WHERE body_key IS NULL AND path != '[]'"
                                        ).fetchone()[0] == 1  # `## Notes` says nothing of its own
    fake.texts.clear()
    embedding.drain(session.catalog, fake, settings())
    assert fake.texts == []
    assert chunks(session, gas, fake.model_id) == {"Motivation": True, "Backwards Compatibility": False,
                                                   "Notes": True, "One": True}
    session.close()
