"""The four read commands as requests: what `docir get|query|search|context` and the MCP tools both run.

Each request declares its options once (docir/request_options.py): the CLI derives its parsers
from it. Each function here serves one: it opens the peers, runs the store's own reads
(store_reads.py) and returns the typed result whose `to_json` is the command's output.
"""

# No `from __future__ import annotations`: typing would compile each annotation of these classes as a
# string when the class is made, on every cold command (adr-d5e80517405b).
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, NamedTuple

from docir.errors import UsageError
from docir.index.records import Filters
from docir.request_options import INCLUDE_INACTIVE_OPTION, LIMIT_MAX, STORE_OPTION, Option, check_ranges
from docir.services.indexing.session import Session
from docir.services.retrieval import budget, federation, store_reads
from docir.services.retrieval.need import FORMS, Need
from docir.services.retrieval.results import LOCAL_STORE, ContextResult, GetResult, QueryResult, SearchResult

Warn = Callable[[str], None]

_BUDGET_MAX = budget.BUDGET_MAX  # for the annotation below, read where `budget` is also a field's name


class ContextRequest(NamedTuple):
    task: Annotated[str, Option(
        "Your task in plain words (or none, with path/changed).", positional=True,
        cli_help="What you are about to do, in plain words. Without it, --path or --changed list what governs "
                 "those files.")] = ""
    sketch: Annotated[str, Option(
        "What the answer would say, in its words; skip if unsure.",
        metavar="TEXT", cli_help="What the answering document says in its words, as its summary would "
                                 "(1-2 sentences, no question). Skip it if you cannot guess.")] = ""
    terms: Annotated[str, Option("Exact identifiers, option names, error strings.", metavar="WORDS",
                                 cli_help="Exact words it contains: identifiers, option names, error strings.")] = ""
    also: Annotated[tuple[str, ...], Option(
        "Another task (repeatable), taking turns at the head.",
        cli_help="Another, different task (repeatable): the tasks take turns at the head of the result.")] = ()
    limit: Annotated[int, Option("How many ranked documents.", min=1, max=LIMIT_MAX,
                                 cli_help="How many ranked documents (linked ones come on top).")] = 8
    explain: Annotated[bool, Option(
        "Show each score's parts (JSON: also raw scores, matched terms, winning chunk).", terminal_only=True)] = False
    expand: Annotated[bool, Option(
        "Add linked documents (a superseded one's successor).", flag="--no-expand", terminal_only=True,
        cli_help="Do not add documents linked to the results.")] = True
    refs: Annotated[bool, Option("Include reference corpora.", flag="--no-refs", terminal_only=True,
                                 cli_help="Leave reference corpora out.")] = True
    include_inactive: Annotated[bool, INCLUDE_INACTIVE_OPTION] = False
    store: Annotated[tuple[str, ...], STORE_OPTION] = ()
    budget: Annotated[int, Option(
        "At most this many tokens of results (0: all).", min=0, max=_BUDGET_MAX, metavar="TOKENS",
        cli_help="At most this many tokens (4 bytes each) of results; omitted counts the rest. 0: none. "
                 "The best-ranked result is always shown, its long texts clipped to fit.")] \
        = budget.DEFAULT_BUDGET
    full_links: Annotated[bool, Option(
        "Full skeletons for linked documents.", terminal_only=True)] = False
    # An agent's paths are relative to the repository root (an MCP client has no current folder); typed at
    # a terminal, a path is relative to the current folder, like git's.
    path: Annotated[tuple[str, ...], Option(
        "A file you will change, from the repository root (repeatable): what governs it comes first.",
        metavar="PATH", typed="absolute",
        cli_help="A file you will change (repeatable): documents whose applies_to globs match it come first. "
                 "Without a TASK, lists what governs these files.")] = ()
    changed: Annotated[bool, Option(
        "Also the files git reports changed.", cli_help="Also take as paths the files git reports changed, "
                                                         "staged or not.")] = False


