"""The database side of a publish: the repository's row, its documents' rows sent by COPY, the words'
counts and the totals bm25 reads, the lock that orders two publishes of one repository (adr-157b15ddba34).

What to publish, and when, is the service's (services/publishing/publish.py); this module holds every
statement a publish runs and takes plain rows: it never sees a session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from docir.documents.globs import FIELD, as_globs
from docir.errors import UsageError
from docir.index.records import DocRow
from docir.org import connect, lexemes, names, rows
from docir.org.vectors import to_text

if TYPE_CHECKING:
    import psycopg

    from docir.settings import Settings

# A publish never waits for another without end (adr-157b15ddba34): each lock it waits for is given up after
# LOCK_WAIT_MS, the transaction rolled back (nothing written), and tried again while the holder is working; a
# holder idle in its transaction for STALLED_SECONDS (a stopped CI runner, a partition) is stalled, and the
# publish gives up, naming it. However busy the holder, no publish waits past WAIT_MAX_SECONDS.
LOCK_WAIT_MS = 5_000
STALLED_SECONDS = 30.0
WAIT_MAX_SECONDS = 1_800.0
SAY_EVERY_SECONDS = 30.0  # how often a publish that keeps waiting says so again
# A tsvector holds at most 1 MB; text whose every word differs measured about two bytes of it per
# character (500,000 characters: 993 KB), so this much of a body or section always fits.
SEARCHED_MAX = 300_000


class Target(NamedTuple):
    """Where in the organisation store this repository goes."""

    name: str
    remote: str  # its normalised remote; '' when it has none (published with --as)
    revision: str | None


def target(root: Path, as_name: str | None, settings: Settings) -> Target:
    """The repository's name: --as, else its git remote normalised (names.py)."""
    remote = names.git_remote(root, settings.env) or ""
    revision = names.git_revision(root, settings.env)
    if as_name is not None:
        return Target(names.check_name(as_name), remote, revision)
    if not remote:
        raise UsageError("this repository has no git remote to name it by; give --as NAME")
    return Target(remote, remote, revision)


class LockWait(Exception):
    """A lock a publish waited for stayed taken past LOCK_WAIT_MS; its transaction is rolled back."""


class Holder(NamedTuple):
    """A server process that holds what a publish waits for, as pg_stat_activity shows it (None: hidden
    from this role)."""

    pid: int
    since: Any  # its transaction's start (a datetime)
    state: str | None  # "active", "idle in transaction", ...
    idle: float | None  # seconds since its state last changed

    def said(self) -> str:
        since = f", in a transaction since {self.since:%H:%M:%S}" if self.since is not None else ""
        idle = f", idle {self.idle:.0f} s" if self.idle is not None and self.state != "active" else ""
        return f"server process {self.pid}{since}{idle}"


def holders(conn: psycopg.Connection[Any], name: str) -> list[Holder]:
    """Who holds a lock on docir.sections that a writer waits for (a bulk publish's), or this repository's
    publish lock; read after a wait gave up, in a transaction of its own."""
    found = conn.execute(
        "SELECT DISTINCT a.pid, a.xact_start, a.state, extract(epoch FROM now() - a.state_change)::float8 "
        "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.granted AND a.pid <> pg_backend_pid() "
        "AND ((l.locktype = 'relation' AND l.relation = 'docir.sections'::regclass "
        "      AND l.mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')) "
        "  OR (l.locktype = 'advisory' AND l.objsubid = 1 "
        "      AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(%s, 0))) ORDER BY a.pid",
        (f"docir.publish {name}",)).fetchall()
    conn.rollback()
    return [Holder(int(pid), since, state, idle) for pid, since, state, idle in found]


