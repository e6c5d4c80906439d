"""Reading across stores: the four read commands fan out to peers; nothing else does.

Peers come from `.docir/stores.yaml` (read on every call, paths relative to
this store's home) plus `--store` for one call. Each is opened read-only at
the database; one that cannot be read is skipped with a warning. A peer may
also be the organisation store (a `url:` entry, or a postgresql:// --store):
it ranks in PostgreSQL and merges here like any peer (adr-8a976b997594). Ranked
results merge on `similarity`, never on `score`: fused scores are sums of
z-scores over one store's candidates, so comparing two stores' scores compares
their candidate lists, not their documents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar, Union

from docir.embed.model_ids import answers_with
from docir.errors import UsageError
from docir.index.changes import Kept
from docir.index.records import Filters
from docir.org.address import OrgAddress, meant_as_url, parse
from docir.services.indexing.session import PeerUnreadable, Session, open_peer
from docir.services.retrieval import store_reads as reads
from docir.services.retrieval.need import Need, embedded_texts, needs_of
from docir.services.retrieval.results import (
    LOCAL_STORE,
    ContextResult,
    ContextRow,
    Fetched,
    GetResult,
    Linked,
    SearchHit,
    Skeleton,
)
from docir.settings import Settings
from docir.store import STATE_DIR, Store

if TYPE_CHECKING:  # the model's side: only context needs it (cold start, adr-d5e80517405b)
    from docir.embed.protocol import Vectors
    from docir.org.peer import OrgPeer
    from docir.services.vectors.query_source import QuerySource

STORES_FILE = "stores.yaml"
_STORED: Kept[int] = Kept()  # each index's count of documents (stored), by its stamp
Warn = Callable[[str], None]


class Peer(NamedTuple):
    label: str  # how rows name it in `store`: the path as the user wrote it
    session: Session


# A folder peer, or an organisation store (docir/org: PostgreSQL, read only when a store list names one).
AnyPeer = Union[Peer, "OrgPeer"]


def _peers_listed(local: Store, settings: Settings, extra: list[Path | str],
                  warn: Warn) -> tuple[list[tuple[str, Path]], list[OrgAddress]]:
    """Every peer named by stores.yaml, then by --store: folder peers as (label, home), organisation stores
    as addresses (a `url:` entry, or a value that is a postgresql:// URL). UsageError for a bad URL, or a
    password in stores.yaml, which is committed."""
    listed: list[tuple[str, Path]] = []
    urls: list[OrgAddress] = []
    config = local.root / STATE_DIR / STORES_FILE
    if config.is_file():
        from docir import yamltext  # yaml only for a store that lists peers (cold start, adr-d5e80517405b)

        try:
            data = yamltext.load(config.read_text(encoding="utf-8")) or {}
        except (yamltext.YamlProblem, OSError, UnicodeDecodeError) as exc:
            warn(f"{STATE_DIR}/{STORES_FILE} is unreadable ({exc}); no peers from it")
            data = {}
        entries = data.get("stores", []) if isinstance(data, dict) else []
        for number, entry in enumerate(entries if isinstance(entries, list) else [], start=1):
            if isinstance(entry, dict) and "url" in entry or isinstance(entry, str) and meant_as_url(entry):
                urls.append(_org_entry(entry))
                continue
            path = entry.get("path") if isinstance(entry, dict) else entry
            if isinstance(path, str) and path.strip():
                listed.append((path, (local.root / settings.expanded(path)).resolve()))
            else:
                # Not quoted: an entry of an unknown shape may hold a credential.
                warn(f"{STATE_DIR}/{STORES_FILE}: ignoring entry {number} (expected a folder path or a url)")
    for value in extra:
        if isinstance(value, str) and meant_as_url(value):
            urls.append(parse(value, committed=False))
            continue
        listed.append((str(value), Path(value).resolve()))  # made absolute at the edge (typed="place")
    seen = {local.root.resolve()}
    homes = []
    for label, home in listed:
        if home not in seen:
            seen.add(home)
            homes.append((label, home))
    return homes, list({org.url: org for org in urls}.values())


def _org_entry(entry: object) -> OrgAddress:
    """An organisation store from its stores.yaml entry: `url:`, with optional `repos:` and `exclude:` globs."""
    if isinstance(entry, str):
        return parse(entry, committed=True)
    assert isinstance(entry, dict)
    url, repos, exclude = entry.get("url"), entry.get("repos", []), entry.get("exclude", [])
    where = f"{STATE_DIR}/{STORES_FILE}"
    if not isinstance(url, str):
        raise UsageError(f"{where}: url must be text, not {url!r}")
    patterns: list[tuple[str, ...]] = []
    for name, value in (("repos", repos), ("exclude", exclude)):
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise UsageError(f"{where}: {name} must be a list of repository names or globs, not {value!r}")
        patterns.append(tuple(v.strip() for v in value))
    return parse(url, committed=True, repos=patterns[0], exclude=patterns[1])


def open_peers(session: Session, extra: list[Path | str], warn: Warn) -> list[AnyPeer]:
    homes, urls = _peers_listed(session.store, session.caller.settings, extra, warn)
    peers: list[AnyPeer] = []
    for label, home in homes:
        try:
            peers.append(Peer(label, open_peer(home, session.caller)))
        except PeerUnreadable as exc:
            warn(f"peer store {label} skipped: {exc}")
    if urls:
        from docir.org.peer import OrgPeer  # psycopg: only when a store list names a database
        from docir.org.records import OrgUnavailable

        for org in urls:
            try:
                peers.append(OrgPeer.open(org, session.caller.settings))
            except OrgUnavailable as exc:
                warn(f"organisation store {org.label} skipped: {exc}")
    return peers


T = TypeVar("T")


@contextmanager
def peers_open(session: Session, extra: list[Path | str] | None, warn: Warn) -> Iterator[list[AnyPeer]]:
    """The peers of one federated read, open; closed, their warnings said, whatever happens."""
    peers = open_peers(session, list(extra or []), warn)
    try:
        yield peers
    finally:
        for peer in peers:
            if isinstance(peer, Peer):
                for message in peer.session.warnings:
                    warn(f"{peer.label}: {message}")
                peer.session.close()
            else:
                for message in peer.problems:
                    warn(f"organisation store {peer.label}: {message}")
                peer.close()


def with_peers(session: Session, extra: list[Path | str] | None, warn: Warn,
               read: Callable[[list[AnyPeer]], T]) -> T:
    """Run one federated read with the peers open, and close them whatever happens."""
    with peers_open(session, extra, warn) as peers:
        return read(peers)


def _org_read(session: Session, peer: OrgPeer, read: Callable[[], T], empty: T) -> T:
    """One read of an organisation store; one that fails mid-command (the server went away, a statement
    was refused) is said once and gives `empty`: the local answer stands."""
    from docir.org.records import OrgUnavailable

    try:
        return read()
    except OrgUnavailable as exc:
        session.warnings.append(f"organisation store {peer.label} skipped: {exc}")
        return empty


# Every kind of row a federated read returns; each carries an optional `store`.
Row = TypeVar("Row", Skeleton, Linked, SearchHit, ContextRow, Fetched)


def stored(session: Session, peers: list[AnyPeer]) -> int:
    """The documents of this store and its folder peers: an organisation store's are not counted, as a
    count there would cost a round trip for a header's number. A long-lived process counts each index
    once per change of it, not on every read."""
    return sum(_STORED.get(s.catalog.stamp(), s.catalog.docs.count)
               for s in (session, *(peer.session for peer in peers if isinstance(peer, Peer))))


def tag(rows: list[Row], label: str) -> list[Row]:
    for row in rows:
        row["store"] = label
    return rows


def merge_by_similarity(groups: list[list[ContextRow]], limit: int) -> list[ContextRow]:
    """Ranked rows of several stores, each store's own order kept, merged on similarity: the one number
    comparable across stores (adr-8a976b997594).

    A store's fused order is better than its rows' cosines (it weighs words and sections too), so the
    groups are sorted lists merged by their next rows: at each step the store whose next row is the most
    similar gives it. A next row with no similarity (a store searched lexically) cannot be placed on that
    scale: such a store takes turns with the similarity pick. One store alone keeps its order exactly.
    Linked rows come after.
    """
    queues = [[row for row in rows if row.get("via") is None] for rows in groups]
    expanded = [row for rows in groups for row in rows if row.get("via") is not None]
    heads = [0] * len(queues)
    merged: list[ContextRow] = []
    turn = 0  # 0: the similarity pick; i + 1: store i, while its next row has no similarity
    while len(merged) < limit:
        scored = [i for i, rows in enumerate(queues)
                  if heads[i] < len(rows) and rows[heads[i]].get("similarity") is not None]
        unscored = {i for i, rows in enumerate(queues)
                    if heads[i] < len(rows) and rows[heads[i]].get("similarity") is None}
        if not scored and not unscored:
            break
        # The next participant in turn order that can give a row.
        for step in range(len(queues) + 1):
            slot = (turn + step) % (len(queues) + 1)
            if slot == 0 and scored or slot - 1 in unscored:
                break
        turn = slot + 1
        pick = max(scored, key=lambda i: (_similarity(queues[i][heads[i]]), -i)) if slot == 0 else slot - 1
        merged.append(queues[pick][heads[pick]])
        heads[pick] += 1
    # A linked row that is also a ranked one shown is said once (the organisation store links the ranked
    # documents of every store, its own included, before the merge decides which are shown).
    shown = {(row.get("store"), row["id"]) for row in merged}
    linked = []
    for row in expanded:
        if (row.get("store"), row["id"]) not in shown:
            shown.add((row.get("store"), row["id"]))
            linked.append(row)
    return merged + linked


def _similarity(row: ContextRow) -> float:
    """A row's similarity; merging happens before budget.py compacts linked rows, which carry none."""
    found = row.get("similarity")
    return found if isinstance(found, float) else 0.0


def take_turns(groups: list[list[Row]], limit: int) -> list[Row]:
    """Rows of several stores in turn, each store's best first: for rankings with no comparable number."""
    merged: list[Row] = []
    for position in range(max((len(g) for g in groups), default=0)):
        for rows in groups:
            if position < len(rows) and len(merged) < limit:
                merged.append(rows[position])
    return merged


# --- the four federated reads ---------------------------------------------------------------


def get(session: Session, peers: list[AnyPeer], ids: list[str], section: str | None) -> GetResult:
    """Local documents first; an id the local store lacks is looked up in each peer in turn."""
    result = reads.get(session, ids, section)
    if not peers:
        return result
    tag(result.documents, LOCAL_STORE)
    for peer in peers:
        if not result.missing:
            break
        if isinstance(peer, Peer):
            found = reads.get(peer.session, result.missing, section)
            result.documents.extend(tag(found.documents, peer.label))
            result.no_section.extend(found.no_section)
            result.missing = found.missing
        else:
            from docir.services.retrieval import org_reads

            _org_read(session, peer, partial(org_reads.get, session, peer, result, section), None)
    order = {doc_id: n for n, doc_id in enumerate(dict.fromkeys(ids))}
    result.documents.sort(key=lambda doc: order.get(doc["id"], len(order)))
    return result


def query(
    session: Session, peers: list[AnyPeer], filters: Filters, *, stale: bool | None, include_inactive: bool, limit: int
) -> list[Linked]:
    rows = reads.query(session, filters, stale=stale, include_inactive=include_inactive, limit=limit)
    if not peers:
        return rows
    merged = tag(rows, LOCAL_STORE)
    for peer in peers:
        if len(merged) >= limit:
            break
        wanted = limit - len(merged)
        if isinstance(peer, Peer):
            found = tag(reads.query(peer.session, filters, stale=stale, include_inactive=include_inactive,
                                    limit=wanted), peer.label)
        else:
            from docir.services.retrieval import org_reads

            found = _org_read(session, peer, partial(org_reads.query, session, peer, filters, stale=stale,
                                                     include_inactive=include_inactive, limit=wanted), [])
        merged.extend(found)
    return merged


def search_peers(session: Session, peers: list[AnyPeer], rows: list[SearchHit], text: str, *,
                 include_inactive: bool, limit: int) -> list[SearchHit]:
    """The local store's `rows` and each peer's search: bm25 ranks within one store only, so stores take
    turns at the head of the list."""
    if not peers:
        return rows
    groups = [tag(rows, LOCAL_STORE)]
    for peer in peers:
        if isinstance(peer, Peer):
            groups.append(tag(reads.search(peer.session, text, include_inactive=include_inactive, limit=limit),
                              peer.label))
        else:
            from docir.services.retrieval import org_reads

            groups.append(_org_read(session, peer, partial(org_reads.search, session, peer, text,
                                                           include_inactive=include_inactive, limit=limit), []))
    return take_turns(groups, limit)


def context(
    session: Session,
    peers: list[AnyPeer],
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
    from docir.services.retrieval import local_ranking  # numpy: only the command that ranks by vectors pays for it
    from docir.services.vectors.query_source import ModelFailed, NoModel

    if not peers:
        return local_ranking.context(
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
    wanted = embedded_texts(queries)
    try:
        computed = source.embed([text for _, _, text in wanted]) if source.model_id else None
    except ModelFailed:  # as local_ranking.context takes it: no vectors, and the status says why
        computed = None
    shared = Precomputed(source.model_id if computed is not None else None, computed, source.status)
    local = local_ranking.context(
        session,
        queries,
        shared,
        limit=limit,
        expand=expand,
        explain=explain,
        include_inactive=include_inactive,
        refs=refs,
    )
    groups = [tag(local.results, LOCAL_STORE)]
    for peer in peers:
        if not isinstance(peer, Peer):
            from docir.services.retrieval import org_ranking

            vectors = {} if shared.vectors is None else {
                (index, form): shared.vectors[row] for row, (index, form, _) in enumerate(wanted)}
            # Ids are global there: a local decision's successor, or a decision it names, may be published.
            local_seeds = org_ranking.seeds_of(local.results)
            groups.append(_org_read(session, peer, partial(
                org_ranking.context, session, peer, queries, vectors, shared.model_id, limit=limit, expand=expand,
                explain=explain, include_inactive=include_inactive, local_seeds=local_seeds), []))
            continue
        models = peer.session.catalog.vectors.model_ids()
        peer_source: QuerySource = shared
        if shared.model_id is None or (models and not set(answers_with(shared.model_id)) & set(models)):
            reason = f"its vectors are from {', '.join(models)}" if models else "no model here"
            peer_source = NoModel(reason)
            if shared.model_id is not None:
                session.warnings.append(f"peer store {peer.label} searched lexically: {reason}, not {shared.model_id}")
        found = local_ranking.context(
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
