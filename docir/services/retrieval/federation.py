"""Reading across stores: the four read commands fan out to peers; nothing else does.

Peers come from `.docir/stores.yaml` (read on every call, paths relative to
this store's home) plus `--store` for one call. Each is opened read-only at
the database; one that cannot be read is skipped with a warning. Ranked
results merge on `similarity`, never on `score`: RRF scores rank within one
store, so comparing two stores' scores compares the sizes of their corpora.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from docir.index.records import Filters
from docir.services.indexing.session import PeerUnreadable, Session, open_peer
from docir.services.retrieval import store_reads as reads
from docir.services.retrieval.need import Need, embedded_texts, needs_of
from docir.services.retrieval.results import ContextResult, ContextRow, Fetched, GetResult, SearchHit, Skeleton
from docir.store import STATE_DIR, Store

if TYPE_CHECKING:  # the model's side: only context needs it (cold start, adr-d5e80517405b)
    from docir.embed.protocol import Vectors
    from docir.services.vectors.query_source import QuerySource

LOCAL = "."
STORES_FILE = "stores.yaml"
Warn = Callable[[str], None]


class Peer(NamedTuple):
    label: str  # how rows name it in `store`: the path as the user wrote it
    session: Session


def peer_homes(local: Store, extra: list[Path], warn: Warn) -> list[tuple[str, Path]]:
    """(label, home) of every peer: stores.yaml first, then --store; this store and repeats left out."""
    listed: list[tuple[str, Path]] = []
    config = local.root / STATE_DIR / STORES_FILE
    if config.is_file():
        from docir import yamltext  # yaml only for a store that lists peers (cold start, adr-d5e80517405b)

        try:
            data = yamltext.load(config.read_text(encoding="utf-8")) or {}
        except (yamltext.YamlProblem, OSError, UnicodeDecodeError) as exc:
            warn(f"{STATE_DIR}/{STORES_FILE} is unreadable ({exc}); no peers from it")
            data = {}
        entries = data.get("stores", []) if isinstance(data, dict) else []
        for entry in entries if isinstance(entries, list) else []:
            path = entry.get("path") if isinstance(entry, dict) else entry
            if isinstance(path, str) and path.strip():
                listed.append((path, (local.root / Path(path).expanduser()).resolve()))
            else:
                warn(f"{STATE_DIR}/{STORES_FILE}: ignoring entry {entry!r} (expected a folder path)")
    for path in extra:
        listed.append((str(path), (Path.cwd() / path.expanduser()).resolve()))
    seen = {local.root.resolve()}
    homes = []
    for label, home in listed:
        if home not in seen:
            seen.add(home)
            homes.append((label, home))
    return homes


def open_peers(local: Store, extra: list[Path], warn: Warn) -> list[Peer]:
    peers = []
    for label, home in peer_homes(local, extra, warn):
        try:
            peers.append(Peer(label, open_peer(home)))
        except PeerUnreadable as exc:
            warn(f"peer store {label} skipped: {exc}")
    return peers


T = TypeVar("T")


@contextmanager
def peers_open(session: Session, extra: list[Path] | None, warn: Warn) -> Iterator[list[Peer]]:
    """The peers of one federated read, open; closed, their warnings said, whatever happens."""
    peers = open_peers(session.store, list(extra or []), warn)
    try:
        yield peers
    finally:
        for peer in peers:
            for message in peer.session.warnings:
                warn(f"{peer.label}: {message}")
            peer.session.close()


def with_peers(session: Session, extra: list[Path] | None, warn: Warn, read: Callable[[list[Peer]], T]) -> T:
    """Run one federated read with the peers open, and close them whatever happens."""
    with peers_open(session, extra, warn) as peers:
        return read(peers)


# Every kind of row a federated read returns; each carries an optional `store`.
Row = TypeVar("Row", Skeleton, SearchHit, ContextRow, Fetched)


def tag(rows: list[Row], label: str) -> list[Row]:
    for row in rows:
        row["store"] = label
    return rows


def merge_by_similarity(groups: list[list[ContextRow]], limit: int) -> list[ContextRow]:
    """Ranked rows of several stores ordered by similarity, the one number comparable across stores.

    Rows with no similarity (a store searched lexically) cannot be placed on that scale:
    each such store takes turns with the similarity-ordered list. Linked rows come after.
    """
    ranked = [row for rows in groups for row in rows if row.get("via") is None]
    expanded = [row for rows in groups for row in rows if row.get("via") is not None]
    scored = sorted(
        (row for row in ranked if row.get("similarity") is not None), key=_similarity
    )
    unscored = [[row for row in rows if row.get("via") is None and row.get("similarity") is None] for rows in groups]
    return take_turns([scored, *[rows for rows in unscored if rows]], limit) + expanded


def _similarity(row: ContextRow) -> float:
    """Descending similarity; merging happens before budget.py compacts linked rows, which carry none."""
    found = row.get("similarity")
    return -found if isinstance(found, float) else 0.0


def take_turns(groups: list[list[Row]], limit: int) -> list[Row]:
    """Rows of several stores in turn, each store's best first: for rankings with no comparable number."""
    merged: list[Row] = []
    for position in range(max((len(g) for g in groups), default=0)):
        for rows in groups:
            if position < len(rows) and len(merged) < limit:
                merged.append(rows[position])
    return merged