class Waiting:
    """One publish's waits for locks another holds: said when they begin and every SAY_EVERY_SECONDS, given
    up (OrgError, nothing written) when the holder is stalled or the wait has gone on too long."""

    def __init__(self, url: str, name: str, warn: Callable[[str], None]) -> None:
        import time

        self.url, self.name, self.warn = url, name, warn
        self.started = time.monotonic()
        self.said_at: float | None = None
        self._said: set[str] = set()

    def once(self, message: str) -> None:
        """A warning each attempt would repeat, said the first time only."""
        if message not in self._said:
            self._said.add(message)
            self.warn(message)

    def again(self, conn: psycopg.Connection[Any]) -> None:
        """After a LockWait: return to try again, or raise OrgError."""
        import time

        now = time.monotonic()
        waited = now - self.started
        found = holders(conn, self.name)
        what = "; ".join(holder.said() for holder in found) or "a lock held a moment ago"
        stalled = [h for h in found if h.state == "idle in transaction" and (h.idle or 0) >= STALLED_SECONDS]
        hidden = bool(found) and all(h.state is None for h in found)  # a role that may not see their state
        if stalled or waited >= WAIT_MAX_SECONDS or (hidden and waited >= 2 * STALLED_SECONDS):
            why = "it has done nothing for" if stalled else "waited"
            length = f"{stalled[0].idle:.0f}" if stalled else f"{waited:.0f}"
            raise connect.OrgError(
                f"publishing {self.name} to {connect.describe(self.url)} gave up after {waited:.0f} s waiting for "
                f"another publish ({what}; {why} {length} s); nothing was written. Run it again once that one "
                "ends, or end it on the server: SELECT pg_terminate_backend(PID)")
        if self.said_at is None or now - self.said_at >= SAY_EVERY_SECONDS:
            self.said_at = now
            self.warn(f"waiting for another publish to finish writing ({what}); {waited:.0f} s so far")


def bound_lock_waits(conn: psycopg.Connection[Any]) -> None:
    """This transaction's waits for a lock end after LOCK_WAIT_MS (a LockWait, through guarded)."""
    conn.execute(f"SET LOCAL lock_timeout = {LOCK_WAIT_MS}")


@contextmanager
def guarded(url: str, name: str) -> Iterator[None]:
    """The database's refusals inside a publish as one-line errors; the transaction inside is rolled back.
    A lock wait that ran out is a LockWait, for the caller to wait again or give up (Waiting)."""
    import psycopg

    try:
        yield
    except psycopg.errors.LockNotAvailable:
        raise LockWait() from None
    except psycopg.errors.InsufficientPrivilege as exc:
        raise connect.OrgError(f"cannot publish {name} to {connect.describe(url)}: {connect.first_line(exc)}; the "
                               "role needs INSERT, UPDATE and DELETE on docir's tables; nothing was written") from None
    except psycopg.Error as exc:
        raise connect.OrgError(f"publishing {name} to {connect.describe(url)} failed: {connect.first_line(exc)}; "
                               "nothing was written") from None


def lock(conn: psycopg.Connection[Any], name: str, warn: Callable[[str], None]) -> None:
    """Wait for any other publish of this repository to finish; other repositories are not held up. The
    wait is bounded as every lock wait of a publish is (bound_lock_waits, Waiting)."""
    key = f"docir.publish {name}"
    got = conn.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", (key,)).fetchone()
    if got is not None and got[0]:
        return
    warn(f"another publish of {name} is running; waiting for it to finish")
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))


REPO_COLUMNS = ("remote", "model_id", "dimension", "model_window", "chunking", "schema", "revision", "documents")


def repo_row(conn: psycopg.Connection[Any], where: Target) -> tuple[Any, ...] | None:
    """The repository's row as stored (in REPO_COLUMNS order), or None; refuses another remote's name."""
    found = conn.execute(f"SELECT {', '.join(REPO_COLUMNS)} FROM docir.repos WHERE name = %s",
                         (where.name,)).fetchone()
    if found is None:
        return None
    remote = found[0]
    if remote and remote != where.remote:
        raise UsageError(f"{where.name} is already published from {remote}, not from "
                         f"{where.remote or 'a repository without a remote'}; publish under another name with --as")
    return tuple(found)


def fingerprints(conn: psycopg.Connection[Any], repo: str) -> dict[str, str]:
    """id -> fingerprint of every document the repository has published."""
    return dict(conn.execute("SELECT id, fingerprint FROM docir.documents WHERE repo = %s", (repo,)).fetchall())