class GetRequest(NamedTuple):
    ids: Annotated[tuple[str, ...], Option("Ids (or numbers: ADR 21), all in one call.", positional=True)]
    section: Annotated[tuple[str, ...], Option(
        "Only the section with this heading.",
        cli_help="Only the section with this heading (repeatable: several in one call).")] = ()
    full: Annotated[bool, Option("The whole body, however long (else a long one is outlined).")] \
        = False
    store: Annotated[tuple[str, ...], STORE_OPTION] = ()


class QueryRequest(NamedTuple):
    type: Annotated[tuple[str, ...], Option("Only this type (repeatable).")] = ()
    status: Annotated[tuple[str, ...], Option(
        "Only this status (repeatable).",
        cli_help="Only this status (repeatable); a closed one needs no --include-inactive.")] = ()
    tag: Annotated[tuple[str, ...], Option("Only with this tag (repeatable: all must match).")] = ()
    owner: Annotated[str | None, Option("Only with this owner.")] = None
    stale: Annotated[bool | None, Option("Only stale (true) or fresh (false) ones.", flag="--stale/--fresh",
                                         cli_help="Only stale (or only fresh) documents.")] = None
    related_to: Annotated[str | None, Option("Only with an edge to or from this id.")] = None
    limit: Annotated[int, Option("At most this many results.", min=1, max=LIMIT_MAX)] = 50
    include_inactive: Annotated[bool, INCLUDE_INACTIVE_OPTION] = False
    store: Annotated[tuple[str, ...], STORE_OPTION] = ()


class SearchRequest(NamedTuple):
    text: Annotated[str, Option("Words to look for (plain text, never query syntax).", positional=True)]
    limit: Annotated[int, Option("At most this many results.", min=1, max=LIMIT_MAX)] = 10
    include_inactive: Annotated[bool, INCLUDE_INACTIVE_OPTION] = False
    store: Annotated[tuple[str, ...], STORE_OPTION] = ()


def _stores(request: ContextRequest | GetRequest | QueryRequest | SearchRequest) -> list[Path | str]:
    """Folder peers and database URLs, as given: federation tells them apart."""
    return list(request.store)


def get(session: Session, request: GetRequest, warn: Warn) -> GetResult:
    """The documents asked for, whole or, with sections, each section asked for of each, in one reading."""

    def read(peers: list[federation.AnyPeer]) -> GetResult:
        result = GetResult()
        for section in request.section or (None,):
            found = federation.get(session, peers, list(request.ids), section)
            result.documents += found.documents
            result.no_section += found.no_section
            result.missing += [doc_id for doc_id in found.missing if doc_id not in result.missing]
        return result

    result = federation.with_peers(session, _stores(request), warn, read)
    result.outside = _outside_checkout(session, result.documents, result.missing)
    return result


def query(session: Session, request: QueryRequest, warn: Warn) -> QueryResult:
    check_ranges(request)
    related_to = request.related_to
    if related_to is not None:  # "ADR 6" as get reads it
        from docir.services.indexing import numbers

        related_to = numbers.id_of(session, related_to, f"--related-to {related_to}")
    filters = Filters(request.type, request.status, request.tag, request.owner, related_to)

    def read(peers: list[federation.AnyPeer]) -> QueryResult:
        # One past the limit says whether more match, so the header can say so.
        rows = federation.query(session, peers, filters, stale=request.stale,
                                include_inactive=request.include_inactive, limit=request.limit + 1)
        return QueryResult(rows[:request.limit], len(rows) > request.limit, federation.stored(session, peers))

    return federation.with_peers(session, _stores(request), warn, read)


def search(session: Session, request: SearchRequest, warn: Warn) -> SearchResult:
    """bm25 ranks within one store only, so stores take turns at the head of the list."""
    check_ranges(request)
    with federation.peers_open(session, _stores(request), warn) as peers:
        rows = store_reads.search(session, request.text, include_inactive=request.include_inactive,
                                  limit=request.limit)
        rows = federation.search_peers(session, peers, rows, request.text, include_inactive=request.include_inactive,
                                       limit=request.limit)
        count = federation.stored(session, peers)
    return SearchResult(request.text, rows, count)


