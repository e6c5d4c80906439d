"""Reading the organisation store as a read-only peer: one connection, one snapshot, the visible rows.

A reader needs SELECT alone: every statement runs in one READ ONLY, REPEATABLE READ transaction,
so a command sees the store as one moment (a publish that commits meanwhile is not half-seen) and
could not write even with a role that may. The connection gives up after CONNECT_TIMEOUT seconds:
an unreachable server costs a command that long, once. In the warm worker the connection outlives
the command (kept.py); its snapshot, schema version check and repositories never do.

Every failure is an OrgUnavailable with a one-line reason; the caller skips the peer with one
warning and keeps its local answer. psycopg is imported here, and only when a peer is opened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from docir.errors import UsageError
from docir.index.records import Filters
from docir.org import kept
from docir.org.address import OrgAddress
from docir.org.connect import INSTALL, OrgError, check_version, connect, database_version, first_line
from docir.org.records import OrgDocument, OrgEdge, OrgListing, OrgRepo, OrgUnavailable

if TYPE_CHECKING:
    import psycopg

    from docir.settings import Settings

CONNECT_TIMEOUT = 3  # seconds: an unreachable server must not hold up the local answer for long
STATEMENT_TIMEOUT_MS = 20_000  # a runaway query is cancelled rather than hanging the command
# A lock a read waits for (a migration's, a publisher's that holds more than it should) is given up much sooner:
# the peer is skipped with one warning and the local answer stands, not held for the statement's 20 s.
LOCK_WAIT_MS = 2_000

T = TypeVar("T")

# A document's skeleton-level columns, in OrgListing's order (`d` is docir.documents).
LISTING = ("d.repo, d.id, d.path, d.type, d.title, d.description, coalesce(d.status, ''), d.tags, d.related, "
           "d.owner, d.verified, d.archived, octet_length(d.body)")


class BadRow(Exception):
    """A published row docir cannot read (written by hand, or by a tool that is not docir): skipped, said once."""


def listing(row: Sequence[Any]) -> OrgListing:
    """An OrgListing from the LISTING columns (and nothing before them in `row`); BadRow for a row whose
    columns are not what docir publishes. Every row read is checked here, at the boundary, so that no
    odd row can take a read down past it."""
    repo, doc_id, path, doc_type, title, description, status, tags, related, owner, verified, archived, size = row[:13]
    for name, value in (("repo", repo), ("id", doc_id), ("path", path), ("type", doc_type), ("title", title)):
        if not isinstance(value, str) or not value:
            raise BadRow(f"its {name} is not a text")
    if not isinstance(tags or [], list) or not all(isinstance(tag, str) for tag in tags or []):
        raise BadRow("its tags are not a list of texts")
    if not isinstance(related or [], list) or not all(
            isinstance(link, list) and len(link) == 2 and all(isinstance(part, str) for part in link)
            for link in related or []):
        raise BadRow("its related is not a list of (kind, target) pairs")
    if not isinstance(size, int) or size < 0:
        raise BadRow("its body's size is not a count")
    return OrgListing(repo, doc_id, path, doc_type, title, _text(description), _text(status), tuple(tags or ()),
                      tuple((kind, target) for kind, target in related or ()), _text(owner) or None,
                      None if verified is None else str(verified), bool(archived), size)


def _text(value: object) -> str:
    return "" if value is None else str(value)


def among(column: str) -> str:
    """The one repository predicate of a read, over `column`: %(repos)s names the repositories read, or
    is NULL when they are every one the store holds (OrgPeer.scope), and the planner drops it."""
    return f"(%(repos)s::text[] IS NULL OR {column} = ANY(%(repos)s))"


def visible(include_inactive: bool, alias: str = "d") -> str:
    """The one visibility predicate (tables.py) as SQL over `alias`, a docir.documents row."""
    return f"NOT {alias}.archived" if include_inactive else f"({alias}.active AND NOT {alias}.archived)"


class LexicalTotals(NamedTuple):
    """What bm25's idf and length normalisation read over the repositories read (FTS5 reads them
    over its whole table): searched rows and their average length in tokens."""

    documents: int
    sections: int
    document_length: float
    section_length: float


class OrgPeer:
    """An open organisation store: its address, the repositories this reader reads, and the connection."""

    def __init__(self, address: OrgAddress, settings: Settings, conn: psycopg.Connection[Any], repos: list[OrgRepo],
                 held: frozenset[str], kept_by: tuple[kept.Keeper, kept.Key] | None = None) -> None:
        self.address = address
        self.settings = settings
        self.conn = conn
        self.problems: dict[str, None] = {}  # rows and repositories skipped, each said once when the read ends
        # Those the address asks for, by name; one whose counters cannot be right is skipped, not the store.
        self.repos = [repo for repo in repos if self._counted(repo)]
        self.held = held  # every repository the store holds in this snapshot
        self.kept_by = kept_by  # the warm worker's keeper, and whom it keeps this connection for
        self.known: dict[object, Any] = {}  # what a statement read, by what it asked: one snapshot, one answer
        self._snapshot: str | None = None  # this transaction's snapshot, once exported for a reader beside

    def _counted(self, repo: OrgRepo) -> bool:
        counts = (repo.documents, repo.document_tokens, repo.sections, repo.section_tokens)
        if all(isinstance(count, int) and count >= 0 for count in counts) and isinstance(repo.name, str):
            return True
        self.problems[f"skipped repository {repo.name!s:.200}: its counts cannot be right ({counts}); "
                      "a 'docir publish' of it writes them again"] = None
        return False

    @property
    def label(self) -> str:
        return self.address.label

    @property
    def names(self) -> list[str]:
        return [repo.name for repo in self.repos]

    def scope(self, repos: Sequence[str]) -> list[str] | None:
        """What `among` reads as %(repos)s: None when `repos` are every repository the store holds in this
        snapshot (each row's repository is one of them). A reader of the whole store then sends no list:
        at 4,000 repositories the names cost a statement 12 ms to send and plan, ten times the reading
        of a short one."""
        names = list(dict.fromkeys(repos))
        return None if len(names) == len(self.held) and self.held.issuperset(names) else names

    @classmethod
    def open(cls, address: OrgAddress, settings: Settings) -> OrgPeer:
        """Begin the command's snapshot: check the schema version and read the repositories, on a connection
        the warm worker kept (kept.py) or a new one; OrgUnavailable when any fails."""
        try:
            import psycopg
        except ImportError:
            raise OrgUnavailable(f"psycopg is not installed ({INSTALL})") from None
        keeper = kept.current()
        kept_by = None if keeper is None else (keeper, kept.key_of(address.url, CONNECT_TIMEOUT, settings))
        reused = None if kept_by is None else kept_by[0].take(kept_by[1])
        if reused is not None:
            try:
                return cls(address, settings, reused, *cls._begin(address, reused), kept_by=kept_by)
            except psycopg.Error:  # it died while kept (a server restart, a dropped link): connect anew, once
                reused.close()
            except OrgError as exc:
                reused.close()
                raise OrgUnavailable(str(exc)) from None
        try:  # the publisher's connection: the same timeouts' precedence, no prepared statements (poolers)
            conn = connect(address.url, settings, CONNECT_TIMEOUT)
        except UsageError as exc:
            raise OrgUnavailable(exc.message) from None
        try:
            return cls(address, settings, conn, *cls._begin(address, conn), kept_by=kept_by)
        except psycopg.Error as exc:
            conn.close()
            raise OrgUnavailable(first_line(exc)) from None
        except OrgError as exc:
            conn.close()
            raise OrgUnavailable(str(exc)) from None

    def beside(self) -> OrgPeer | None:
        """A second reader of this peer's snapshot, on a connection of its own (one the warm worker kept,
        or a new one), so that one list is read while this peer reads another; None when none opens (the
        lists are then read here, one after the other). The caller closes it."""
        import psycopg
        from psycopg import sql

        if self._snapshot is None:
            self._snapshot = str(self.run(lambda c: c.execute("SELECT pg_export_snapshot()").fetchall()[0][0]))
        conn = None if self.kept_by is None else self.kept_by[0].take(self.kept_by[1])
        try:
            if conn is None:
                conn = connect(self.address.url, self.settings, CONNECT_TIMEOUT)
            conn.read_only = True
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            # The transaction's first statement: it then reads what this peer's transaction reads.
            conn.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(self._snapshot)))
            conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
            conn.execute(f"SET lock_timeout = {LOCK_WAIT_MS}")
        except (UsageError, psycopg.Error):
            if conn is not None:
                conn.close()
            return None
        other = OrgPeer(self.address, self.settings, conn, self.repos, self.held, self.kept_by)
        other.known = self.known
        other.problems = self.problems
        return other

    @staticmethod
    def _begin(address: OrgAddress, conn: psycopg.Connection[Any]) -> tuple[list[OrgRepo], frozenset[str]]:
        """The repositories `address` reads, and every one the store holds, in a new READ ONLY,
        REPEATABLE READ transaction on `conn`."""
        import psycopg

        conn.read_only = True
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
        conn.execute(f"SET lock_timeout = {LOCK_WAIT_MS}")
        check_version(database_version(conn), address.url, write=False)
        rows = conn.execute("SELECT name, model_id, row_format, lex_documents, lex_document_tokens, lex_sections,"
                            " lex_section_tokens, vector_index FROM docir.repos ORDER BY name").fetchall()
        return [OrgRepo(*row) for row in rows if address.reads(row[0])], frozenset(row[0] for row in rows)

    def close(self) -> None:
        if self.kept_by is None:
            self.conn.close()
        else:  # its transaction ends there; the worker's next command may take it
            self.kept_by[0].give(self.kept_by[1], self.conn)

    def run(self, read: Callable[[psycopg.Connection[Any]], T]) -> T:
        """One read inside the command's snapshot; a database error becomes OrgUnavailable."""
        import psycopg

        try:
            return read(self.conn)
        except psycopg.Error as exc:
            raise OrgUnavailable(first_line(exc)) from None

    def lexical_totals(self, repos: Sequence[str]) -> LexicalTotals:
        wanted = set(repos)
        mine = [repo for repo in self.repos if repo.name in wanted]
        documents = sum(repo.documents for repo in mine)
        sections = sum(repo.sections for repo in mine)
        return LexicalTotals(documents, sections, sum(r.document_tokens for r in mine) / max(documents, 1),
                             sum(r.section_tokens for r in mine) / max(sections, 1))

    def copies_of(self, local_ids: Sequence[str]) -> set[str]:
        """The repositories that hold any of `local_ids`: ids are unique across an organisation, so such
        a repository is this one's own published copy, which must not repeat its local documents."""
        if not local_ids or not self.repos:
            return set()
        return {repo for (repo,) in self.run(lambda c: c.execute(
            f"SELECT DISTINCT repo FROM docir.documents WHERE id = ANY(%(ids)s) AND {among('repo')}",
            {"ids": list(local_ids), "repos": self.scope(self.names)}).fetchall())}

    def documents(self, ids: Sequence[str]) -> list[OrgDocument]:
        """Whole documents by id, any status, archived included (what `get` shows), by repository name."""
        if not ids or not self.repos:
            return []
        rows = self.run(lambda c: c.execute(
            f"SELECT {LISTING}, d.meta, d.body FROM docir.documents d WHERE d.id = ANY(%(ids)s) AND {among('d.repo')} "
            "ORDER BY d.repo", {"ids": list(ids), "repos": self.scope(self.names)}).fetchall())
        found = []
        for row in rows:
            item = self._checked(row)
            if item is None:
                continue
            meta, body = row[13], row[14]
            if not isinstance(meta or {}, dict) or not isinstance(body, str):
                self._skipped(row, "its frontmatter is not an object" if isinstance(body, str) else
                              "its body is not a text")
                continue
            found.append(OrgDocument(item, dict(meta or {}), body))
        return found

    def listings(self, repos: Sequence[str], *, where: str, params: dict[str, Any], limit: int | None,
                 include_inactive: bool) -> list[OrgListing]:
        """Visible documents of `repos` that satisfy `where` (SQL over `d`, with `params`), by repository
        and path."""
        if not repos:
            return []
        sql = (f"SELECT {LISTING} FROM docir.documents d WHERE {among('d.repo')} "
               f"AND {visible(include_inactive)} AND {where} ORDER BY d.repo, d.path")
        if limit is not None:
            sql += " LIMIT %(limit)s"
        arguments = {**params, "repos": self.scope(repos), "limit": limit}
        rows = self.run(lambda c: c.execute(sql, arguments).fetchall())
        return [item for item in map(self._checked, rows) if item is not None]

    def _checked(self, row: Sequence[Any]) -> OrgListing | None:
        try:
            return listing(row)
        except BadRow as exc:
            self._skipped(row, str(exc))
            return None

    def _skipped(self, row: Sequence[Any], why: str) -> None:
        self.problems[f"skipped {row[0]!s:.200} {row[1]!s:.100}: {why}"] = None

    def matching(self, repos: Sequence[str], filters: Filters, *, limit: int | None,
                 include_inactive: bool) -> list[OrgListing]:
        """Visible documents of `repos` that match `docir query`'s structured filters."""
        clauses = ["TRUE"]
        params: dict[str, object] = {}
        if filters.types:
            clauses.append("d.type = ANY(%(types)s)")
            params["types"] = list(filters.types)
        if filters.statuses:
            clauses.append("d.status = ANY(%(statuses)s)")
            params["statuses"] = list(filters.statuses)
        if filters.tags:
            clauses.append("d.tags @> %(tags)s::text[]")
            params["tags"] = list(filters.tags)
        if filters.owner is not None:
            clauses.append("d.owner = %(owner)s")
            params["owner"] = filters.owner
        if filters.related_to is not None:
            clauses.append("(EXISTS (SELECT 1 FROM docir.links l WHERE l.repo = d.repo AND l.doc_id = d.id "
                           "AND l.target = %(related)s) OR EXISTS (SELECT 1 FROM docir.links l "
                           "WHERE l.doc_id = %(related)s AND l.target = d.id))")
            params["related"] = filters.related_to
        return self.listings(repos, where=" AND ".join(clauses), params=params, limit=limit,
                             include_inactive=include_inactive)

    def listings_by_ids(self, repos: Sequence[str], ids: Iterable[str], include_inactive: bool) -> list[OrgListing]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        return self.listings(repos, where="d.id = ANY(%(ids)s)", params={"ids": wanted}, limit=None,
                             include_inactive=include_inactive)

    def successors(self, repos: Sequence[str], seeds: Sequence[str], successor_kinds: Iterable[str]) -> list[OrgEdge]:
        """The successor edges that point at the `seeds` (ids, of any store) from documents of `repos`."""
        if not seeds or not repos:
            return []
        rows = self.run(lambda c: c.execute(
            "SELECT repo, doc_id, kind, target FROM docir.links "
            f"WHERE target = ANY(%(seeds)s) AND kind = ANY(%(kinds)s) AND {among('repo')} "
            "ORDER BY repo, doc_id, kind, target",
            {"seeds": list(seeds), "kinds": sorted(successor_kinds), "repos": self.scope(repos)}).fetchall())
        return [OrgEdge(repo, source, kind, target) for repo, source, kind, target in rows]

    def incoming(self, repos: Sequence[str], targets: Sequence[str], kinds: Iterable[str]) -> list[OrgEdge]:
        """The links of these `kinds` that point at the `targets` (ids, of any store) from the unarchived
        documents of `repos`: a local index keeps no link of an archived document either."""
        if not targets or not repos:
            return []
        rows = self.run(lambda c: c.execute(
            "SELECT l.repo, l.doc_id, l.kind, l.target FROM docir.links l "
            "JOIN docir.documents d ON d.repo = l.repo AND d.id = l.doc_id "
            f"WHERE l.target = ANY(%(targets)s) AND l.kind = ANY(%(kinds)s) AND {among('l.repo')} "
            "AND NOT d.archived ORDER BY l.repo, l.doc_id, l.kind, l.target",
            {"targets": list(targets), "kinds": sorted(kinds), "repos": self.scope(repos)}).fetchall())
        return [OrgEdge(repo, source, kind, target) for repo, source, kind, target in rows]

    def building_edges(self, sources: Sequence[tuple[str, str]], targets: Sequence[str]) -> list[tuple[str, str, str]]:
        """(repo, source id, target id) of the links from the `sources` (repo, id) to any of `targets` whose
        kind builds on its target under the source repository's own schema (`Schema.building_kinds`:
        directed, not its own inverse, not a successor edge), as `repos.schema` recorded it."""
        if not sources or not targets:
            return []
        rows = self.run(lambda c: c.execute(
            "SELECT l.repo, l.doc_id, l.target FROM docir.links l JOIN docir.repos r ON r.name = l.repo "
            "JOIN unnest(%(repos)s::text[], %(ids)s::text[]) AS s(repo, id) ON s.repo = l.repo AND s.id = l.doc_id "
            "WHERE l.target = ANY(%(targets)s) "
            # Compared as text, never cast: a schema edited by hand ('successor: maybe') skips the edge, not the store.
            "AND (r.schema -> 'relations' -> l.kind ->> 'successor') = 'false' "
            "AND coalesce(r.schema -> 'relations' -> l.kind ->> 'inverse', '') <> l.kind "
            "ORDER BY l.repo, l.doc_id, l.target",
            {"repos": [repo for repo, _ in sources], "ids": [i for _, i in sources],
             "targets": sorted(set(targets))}).fetchall())
        return [(repo, source, target) for repo, source, target in rows]