def write_repo(conn: psycopg.Connection[Any], name: str, values: tuple[Any, ...]) -> None:
    """The repository's row, made or replaced: `values` in REPO_COLUMNS order."""
    assignments = ", ".join(f"{c} = excluded.{c}" for c in REPO_COLUMNS)
    conn.execute(
        f"INSERT INTO docir.repos (name, {', '.join(REPO_COLUMNS)}, published_at)"
        f" VALUES (%s, {', '.join(['%s'] * len(REPO_COLUMNS))}, now())"
        f" ON CONFLICT (name) DO UPDATE SET {assignments}, published_at = excluded.published_at",
        (name, *values[:5], json.dumps(values[5]), *values[6:]),
    )


def delete_documents(conn: psycopg.Connection[Any], repo: str, ids: Sequence[str]) -> None:
    """These documents out, with their sections and links, and their words out of the counts."""
    if ids:
        count_terms(conn, repo, ids, -1)
        conn.execute("DELETE FROM docir.documents WHERE repo = %s AND id = ANY(%s)", (repo, list(ids)))


def send(conn: psycopg.Connection[Any], part: Part) -> None:
    """A part's rows, each table's by one COPY."""
    with conn.cursor() as cur:
        for table, columns, found in (("documents", DOCUMENT_COLUMNS, part.documents),
                                      ("sections", SECTION_COLUMNS, part.sections),
                                      ("links", LINK_COLUMNS, part.links)):
            _copy(cur, table, columns, found)


def finish(conn: psycopg.Connection[Any], repo: str, ids: Sequence[str]) -> None:
    """After the rows of `ids` went in: their words counted, and the repository's totals made again."""
    count_terms(conn, repo, ids, 1)
    conn.execute(_TOTALS_SQL, {"format": rows.ROW_FORMAT, "repo": repo})


def vector_index(conn: psycopg.Connection[Any], repo: str) -> str | None:
    """The name of the repository's own index of section vectors; None: its vectors are in the shared one."""
    found = conn.execute("SELECT vector_index FROM docir.repos WHERE name = %s", (repo,)).fetchone()
    return None if found is None else found[0]


def may_index(conn: psycopg.Connection[Any]) -> bool:
    """Whether this role may build and drop indexes on docir.sections: only its owner (or a member of the
    owning role) may. Another writer's big publish goes into the shared index, one vector at a time."""
    found = conn.execute("SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c"
                         " WHERE c.oid = 'docir.sections'::regclass").fetchone()
    return bool(found and found[0])


def take_sections(conn: psycopg.Connection[Any]) -> None:
    """Before a bulk publish writes: other publishes wait to write sections until it commits, and it waits
    for those writing now. Two bulk publishes would otherwise each hold rows the other's CREATE INDEX waits
    for; readers are never held up (their ACCESS SHARE conflicts with neither lock)."""
    conn.execute("LOCK TABLE docir.sections IN SHARE ROW EXCLUSIVE MODE")


def move_to_own_index(conn: psycopg.Connection[Any], repo: str) -> None:
    """The repository's rows a bulk publish keeps, marked for the index of its own it builds (index_own)."""
    conn.execute("UPDATE docir.sections SET own_index = true WHERE repo = %s AND NOT own_index", (repo,))


def index_own(conn: psycopg.Connection[Any], repo: str) -> str:
    """Build the repository's index of section vectors at once over its rows (under take_sections), and name
    it in its row; the index it replaces, if any, is left to drop_stale_indexes once this commits."""
    import secrets

    from docir.org.tables import own_index_sql, quoted

    name = f"{_INDEX_PREFIX}{_repo_hash(repo)}_{secrets.token_hex(3)}"
    memory = conn.execute("SELECT setting::bigint * 1024 FROM pg_settings WHERE name = 'maintenance_work_mem'"
                          ).fetchone()
    if memory is not None and memory[0] < BUILD_MEMORY:  # the graph built in memory: a third of the time of 64 MB's
        conn.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY // (1024 * 1024)}MB'")
    conn.execute(own_index_sql(name, quoted(repo)))
    conn.execute("UPDATE docir.repos SET vector_index = %s WHERE name = %s", (name, repo))
    return name


