"""The organisation store ranks like a local index: each full-text list, and `search`, on a real corpus slice.

The committed EIP slice (benchmarks/quality/eips_slice: 79 long proposals, real words) is indexed
locally and published; then every CI query of its judged set is asked of both. The lists are the same
documents with the same numbers, and `search` over them the same order (services/retrieval/lexical.py's
`candidates`, one rule for both stores).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.caller import caller, settings
from tests.conftest import REPO

pytest.importorskip("psycopg")

SLICE = REPO / "benchmarks" / "quality" / "eips_slice"
QUERIES = REPO / "benchmarks" / "quality" / "eips_queries.yaml"
SKETCHES = REPO / "benchmarks" / "quality" / "sketches.yaml"
REPO_NAME = "ethereum/eips"


def _tasks() -> list[str]:
    found = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["queries"]
    return [str(q["query"]) for q in found if q.get("ci")]


@pytest.fixture
def published(cli: Any, pg_url: str, tmp_path: Path) -> Iterator[tuple[Any, Any, Any]]:
    """The slice's local session, a reader's session, and the organisation store holding the slice."""
    with _slice_published(cli, pg_url, tmp_path) as (local, theirs, peer):
        yield local, theirs, peer


@contextmanager
def _slice_published(cli: Any, pg_url: str, tmp_path: Path, *publish: str) -> Iterator[tuple[Any, Any, Any]]:
    """The slice published (`publish`: more of publish's words), open: its local session, the session of an
    empty store that reads the organisation store, and that store."""
    from docir.org.address import parse
    from docir.org.peer import OrgPeer
    from docir.services.indexing.session import open_session

    root, reader = tmp_path / "eips", tmp_path / "reader"
    shutil.copytree(SLICE, root)
    assert cli("init", "--root", str(reader)).code == 0
    done = cli("publish", pg_url, "--as", REPO_NAME, "--root", str(root), "--json", *publish)
    assert done.code == 0, done.err
    local, theirs = open_session(root, caller()), open_session(reader, caller())
    peer = OrgPeer.open(parse(pg_url, committed=False, repos=(REPO_NAME,)), settings())
    try:
        yield local, theirs, peer
    finally:
        peer.close()
        theirs.close()
        local.close()


def _model(local: Any) -> Any:
    """The real model, as the local store resolves it."""
    from docir.services.vectors.query_source import load_local

    source = load_local(local.caller, local.schema.model_path, local.store.root)
    assert source.model_id is not None, source.status
    return source


def test_every_list_and_search_rank_the_published_slice_as_the_local_index(published: tuple[Any, Any, Any]) -> None:
    from docir.index.fts import CANDIDATES
    from docir.org import ranking_sql
    from docir.services.retrieval import lexical, org_reads, store_reads
    from docir.services.retrieval.visibility import Visibility

    local, reader, peer = published
    tasks = _tasks()
    assert len(tasks) >= 10
    ids = {state.rowid: state.id for state in local.catalog.docs.states()}
    visibility = Visibility.from_schema(local.schema)
    differ = []
    for task in tasks:
        mine = lexical.rank_documents(local, task, visibility)
        by_section = sorted((c for c in mine if c.section), key=lambda c: c.section.rank)  # type: ignore[union-attr]
        by_near = sorted((c for c in mine if c.near), key=lambda c: c.near.rank)  # type: ignore[union-attr]
        sections = ranking_sql.lexical_sections(peer, peer.names, task, include_inactive=False, limit=CANDIDATES)
        pairs = ranking_sql.lexical_pairs(peer, peer.names, task, include_inactive=False, limit=CANDIDATES)
        if [r.id for r in sections] != [ids[c.rowid] for c in by_section] or \
                [r.raw for r in sections] != pytest.approx([c.section.raw for c in by_section]):  # type: ignore[union-attr]
            differ.append(f"sections of {task!r}: local {[ids[c.rowid] for c in by_section]}, "
                          f"published {[r.id for r in sections]}")
        if [r.id for r in pairs] != [ids[c.rowid] for c in by_near] or \
                [r.raw for r in pairs] != pytest.approx([c.near.raw for c in by_near]):  # type: ignore[union-attr]
            differ.append(f"pairs of {task!r}: local {[(ids[c.rowid], round(c.near.raw, 4)) for c in by_near]}, "  # type: ignore[union-attr]
                          f"published {[(r.id, round(r.raw, 4)) for r in pairs]}")
        here = [(hit["id"], hit["fts_score"]) for hit in store_reads.search(local, task, limit=10)]
        there = [(hit["id"], hit["fts_score"])
                 for hit in org_reads.search(reader, peer, task, include_inactive=False, limit=10)]
        if [i for i, _ in there] != [i for i, _ in here] or \
                [s for _, s in there] != pytest.approx([s for _, s in here], abs=1e-3):
            differ.append(f"search of {task!r}: local {here}, published {there}")
    assert differ == [], "\n".join(differ)


def test_a_big_store_reads_a_sketch_without_its_common_words_as_the_local_index_does(
        published: tuple[Any, Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Past GATE_FROM_SECTIONS (forced here on both sides), a sketch's lists leave out the words a quarter of
    the documents or more hold (need.LEAVES_COMMON): in the organisation store as in the local index, the
    same documents with the same numbers and coverage, for every CI query's sketch."""
    from docir.index.fts import CANDIDATES
    from docir.org import ranking_sql
    from docir.services.retrieval import lexical
    from docir.services.retrieval.visibility import Visibility

    local, _, peer = published
    monkeypatch.setattr(lexical, "GATE_FROM_SECTIONS", 0)
    monkeypatch.setattr(ranking_sql, "GATE_FROM_SECTIONS", 0)
    sketches = yaml.safe_load(SKETCHES.read_text(encoding="utf-8"))["sketches"]
    found = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["queries"]
    texts = [str(sketches[q["id"]]) for q in found if q.get("ci") and sketches.get(q["id"])]
    assert len(texts) >= 10
    ids = {state.rowid: state.id for state in local.catalog.docs.states()}
    visibility = Visibility.from_schema(local.schema)
    differ, left_out, changed = [], 0, 0
    for text in texts:
        form = lexical.LexicalLists(local, text, visibility, leave_common=True)
        left_out += bool(form.common)
        mine = form.ranked(local, form.sections(local), form.pairs(local))
        coverage = {ids[c.rowid]: c.coverage for c in mine}
        for name in ("sections", "pairs"):
            ranked = getattr(ranking_sql, f"lexical_{name}")
            rows = ranked(peer, peer.names, text, include_inactive=False, limit=CANDIDATES, leave_common=True)
            changed += rows != ranked(peer, peer.names, text, include_inactive=False, limit=CANDIDATES)
            standing = "section" if name == "sections" else "near"
            here = sorted((c for c in mine if getattr(c, standing)), key=lambda c: getattr(c, standing).rank)
            if [r.id for r in rows] != [ids[c.rowid] for c in here] or \
                    [r.raw for r in rows] != pytest.approx([getattr(c, standing).raw for c in here]) or \
                    [r.coverage for r in rows] != pytest.approx([coverage[r.id] for r in rows]):
                differ.append(f"{name} of {text!r}: local {[ids[c.rowid] for c in here]}, "
                              f"published {[r.id for r in rows]}")
    assert differ == [], "\n".join(differ)
    assert left_out >= len(texts) // 2 and changed >= len(texts) // 2  # the lists do leave words out


def test_context_reads_a_sketch_of_the_organisation_store_leaving_its_common_words_out_and_a_task_whole(
        published: tuple[Any, Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """`context` asks each list of a sketch with its common words left out (need.LEAVES_COMMON), of a task
    with every word: the rule above is the one a context takes."""
    from docir.org import ranking_sql
    from docir.services.retrieval import org_ranking
    from docir.services.retrieval.need import Need

    _, reader, peer = published
    task, sketch = _tasks()[0], "the base fee per gas is burned and the priority fee goes to the block producer"
    asked: list[tuple[str, str, bool]] = []
    for name in ("lexical_sections", "lexical_pairs"):
        read = getattr(ranking_sql, name)

        def recorded(*args: Any, _read: Any = read, _name: str = name, **kwargs: Any) -> Any:
            asked.append((_name, args[2], kwargs.get("leave_common", False)))
            return _read(*args, **kwargs)

        monkeypatch.setattr(ranking_sql, name, recorded)
    org_ranking.context(reader, peer, [Need(task, sketch)], {}, None, limit=5, expand=False, explain=False,
                        include_inactive=False)
    assert sorted(asked) == sorted((name, text, text == sketch) for name in ("lexical_sections", "lexical_pairs")
                                   for text in (task, sketch))


def _floors_left_out(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """A big store's lists, forced on the small slice (the gate, seeds of 2 x k), and for each floor a
    list reached, whether it left documents out (bounds.reaching found a narrower tsquery)."""
    from docir.org import bounds, ranking_sql

    monkeypatch.setattr(ranking_sql, "GATE_FROM_SECTIONS", 0)
    monkeypatch.setattr(ranking_sql, "SEED_ROWS", 2)
    left_out: list[bool] = []
    reaching = bounds.reaching

    def spied(units: Any, threshold: float) -> str | None:
        found = reaching(units, threshold)
        left_out.append(found is not None)
        return found

    monkeypatch.setattr(bounds, "reaching", spied)
    return left_out


def _pruned_differ(peer: Any, tasks: list[str], *lists: str) -> list[str]:
    """Each list of `lists` ("sections", "pairs") read past a floor and by every candidate, for each task
    at two lengths: a line for each that differs."""
    from docir.org import ranking_sql

    differ = []
    for task in tasks:
        for limit in (3, 10):
            for name in lists:
                ranked = getattr(ranking_sql, f"lexical_{name}")
                pruned = ranked(peer, peer.names, task, include_inactive=False, limit=limit)
                every = ranked(peer, peer.names, task, include_inactive=False, limit=limit, prune=False)
                if pruned != every:
                    differ.append(f"{name} of {task!r} ({limit}): {[r.id for r in every]} read past a floor "
                                  f"{[r.id for r in pruned]}")
    return differ


def test_the_lists_read_past_a_floor_are_the_lists_of_every_candidate(published: tuple[Any, Any, Any],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A big store's whole-document lists score only the documents that can still reach them
    (adr-f28942173e60): the same rows, in the same order, with the same numbers, as scoring every candidate.
    The slice is small, so the gate is forced on and the lists made short: then the floor leaves documents out.
    Every CI query's text and its sketch's (a poor sketch is another query's)."""
    from docir.org import ranking_sql

    _, _, peer = published
    left_out = _floors_left_out(monkeypatch)
    monkeypatch.setattr(ranking_sql, "SECTION_GATE", 8)
    # A sketch is one more form's text: every CI query's, so a poor sketch (another query's) is among them.
    sketches = yaml.safe_load(SKETCHES.read_text(encoding="utf-8"))["sketches"]
    found = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["queries"]
    sketched = [str(sketches[q["id"]]) for q in found if q.get("ci") and sketches.get(q["id"])]
    assert len(sketched) > 10
    differ = _pruned_differ(peer, _tasks() + sketched, "sections", "pairs")
    assert differ == [], "\n".join(differ)
    assert sum(left_out) >= 20, left_out  # the floor did leave documents out: the test compared something


def test_the_pairs_read_past_a_floor_the_first_near_pairs_set_are_the_pairs_of_every_candidate(
        published: tuple[Any, Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """When the seed's documents hold no pair near each other (a long query's rare words), the first
    documents holding any pair near set the floor (ranking_sql._pruned_pairs): the same list again."""
    from docir.org import ranking_sql

    _, _, peer = published
    left_out = _floors_left_out(monkeypatch)
    monkeypatch.setattr(ranking_sql, "_seed", lambda *args: "'notawordofthisslice'")  # a seed that finds none
    differ = _pruned_differ(peer, _tasks(), "pairs")
    assert differ == [], "\n".join(differ)
    assert sum(left_out) >= 10, left_out  # the first near pairs set floors that left documents out


@pytest.fixture(scope="module")
def slice_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One vector vault for this module's slices with vectors: the same texts through the same model, so
    the model embeds them once and each later publish takes them back from the vault. (Every other test
    has a vault of its own, conftest.py, so that what one embeds never spares another the model.)"""
    return tmp_path_factory.mktemp("slice-vault") / "vectors.db"


@pytest.fixture
def published_with_vectors(cli: Any, pg_url: str, tmp_path: Path, model_cache: Path, slice_vault: Path,
                           monkeypatch: pytest.MonkeyPatch,
                           request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any, Any]]:
    """The slice's local session, the organisation store holding it, with the real model's vectors, and
    the session of a store that reads it: its section vectors in the shared HNSW index, or, published
    as a big publish is, in an index of its own (adr-6c44f1cb3e41) when a test asks for "index of its own"."""
    from docir.services.publishing import publish

    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.setenv("DOCIR_VECTORS", str(slice_vault))
    own = getattr(request, "param", "shared index") == "index of its own"
    monkeypatch.setattr(publish, "BULK_VECTORS", 1 if own else 10**9)
    with _slice_published(cli, pg_url, tmp_path, "--wait-embeddings") as (local, theirs, peer):
        assert bool(peer.repos[0].vector_index) == own
        yield local, peer, theirs


@pytest.mark.parametrize("published_with_vectors", ["shared index", "index of its own"], indirect=True)
def test_the_vectors_list_of_the_published_slice_is_the_local_one(published_with_vectors: tuple[Any, Any, Any],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The nearest documents by their best vector (document or section) in a store this small are the local
    index's exact ranking of the same vectors: the same documents, in order, with the same cosines. Through
    the HNSW indexes (a bigger store), they are approximate, never at the head."""
    from docir.index.fts import CANDIDATES
    from docir.org import ranking_sql
    from docir.services.retrieval import local_ranking
    from docir.services.retrieval.visibility import Visibility

    local, peer, _ = published_with_vectors
    source = _model(local)
    vectors = local_ranking._cached_vectors(local, source.model_id, refs=False)
    ids = {state.rowid: state.id for state in local.catalog.docs.states()}
    visibility = Visibility.from_schema(local.schema)
    differ = []
    tasks = _tasks()
    for task, query in zip(tasks, source.embed(tasks), strict=True):
        mine = local_ranking._vector_ranking(local, vectors, query, visibility)
        near = ranking_sql.nearest(peer, peer.names, [float(x) for x in query], include_inactive=False,
                                   limit=CANDIDATES)
        # The winning row's numbering differs (a chunk ordinal here, a section's place there): not compared.
        here = [ids[c.key[1]] for c in mine]
        there = [row.id for row in near]
        cosines = {ids[c.key[1]]: float(c.similarity or 0.0) for c in mine}
        # Two documents within float rounding of each other (float32 here, float8 there) may trade places.
        tied = all(a == b or abs(cosines[a] - cosines.get(b, 2.0)) < 1e-5 for a, b in zip(here, there, strict=False))
        if sorted(there) != sorted(here) or not tied or \
                [r.similarity for r in near] != pytest.approx([c.similarity for c in mine], abs=1e-4):
            first = next((i for i, (a, b) in enumerate(zip(here, there, strict=False)) if a != b), len(here))
            differ.append(f"{task!r}: {len(here)} local, {len(there)} published, first differs at {first}: "
                          f"local {here[first:first + 3]}, published {there[first:first + 3]}")
    assert differ == [], "\n".join(differ)

    monkeypatch.setattr(ranking_sql, "EXACT_BELOW", -1)
    for task, query in zip(tasks, source.embed(tasks), strict=True):
        here = [ids[c.key[1]] for c in local_ranking._vector_ranking(local, vectors, query, visibility)]
        there = [row.id for row in ranking_sql.nearest(peer, peer.names, [float(x) for x in query],
                                                       include_inactive=False, limit=CANDIDATES)]
        assert set(there[:10]) == set(here[:10]), task
        assert len(set(there) & set(here)) >= 0.95 * len(here), task


def test_the_background_of_the_published_slice_is_the_local_one(published_with_vectors: tuple[Any, Any, Any]) -> None:
    """What a vector must stand out of: in a store no bigger than the sample, every document's best cosine, as
    the local index measures it; in a bigger one, the same documents' for every query, drawn by their ids."""
    from docir.index.vectors import cosine
    from docir.org import ranking_sql
    from docir.services.retrieval import local_ranking

    local, peer, _ = published_with_vectors
    source = _model(local)
    vectors = local_ranking._cached_vectors(local, source.model_id, refs=False)
    documents = len(set(vectors.docs.rowids))
    assert documents <= ranking_sql.BACKGROUND_SAMPLE
    drawn_sets = []
    for query in source.embed(_tasks()):
        mine = vectors.background(cosine(vectors.docs.matrix, query))
        theirs = ranking_sql.background(peer, peer.names, [float(x) for x in query])
        assert len(theirs) == mine.documents == documents
        assert sum(theirs.values()) == pytest.approx(mine.total, abs=1e-3)
        assert sum(x * x for x in theirs.values()) == pytest.approx(mine.squares, abs=1e-3)
        drawn = ranking_sql.background(peer, peer.names, [float(x) for x in query], sample=documents // 4)
        assert all(theirs[key] == value for key, value in drawn.items())
        drawn_sets.append(set(drawn))
    assert len({frozenset(keys) for keys in drawn_sets}) == 1, "the sample is the same documents for every query"
    assert documents // 8 <= len(drawn_sets[0]) <= documents // 2


def test_context_over_the_published_slice_is_the_local_context(published_with_vectors: tuple[Any, Any, Any]) -> None:
    """The organisation store ranks a published store's documents for `context` as that store's own index
    does: the same ten documents, in order, and the same fused scores, for every CI query, alone and with
    its sketch (the forms' gates are the same rule too)."""
    from docir.services.retrieval import local_ranking, org_ranking
    from docir.services.retrieval.need import Need, embedded_texts

    local, peer, reader = published_with_vectors
    source = _model(local)
    sketches = yaml.safe_load(SKETCHES.read_text(encoding="utf-8"))["sketches"]
    found = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["queries"]
    needs = [Need(str(q["query"])) for q in found if q.get("ci")]
    needs += [Need(str(q["query"]), str(sketches[q["id"]])) for q in found if q.get("ci") and sketches.get(q["id"])]
    assert len(needs) > len(_tasks()) + 10
    differ = []
    for need in needs:
        wanted = embedded_texts([need])
        vectors = {(index, form): vector
                   for (index, form, _), vector in zip(wanted, source.embed([t for _, _, t in wanted]), strict=True)}
        here = [(row["id"], row["score"])
                for row in local_ranking.context(local, [need], source, limit=10, expand=False).results]
        there = [(row["id"], row["score"])
                 for row in org_ranking.context(reader, peer, [need], vectors, source.model_id, limit=10, expand=False,
                                                explain=False, include_inactive=False)]
        if [i for i, _ in there] != [i for i, _ in here] or \
                [s for _, s in there] != pytest.approx([s for _, s in here], abs=2e-3):
            differ.append(f"{need!r}: local {here}, published {there}")
    assert differ == [], "\n".join(differ)
