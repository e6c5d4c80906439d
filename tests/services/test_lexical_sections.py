"""The lexical side ranks heading sections one by one, and an old index gains them without re-embedding."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from docir.services.indexing.session import open_session
from docir.services.retrieval import lexical, ranking
from docir.services.retrieval.visibility import Visibility
from docir.services.vectors.query_source import NoModel
from tests.conftest import FIXTURES

LONG_GUIDE = "guide-5e5510000013"  # nine sections; the weekend rota is the last of them
NO_MODEL = NoModel("not needed here")


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    shutil.copytree(FIXTURES / "stores" / "semantic", root)
    return root


def test_a_long_documents_last_section_wins_lexically_and_is_the_matched_section(tmp_path: Path) -> None:
    session = open_session(_store(tmp_path))
    result = ranking.context(session, ["weekend roster swaps when the primary does not acknowledge"], NO_MODEL,
                             limit=3, expand=False, explain=True, mode="lexical")
    top = result.results[0]
    assert top["id"] == LONG_GUIDE
    assert top["matched_section"] == "Weekend paging rotation"  # from the lexical side: there are no vectors
    assert top["matched_section_size"]["tokens"] < top["size"]["tokens"] // 5
    sections = top["explain"]["rankings"]["sections"]
    assert sections["rank"] == 1 and sections["bm25"] > 0 and sections["z"] > 0
    assert sections["section"] == "Weekend paging rotation"
    assert top["explain"]["contributions"]["vector"] == 0.0
    session.close()


def test_search_finds_a_document_by_words_only_its_description_and_tags_have(tmp_path: Path) -> None:
    root = _store(tmp_path)
    (root / "docs" / "described.md").write_text(
        "---\nid: guide-00000000aa03\ntype: guide\ntitle: Rota notes\n"
        "description: Who answers the pager during the zanzibar offsite.\ntags: [quokka]\n"
        "status: current\nowner: '@t'\n---\n\n## Notes\n\nNothing here names the trip.\n\n## More\n\nStill not.\n")
    session = open_session(root)
    visibility = Visibility.from_schema(session.schema)
    for word in ("zanzibar", "quokka"):
        (found,) = lexical.rank_documents(session, word, visibility)
        assert session.catalog.docs.listings_by_rowid([found.rowid])[found.rowid].id == "guide-00000000aa03"
    session.close()


def test_near_ranking_prefers_the_task_words_standing_together(tmp_path: Path) -> None:
    root = _store(tmp_path)
    together = root / "docs" / "together.md"
    apart = root / "docs" / "apart.md"
    front = "---\nid: {id}\ntype: guide\ntitle: {title}\ndescription: A guide about something else entirely.\n" \
            "status: current\nowner: '@t'\n---\n\n"
    together.write_text(front.format(id="guide-00000000aa01", title="Notes one")
                        + "## Notes\n\nThe priority fee goes to the proposer. Other words fill the rest.\n")
    apart.write_text(front.format(id="guide-00000000aa02", title="Notes two")
                     + "## Notes\n\nThe fee is set here. " + "filler " * 40 + "Priority is another matter.\n")
    session = open_session(root)
    found = lexical.rank_documents(session, "priority fee", Visibility.from_schema(session.schema))
    ids = [session.catalog.docs.listings_by_rowid([c.rowid])[c.rowid].id for c in found]
    assert ids.index("guide-00000000aa01") < ids.index("guide-00000000aa02")
    near = {i: c.near for i, c in zip(ids, found, strict=True)}
    assert near["guide-00000000aa01"] is not None and near["guide-00000000aa02"] is None
    session.close()


def test_an_index_from_before_sections_gains_them_on_the_next_command_without_new_vectors(tmp_path: Path) -> None:
    from docir.services.vectors import embedding
    from tests.fakes import CountingEmbedder

    root = _store(tmp_path)
    session = open_session(root)
    fake = CountingEmbedder()
    embedding.drain(session.catalog, fake)
    documents = session.catalog.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    session.close()
    conn = sqlite3.connect(root / ".docir" / "index.db")
    conn.isolation_level = None
    conn.execute("DROP TABLE sections_fts")
    conn.execute("DROP TABLE sections")
    conn.execute("PRAGMA user_version = 4")  # what an index written before sections existed says
    conn.close()

    session = open_session(root)
    assert session.catalog.conn.execute("SELECT count(DISTINCT doc) FROM sections").fetchone()[0] == documents
    assert session.catalog.vectors.queue_counts(fake.model_id)[0] == 0  # text unchanged: no vector is due
    assert session.last_sync is not None and session.last_sync.updated == documents
    session.close()