def drop_stale_indexes(conn: psycopg.Connection[Any], repo: str) -> None:
    """Drop the repository's own indexes that its row no longer names (one replaced by a bulk publish, or
    all of them once the repository is removed), CONCURRENTLY: readers are not held up. Outside a
    transaction, after the publish committed; one left behind by a failure is dropped the next time."""
    conn.execute(f"SET lock_timeout = {LOCK_WAIT_MS}")  # a stalled transaction leaves the index for next time
    current = vector_index(conn, repo)
    found = conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'docir' AND indexname LIKE %s",
                         (f"{_INDEX_PREFIX}{_repo_hash(repo)}\\_%",)).fetchall()
    for (name,) in found:
        if name != current:
            conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS docir."{name}"')


# An index of a repository's own is named by a hash of its name (any characters, and not too long) and
# a random suffix, so a new one is built beside the one it replaces.
_INDEX_PREFIX = "sections_vector_"
BUILD_MEMORY = 256 * 1024 * 1024


def _repo_hash(repo: str) -> str:
    import hashlib

    return hashlib.sha256(repo.encode("utf-8")).hexdigest()[:12]


def remove_repository(conn: psycopg.Connection[Any], name: str) -> list[str]:
    """The repository's row out, and with it every row of it; the ids of its documents that went."""
    ids = [r[0] for r in conn.execute("SELECT id FROM docir.documents WHERE repo = %s ORDER BY id", (name,))]
    conn.execute("DELETE FROM docir.repos WHERE name = %s", (name,))
    return ids


# Each table's rows go in by COPY, in its text form: the server parses each value as it would
# the same text cast to the column's type (jsonb, tsvector, vector), and the client sends a
# part's rows in one stream rather than a statement each (adr-97ebb77d9713).
DOCUMENT_COLUMNS = ("repo", "id", "path", "type", "title", "description", "status", "active", "archived", "tags",
                     "owner", "verified", "related", "applies_to", "meta", "body", "sha256", "fingerprint", "lex",
                     "lex_tokens", "vector")
SECTION_COLUMNS = ("repo", "doc_id", "ord", "heading", "start_line", "end_line", "lex", "lex_tokens", "vector",
                   "own_index")
LINK_COLUMNS = ("repo", "doc_id", "kind", "target")