# --- the four federated reads ---------------------------------------------------------------


def get(session: Session, peers: list[Peer], ids: list[str], section: str | None) -> GetResult:
    """Local documents first; an id the local store lacks is looked up in each peer in turn."""
    result = reads.get(session, ids, section)
    if not peers:
        return result
    tag(result.documents, LOCAL)
    for peer in peers:
        if not result.missing:
            break
        found = reads.get(peer.session, result.missing, section)
        result.documents.extend(tag(found.documents, peer.label))
        result.no_section.extend(found.no_section)
        result.missing = found.missing
    order = {doc_id: n for n, doc_id in enumerate(dict.fromkeys(ids))}
    result.documents.sort(key=lambda doc: order.get(doc["id"], len(order)))
    return result


def query(
    session: Session, peers: list[Peer], filters: Filters, *, stale: bool | None, include_inactive: bool, limit: int
) -> list[Skeleton]:
    rows = reads.query(session, filters, stale=stale, include_inactive=include_inactive, limit=limit)
    if not peers:
        return rows
    merged = tag(rows, LOCAL)
    for peer in peers:
        if len(merged) >= limit:
            break
        found = reads.query(
            peer.session, filters, stale=stale, include_inactive=include_inactive, limit=limit - len(merged)
        )
        merged.extend(tag(found, peer.label))
    return merged


def context(
    session: Session,
    peers: list[Peer],
    queries: Sequence[Need | str],
    source: QuerySource,
    *,
    limit: int,
    expand: bool,
    explain: bool,
    include_inactive: bool,
    refs: bool = True,
) -> ContextResult:
    """Each store ranks with its own fusion; the union is ordered by similarity."""
    from docir.services.retrieval import ranking  # numpy: only the command that ranks by vectors pays for it
    from docir.services.vectors.query_source import NoModel

    if not peers:
        return ranking.context(
            session,
            queries,
            source,
            limit=limit,
            expand=expand,
            explain=explain,
            include_inactive=include_inactive,
            refs=refs,
        )
    # One query embedding per model, shared by every store that used the same model.
    queries = needs_of(queries)
    texts = [text for _, _, text in embedded_texts(queries)]
    shared = Precomputed(source.model_id, source.embed(texts) if source.model_id else None, source.status)
    local = ranking.context(
        session,
        queries,
        shared,
        limit=limit,
        expand=expand,
        explain=explain,
        include_inactive=include_inactive,
        refs=refs,
    )
    groups = [tag(local.results, LOCAL)]
    for peer in peers:
        models = peer.session.catalog.vectors.model_ids()
        peer_source: QuerySource = shared
        if shared.model_id is None or (models and shared.model_id not in models):
            reason = f"its vectors are from {', '.join(models)}" if models else "no model here"
            peer_source = NoModel(reason)
            if shared.model_id is not None:
                session.warnings.append(f"peer store {peer.label} searched lexically: {reason}, not {shared.model_id}")
        found = ranking.context(
            peer.session,
            queries,
            peer_source,
            limit=limit,
            expand=expand,
            explain=explain,
            include_inactive=include_inactive,
            refs=False,
        )  # a peer's own corpora stay its own
        groups.append(tag(found.results, peer.label))
    return ContextResult(merge_by_similarity(groups, limit), local.semantic, queries, pending=local.pending,
                         sections_pending=local.sections_pending)


class Precomputed(NamedTuple):
    """Query vectors computed once and handed to every store that shares the model."""

    model: str | None
    vectors: Vectors | None
    state: str

    @property
    def status(self) -> str:
        return self.state

    @property
    def model_id(self) -> str | None:
        return self.model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self.vectors is None:
            raise RuntimeError("no embedding model")
        return self.vectors