def context(session: Session, request: ContextRequest, warn: Warn) -> ContextResult:
    # Only context ranks, reads reference corpora and matches globs: get, query and search, run cold by
    # hooks and scripts, do not pay for these imports.
    from docir.services.indexing import references
    from docir.services.retrieval import governing

    check_ranges(request)
    if not request.task.strip():
        return _governing_alone(session, request)
    from docir.services.vectors.query_source import query_source  # the model: only the ranking command pays

    # Asked for first: a cold command's model loads beside all that follows (query_source.LoadingModel).
    source = query_source(session.caller, session.schema.model_path, session.store.root, beside=True)
    paths = _paths(session, request)
    if request.refs:
        references.ensure_ingested(session)
    queries = [Need(request.task, request.sketch, request.terms), *(Need(task) for task in request.also)]

    def read(peers: list[federation.AnyPeer]) -> ContextResult:
        found = federation.context(session, peers, queries, source, limit=request.limit, expand=request.expand,
                                   explain=request.explain, include_inactive=request.include_inactive,
                                   refs=request.refs)
        found.stored = federation.stored(session, peers)
        return found

    ranked = federation.with_peers(session, _stores(request), warn, read)
    if paths:
        found = governing.governing(session, paths, request.include_inactive)
        ranked.results = governing.lead(session, ranked.results, found, request.limit, request.explain)
    _outside_checkout(session, ranked.results, [])
    return budget.apply(ranked, request.budget, request.full_links)


def _paths(session: Session, request: ContextRequest) -> list[str]:
    """The repository paths --path and --changed name, for the documents that govern them."""
    from docir.services.retrieval import governing

    root = session.store.root
    paths = governing.repository_paths(root, request.path)
    if request.changed:
        paths = list(dict.fromkeys([*paths, *governing.changed_paths(root)]))
    return paths


def _governing_alone(session: Session, request: ContextRequest) -> ContextResult:
    """No task: what governs the files, no ranking (and no model) at all."""
    from docir.services.retrieval import governing

    given = [f"--{name}" for name in (*FORMS[1:], "also") if getattr(request, name)]
    if given:
        raise UsageError(f"{given[0]} adds to a task; give the task first")
    if not request.path and not request.changed:
        raise UsageError("context needs a task, or --path/--changed to list the documents that govern those files")
    found = governing.governing(session, _paths(session, request), request.include_inactive)[: request.limit]
    listed = ContextResult(governing.entries(session, found, request.explain), "off: no task to rank", [Need("")])
    listed.stored = federation.stored(session, [])
    _outside_checkout(session, listed.results, [])
    return budget.apply(listed, request.budget, request.full_links)


def _outside_checkout(session: Session, rows: Iterable[Mapping[str, object]], missing: list[str]) -> dict[str, str]:
    """Say, one warning each, which links of the local `rows` point at a document a sparse checkout left
    off disk; return those of the `missing` ids, with their paths (adr-5d0b7e31c9a6). Nothing is read
    outside a sparse checkout; in one, git is asked only when a link or an id is otherwise unresolved."""
    from docir.services.indexing.checkout import is_sparse, outside_checkout

    if not is_sparse(session.store):
        return {}
    links: list[tuple[str, str, str]] = []
    for row in rows:
        related = row.get("related")
        if row.get("store", LOCAL_STORE) == LOCAL_STORE and isinstance(related, list):
            links.extend((str(row["id"]), str(link["kind"]), str(link["id"])) for link in related)
    known = session.catalog.docs.listings_by_ids({target for *_, target in links}) if links else {}
    unresolved = [link for link in links if link[2] not in known]
    if not unresolved and not missing:
        return {}
    outside = outside_checkout(session.store, session.caller.settings.env)
    for source, kind, target in unresolved:
        if target in outside:
            session.warnings.append(f"{source} {kind} {target}, which is outside this sparse checkout "
                                    f"({outside[target]}); 'git sparse-checkout add' its folder to read it")
    return {doc_id: outside[doc_id] for doc_id in missing if doc_id in outside}