def _copy(cur: psycopg.Cursor[Any], table: str, columns: Sequence[str], found: Sequence[tuple[Any, ...]]) -> None:
    if not found:
        return
    with cur.copy(f"COPY docir.{table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in found:
            copy.write_row(row)


# The totals bm25's idf and average length read (ranking_sql.py), kept per repository so a reader
# sums a few rows instead of scanning every section it reads.
_TOTALS_SQL = (
    "UPDATE docir.repos r SET row_format = %(format)s, lex_documents = d.n, lex_document_tokens = d.t,"
    " lex_sections = s.n, lex_section_tokens = s.t"
    " FROM (SELECT count(*) AS n, coalesce(sum(lex_tokens), 0) AS t FROM docir.documents"
    "       WHERE repo = %(repo)s AND lex IS NOT NULL) d,"
    "      (SELECT count(*) AS n, coalesce(sum(lex_tokens), 0) AS t FROM docir.sections"
    "       WHERE repo = %(repo)s AND lex IS NOT NULL) s"
    " WHERE r.name = %(repo)s"
)


# Each word's documents and sections among the named documents of a repository, added to (sign 1)
# or taken from (-1) its counts in docir.terms; words no row holds any more are dropped.
_TERMS_SQL = """
    WITH counted AS (
        SELECT lexeme, sum(d)::integer AS d, sum(s)::integer AS s FROM (
            SELECT unnest(tsvector_to_array(lex)) AS lexeme, 1 AS d, 0 AS s FROM docir.documents
            WHERE repo = %(repo)s AND id = ANY(%(ids)s) AND lex IS NOT NULL
            UNION ALL
            SELECT unnest(tsvector_to_array(lex)), 0, 1 FROM docir.sections
            WHERE repo = %(repo)s AND doc_id = ANY(%(ids)s) AND lex IS NOT NULL
        ) x GROUP BY lexeme
    )
    INSERT INTO docir.terms AS t (repo, lexeme, documents, sections)
    SELECT %(repo)s, lexeme, %(sign)s * d, %(sign)s * s FROM counted
    ON CONFLICT (lexeme, repo) DO UPDATE
        SET documents = t.documents + excluded.documents, sections = t.sections + excluded.sections"""


def count_terms(conn: psycopg.Connection[Any], repo: str, ids: Sequence[str], sign: int) -> None:
    if not ids:
        return
    conn.execute(_TERMS_SQL, {"repo": repo, "ids": list(ids), "sign": sign})
    if sign < 0:
        conn.execute("DELETE FROM docir.terms WHERE repo = %s AND documents <= 0 AND sections <= 0", (repo,))


class Part(NamedTuple):
    """Rows of some documents, ready to send, and what to say about them."""

    documents: list[tuple[Any, ...]]
    sections: list[tuple[Any, ...]]
    links: list[tuple[Any, ...]]
    written: int  # documents written once these are, counted from the first due one
    notes: list[str]


def part_of(repo: str, taken: Sequence[tuple[rows.Local, DocRow]], written: int,
            vectors_of: Callable[[set[str]], dict[str, bytes]], own_index: bool = False) -> Part:
    """The rows of some documents, ready to send: `vectors_of` gives the blobs of the vectors they name;
    `own_index`: the repository's section vectors go in an index of its own (`own_index`)."""
    notes = [f"{row.path}: only its first {SEARCHED_MAX:,} characters are searched by words in the organisation "
             "store (PostgreSQL's tsvector holds 1 MB)" for _, row in taken if len(row.searched) > SEARCHED_MAX]
    sections = [rows.section_rows(row, entry.vectors) for entry, row in taken]
    wanted = {e.vectors.vector_sha for e, _ in taken if e.vectors and e.vectors.vector_sha}
    wanted |= {s.vector_sha for found in sections for s in found if s.vector_sha}
    blobs = vectors_of(wanted) if wanted else {}

    def vector(sha: str | None) -> str | None:
        blob = blobs.get(sha) if sha else None
        return to_text(blob) if blob is not None else None

    part = Part([], [], [], written, notes)
    for (entry, row), found in zip(taken, sections, strict=True):
        # Archived documents have no words: the local index does not search them either.
        words, by_ord = (None, {}) if row.archived else lexemes.document_words(row, found, SEARCHED_MAX)
        part.documents.append(_document_params(repo, entry, row, words, vector))
        part.sections.extend((repo, row.id, s.ord, list(s.heading), s.start_line, s.end_line,
                              *(by_ord.get(s.ord) or (None, None)), vector(s.vector_sha), own_index)
                             for s in found)
        part.links.extend((repo, row.id, kind, target) for kind, target in rows.links(row))
    return part


def _document_params(repo: str, entry: rows.Local, row: DocRow, words: lexemes.Lexical | None,
                     vector: Callable[[str | None], str | None]) -> tuple[Any, ...]:
    meta = json.loads(row.meta_json)
    applies_to = as_globs(meta.get(FIELD)) or []
    return (repo, row.id, row.path, row.type, row.title, row.description, row.status, entry.active, row.archived,
            list(row.tags), row.owner, row.verified, json.dumps([list(e) for e in row.related]), applies_to,
            row.meta_json, row.body, row.sha256, entry.fingerprint, *(words or (None, None)),
            vector(entry.vectors.vector_sha if entry.vectors else None))


def warn_elsewhere(conn: psycopg.Connection[Any], repo: str, ids: Sequence[str],
                    warn: Callable[[str], None]) -> None:
    """Say which new ids another repository already publishes: ids are meant to be unique across an
    organisation (a link names its target by id alone), so a copied document makes links ambiguous."""
    if not ids:
        return
    found = conn.execute("SELECT id, min(repo) FROM docir.documents WHERE repo <> %s AND id = ANY(%s)"
                         " GROUP BY id ORDER BY id", (repo, list(ids))).fetchall()
    if found:
        shown = ", ".join(f"{doc_id} ({other})" for doc_id, other in found[:3])
        more = f" and {len(found) - 3} more" if len(found) > 3 else ""
        warn(f"{len(found)} id(s) of {repo} are published by another repository too: {shown}{more}; "
             "a link to them is ambiguous (give the copy a new id)")
