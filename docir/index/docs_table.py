"""The document rows: documents with their FTS and relation rows, the skipped files, and the reads by row."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence

from docir.index.chunked import in_chunks
from docir.index.fts import index_text
from docir.index.records import (
    DocRow,
    DocumentState,
    FileState,
    Filters,
    Identity,
    Listing,
    SectionSpan,
    SkippedFile,
)
from docir.index.vector_store import VectorStore
from docir.store import ARCHIVE_DIR, DOCS_DIR

_LISTING_COLUMNS = ("rowid, path, id, type, title, description, status, tags, related, owner, verified, archived, size,"
                    " hidden")
_ANY = Filters()
# The sections `o` of documents that get vectors (archived ones do not) saying what section `s` says.
_SAYING = ("FROM sections o JOIN documents od ON od.rowid = o.doc"
           " WHERE o.body_key = s.body_key AND od.archived = 0")


class DocsTable:
    """One row per file under docs/, keyed by path; a change also schedules or drops its vectors."""

    def __init__(self, conn: sqlite3.Connection, vectors: VectorStore) -> None:
        self.conn = conn
        self._vectors = vectors

    # --- what the sync compares against -------------------------------------------------

    def file_states(self, paths: Sequence[str]) -> dict[str, FileState]:
        """What the index remembers of those `paths` it knows: the files a sync plan names."""
        rows = in_chunks(self.conn, "SELECT path, size, mtime_ns, sha256 FROM documents WHERE path IN (...)", paths)
        return {r[0]: FileState(r[0], r[1], r[2], r[3]) for r in rows}

    def stats(self) -> dict[str, tuple[int, int]]:
        """Every document's (size, mtime_ns) by path, built in C: what every walk's result is compared to
        (the shape of documents/scan.py's FileStat, which this layer does not import)."""
        cursor = self.conn.cursor()
        cursor.row_factory = None  # plain tuples: zip takes them apart in C
        rows = cursor.execute("SELECT path, size, mtime_ns FROM documents").fetchall()
        if not rows:
            return {}
        paths, sizes, mtimes = zip(*rows, strict=True)
        return dict(zip(paths, zip(sizes, mtimes, strict=True), strict=True))

    def skipped_files(self, paths: Sequence[str] | None = None) -> dict[str, SkippedFile]:
        """The files remembered as unreadable: all, or those of `paths`."""
        sql = "SELECT path, size, mtime_ns, reason FROM skipped"
        rows = self.conn.execute(sql) if paths is None else in_chunks(self.conn, f"{sql} WHERE path IN (...)", paths)
        return {r[0]: SkippedFile(r[0], r[1], r[2], r[3]) for r in rows}

    # --- writes -----------------------------------------------------------------------

    def upsert(self, row: DocRow) -> int:
        """Insert or replace the document at row.path with its FTS and relation rows; return its rowid."""
        # Column -> value: the one list of what a document row holds, for the INSERT and the UPDATE.
        values = {
            "id": row.id, "type": row.type, "title": row.title, "description": row.description, "status": row.status,
            "tags": json.dumps(list(row.tags)), "related": json.dumps([list(e) for e in row.related]),
            "owner": row.owner, "verified": row.verified, "meta": row.meta_json, "body": row.body,
            "headings": json.dumps(list(row.headings)), "sha256": row.sha256, "size": row.size,
            "mtime_ns": row.mtime_ns, "archived": int(row.archived), "text_sha": row.text_sha, "shown": row.shown,
            "hidden": row.hidden,
        }
        existing = self.conn.execute("SELECT rowid, archived FROM documents WHERE path = ?", (row.path,)).fetchone()
        was_archived = existing is not None and bool(existing[1])
        if existing is None:
            cur = self.conn.execute(
                f"INSERT INTO documents ({', '.join(values)}, path) VALUES ({', '.join('?' * (len(values) + 1))})",
                (*values.values(), row.path),
            )
            rowid = int(cur.lastrowid or 0)
        else:
            rowid = int(existing[0])
            self.conn.execute(f"UPDATE documents SET {', '.join(f'{c} = ?' for c in values)} WHERE rowid = ?",
                              (*values.values(), rowid))
        said = self._forget_sections(rowid)
        self.conn.executemany("INSERT INTO sections (doc, path, start, end, body_key) VALUES (?, ?, ?, ?, ?)",
                              [(rowid, json.dumps(list(s.path)), s.start, s.end, s.body_key) for s in row.sections])
        self._refresh_searchable(rowid, row)
        says = {s.body_key for s in row.sections if s.body_key}
        # Only what it stopped or started saying changes who shares what; all of it when the document
        # came into or left the archive (archived documents count for nothing), none while it stays there.
        self._reshare(rowid, said | says if was_archived != row.archived else set() if row.archived else said ^ says)
        return rowid

    def move(self, old_path: str, state: FileState, archived: bool) -> int:
        """Record that the file at old_path now lives at state.path, its content unchanged."""
        found = self.conn.execute("SELECT rowid, archived FROM documents WHERE path = ?", (old_path,)).fetchone()
        rowid, was_archived = int(found[0]), bool(found[1])
        self.conn.execute(
            "UPDATE documents SET path = ?, size = ?, mtime_ns = ?, archived = ? WHERE rowid = ?",
            (state.path, state.size, state.mtime_ns, int(archived), rowid),
        )
        if archived != was_archived:
            self._refresh_searchable(rowid, self._row(rowid))
            self._reshare(rowid, self._said_by(rowid))
        return rowid

    def touch(self, state: FileState) -> None:
        """The file's stat changed but not its content: remember the new stat only."""
        self.conn.execute(
            "UPDATE documents SET size = ?, mtime_ns = ? WHERE path = ?",
            (state.size, state.mtime_ns, state.path),
        )

    def mark_unread(self, prefixes: Sequence[str]) -> None:
        """Forget the stat and hash of every document whose path starts with one of `prefixes`: the next
        walk reads each again, and one that reads differently is updated."""
        for prefix in prefixes:
            self.conn.execute("UPDATE documents SET size = -1, mtime_ns = -1, sha256 = '' "
                              "WHERE substr(path, 1, ?) = ?", (len(prefix), prefix))

    def remove(self, path: str) -> int | None:
        """Delete the document at `path` with its FTS and relation rows (same transaction)."""
        found = self.conn.execute("SELECT rowid FROM documents WHERE path = ?", (path,)).fetchone()
        if found is None:
            return None
        rowid = int(found[0])
        self.conn.execute("DELETE FROM documents_fts WHERE rowid = ?", (rowid,))
        self.conn.execute("DELETE FROM relations WHERE doc = ?", (rowid,))
        said = self._forget_sections(rowid)
        self._vectors.forget(rowid)
        self.conn.execute("DELETE FROM documents WHERE rowid = ?", (rowid,))
        self._reshare(rowid, said)
        return rowid

    def set_skipped(self, skipped: SkippedFile) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO skipped (path, size, mtime_ns, reason) VALUES (?, ?, ?, ?)",
            (skipped.path, skipped.size, skipped.mtime_ns, skipped.reason),
        )

    def clear_skipped(self, path: str) -> None:
        self.conn.execute("DELETE FROM skipped WHERE path = ?", (path,))

    def _refresh_searchable(self, rowid: int, row: DocRow) -> None:
        # Archived documents keep their row (get still finds them) but leave FTS, vectors and the graph.
        self.conn.execute("DELETE FROM documents_fts WHERE rowid = ?", (rowid,))
        self.conn.execute("DELETE FROM relations WHERE doc = ?", (rowid,))
        self._forget_section_text(rowid)
        if row.archived:
            self._vectors.forget(rowid)
            return
        self._vectors.schedule(rowid, row.text_sha)
        self.conn.execute(
            "INSERT INTO documents_fts (rowid, title, description, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)",
            (rowid, index_text(row.title), index_text(row.description), index_text(" ".join(row.tags)),
             index_text("\n".join(row.headings)), index_text(row.searched)),
        )
        self.conn.executemany(
            "INSERT INTO relations (doc, src, kind, dst) VALUES (?, ?, ?, ?)",
            [(rowid, row.id, kind, target) for kind, target in row.related]
            + [(rowid, source, kind, target) for source, kind, target in row.stated],
        )
        # Every section carries what its document is about: a section is found by the words of its
        # document's title, description and tags as well as by its own.
        title, about = index_text(row.title), index_text(row.description + "\n" + " ".join(row.tags))
        searched = row.searched
        self.conn.executemany(
            "INSERT INTO sections_fts (rowid, title, about, heading, body, doc) VALUES (?, ?, ?, ?, ?, ?)",
            [(section_rowid, title, about, index_text(" ".join(path)), index_text(searched[start:end]), str(rowid))
             for section_rowid, path, start, end in self._sections(rowid)],
        )

    def _sections(self, rowid: int) -> list[tuple[int, tuple[str, ...], int, int]]:
        rows = self.conn.execute("SELECT rowid, path, start, end FROM sections WHERE doc = ? ORDER BY rowid", (rowid,))
        return [(int(r[0]), tuple(json.loads(r[1])), int(r[2]), int(r[3])) for r in rows]

    def _forget_sections(self, rowid: int) -> set[str]:
        """Delete the document's sections; return the keys of what they said (body_key), for _reshare."""
        said = self._said_by(rowid)
        self._forget_section_text(rowid)
        self.conn.execute("DELETE FROM sections WHERE doc = ?", (rowid,))
        return said

    # --- sections several documents say word for word (adr-5d1c0a7e94b2) -----------------------

    def _said_by(self, rowid: int) -> set[str]:
        """The body keys of the document's sections that say something."""
        return {r[0] for r in self.conn.execute(
            "SELECT body_key FROM sections WHERE doc = ? AND body_key IS NOT NULL", (rowid,))}

    def shared_spans(self, rowid: int) -> list[tuple[int, int]]:
        """The spans of the document's sections whose body another document says word for word: they
        get no vector ("TBD", a licence line, a template's prompt left in)."""
        rows = self.conn.execute(
            "SELECT s.start, s.end FROM sections s WHERE s.doc = ? AND s.body_key IS NOT NULL AND EXISTS"
            f" (SELECT 1 {_SAYING} AND o.doc != s.doc)", (rowid,))
        return [(int(r[0]), int(r[1])) for r in rows]

    def _reshare(self, rowid: int, said: set[str]) -> None:
        """Documents whose sections may have just become shared, or just stopped being shared, because
        `rowid` changed what it says: their section vectors are due again. A body now said by two
        documents may just have become shared, one said by one may just have stopped; re-planning a
        document whose status did not change costs no model time (its vectors are found by hash)."""
        if not said:
            return
        # Counted once per body, not once per section holding it: a licence line is in hundreds.
        few = [r[0] for r in in_chunks(
            self.conn, "SELECT o.body_key FROM sections o JOIN documents od ON od.rowid = o.doc"
            " WHERE o.body_key IN (...) AND od.archived = 0 GROUP BY o.body_key HAVING count(DISTINCT o.doc) <= 2",
            sorted(said))]
        rows = in_chunks(self.conn, "SELECT DISTINCT doc FROM sections WHERE doc != ? AND body_key IN (...)", few,
                         before=(rowid,))
        self._vectors.sections_due({int(r[0]) for r in rows})

    def _forget_section_text(self, rowid: int) -> None:
        # FTS5 has no foreign keys: its rows go by the rowids the sections table keeps.
        self.conn.execute("DELETE FROM sections_fts WHERE rowid IN (SELECT rowid FROM sections WHERE doc = ?)",
                          (rowid,))

    def _row(self, rowid: int) -> DocRow:
        r = self.conn.execute("SELECT * FROM documents WHERE rowid = ?", (rowid,)).fetchone()
        return DocRow(
            path=r["path"], id=r["id"], type=r["type"], title=r["title"], description=r["description"],
            status=r["status"], tags=tuple(json.loads(r["tags"])),
            related=tuple((k, t) for k, t in json.loads(r["related"])), owner=r["owner"],
            verified=r["verified"], meta_json=r["meta"], body=r["body"],
            headings=tuple(json.loads(r["headings"])), sha256=r["sha256"], size=r["size"],
            mtime_ns=r["mtime_ns"], archived=bool(r["archived"]), text_sha=r["text_sha"], shown=r["shown"],
            hidden=r["hidden"],
            sections=tuple(SectionSpan(path, start, end) for _, path, start, end in self._sections(rowid)),
        )

    # --- reads ------------------------------------------------------------------------

    def by_id(self, doc_id: str) -> list[tuple[int, DocRow]]:
        """Every row carrying `doc_id` (more than one means a duplicate id), ordered by path."""
        rows = self.conn.execute("SELECT rowid FROM documents WHERE id = ? ORDER BY path", (doc_id,))
        return [(int(r[0]), self._row(int(r[0]))) for r in rows.fetchall()]

    def states(self) -> list[DocumentState]:
        """Every document's identity and file hash, in path order: what a publish compares first."""
        rows = self.conn.execute("SELECT rowid, path, id, type, status, archived, sha256 FROM documents ORDER BY path")
        return [DocumentState(int(r[0]), r[1], r[2], r[3], r[4], bool(r[5]), r[6]) for r in rows]

    def rows_by_rowid(self, rowids: Iterable[int]) -> dict[int, DocRow]:
        """The whole rows, bodies and sections included, of these documents."""
        return {rowid: self._row(rowid) for rowid in rowids}

    def body_of(self, rowid: int) -> str:
        found = self.conn.execute("SELECT body FROM documents WHERE rowid = ?", (rowid,)).fetchone()
        return "" if found is None else str(found[0])

    def count(self) -> int:
        """How many documents the store holds, any status, archived ones not counted: a read's header
        tells an agent how much there is beside what it shows. Archived is a place (docs/archive/), so
        both counts come from indexes: `archived` sits past the body, and reading it read every body
        (2.3 ms on the EIPs three times over, against 0.04)."""
        folder = f"{DOCS_DIR}/{ARCHIVE_DIR}/"
        every, archived = self.conn.execute(
            "SELECT (SELECT count(*) FROM documents),"
            " (SELECT count(*) FROM documents WHERE path >= ? AND path < ?)",
            (folder, folder[:-1] + chr(ord("/") + 1))).fetchone()
        return int(every) - int(archived)

    def listings(self, filters: Filters = _ANY) -> Iterator[Listing]:
        """Documents matching the structured filters, in path order, read lazily."""
        clauses: list[str] = []
        params: list[object] = []
        if filters.types:
            clauses.append(f"type IN ({','.join('?' * len(filters.types))})")
            params.extend(filters.types)
        if filters.statuses:
            clauses.append(f"status IN ({','.join('?' * len(filters.statuses))})")
            params.extend(filters.statuses)
        for tag in filters.tags:
            clauses.append("EXISTS (SELECT 1 FROM json_each(documents.tags) WHERE value = ?)")
            params.append(tag)
        if filters.owner is not None:
            clauses.append("owner = ?")
            params.append(filters.owner)
        if filters.related_to is not None:
            clauses.append(
                "(rowid IN (SELECT doc FROM relations WHERE dst = ?)"
                " OR id IN (SELECT dst FROM relations WHERE src = ?))"
            )
            params.extend([filters.related_to, filters.related_to])
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        cursor = self.conn.execute(f"SELECT {_LISTING_COLUMNS} FROM documents{where} ORDER BY path", params)
        for r in cursor:
            yield _listing(r)

    def listings_by_rowid(self, rowids: Iterable[int]) -> dict[int, Listing]:
        rows = in_chunks(self.conn, f"SELECT {_LISTING_COLUMNS} FROM documents WHERE rowid IN (...)", rowids)
        return {int(r[0]): _listing(r) for r in rows}

    def listings_by_ids(self, doc_ids: Iterable[str]) -> dict[str, Listing]:
        """The first (by path) row of each id."""
        found: dict[str, Listing] = {}
        # A chunk holds every row of its ids, so ordering each chunk by path finds each id's first.
        rows = in_chunks(self.conn, f"SELECT {_LISTING_COLUMNS} FROM documents WHERE id IN (...) ORDER BY path",
                         dict.fromkeys(doc_ids))
        for r in rows:
            found.setdefault(r[2], _listing(r))
        return found

    def visibility_rows(self, rowids: Iterable[int]) -> dict[int, tuple[str, str, bool]]:
        """rowid -> (type, status, archived): all a ranking needs to apply the visibility predicate."""
        rows = in_chunks(self.conn, "SELECT rowid, type, status, archived FROM documents WHERE rowid IN (...)", rowids)
        return {int(r[0]): (r[1], r[2], bool(r[3])) for r in rows}

    def every_visibility(self) -> dict[int, tuple[str, str, bool]]:
        """visibility_rows of every document, read in one statement; the few distinct values shared."""
        cursor = self.conn.cursor()
        cursor.row_factory = None  # plain tuples, built in C
        shared: dict[tuple[str, str, bool], tuple[str, str, bool]] = {}
        return {int(rowid): shared.setdefault((doc_type, status, bool(archived)), (doc_type, status, bool(archived)))
                for rowid, doc_type, status, archived in cursor.execute(
                    "SELECT rowid, type, status, archived FROM documents")}

    def with_field(self, name: str) -> list[tuple[int, str, object]]:
        """(rowid, id, value) of every unarchived document whose frontmatter has the field, in path order."""
        rows = self.conn.execute(
            "SELECT rowid, id, json_extract(meta, '$.' || ?), json_type(meta, '$.' || ?) FROM documents"
            " WHERE archived = 0 AND json_type(meta, '$.' || ?) IS NOT NULL ORDER BY path",
            (name, name, name),
        )
        # json_extract hands arrays and objects back as JSON text; scalars come as themselves.
        return [(int(r[0]), r[1], json.loads(r[2]) if r[3] in ("array", "object") else r[2]) for r in rows]

    def edges_from(self, doc_id: str) -> list[tuple[str, str]]:
        """Outgoing (kind, target) edges of the document(s) with this id."""
        rows = self.conn.execute("SELECT kind, dst FROM relations WHERE src = ? ORDER BY rowid", (doc_id,))
        return [(r[0], r[1]) for r in rows]

    def edges_among(self, sources: Sequence[int], targets: Sequence[int],
                    kinds: Iterable[str]) -> list[tuple[int, int]]:
        """(source rowid, target rowid) of the edges of the given kinds from `sources` to `targets`."""
        kinds = list(kinds)
        if not kinds or not sources or not targets:
            return []
        rows = self.conn.execute(
            "SELECT s.rowid, d.rowid FROM relations r"
            " JOIN documents s ON s.id = r.src JOIN documents d ON d.id = r.dst"
            f" WHERE r.kind IN ({','.join('?' * len(kinds))})"
            " AND s.rowid IN (SELECT value FROM json_each(?)) AND d.rowid IN (SELECT value FROM json_each(?))",
            (*kinds, json.dumps(list(sources)), json.dumps(list(targets))),
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    def identities(self, doc_ids: Iterable[str], edges_to: Iterable[str] = (),
                   kinds: Iterable[str] = ()) -> list[Identity]:
        """The documents carrying these ids, and those with an edge of these kinds to one of `edges_to`, in
        path order: what a lint of a few files needs to know of the rest of the store."""
        rowids = {int(r[0]) for r in in_chunks(self.conn, "SELECT rowid FROM documents WHERE id IN (...)",
                                               dict.fromkeys(doc_ids))}
        kinds = list(kinds)
        if kinds:
            sql = ("SELECT doc FROM relations WHERE kind IN (SELECT value FROM json_each(?)) AND dst IN (...)")
            rowids.update(int(r[0]) for r in in_chunks(self.conn, sql, dict.fromkeys(edges_to),
                                                        before=(json.dumps(kinds),)))
        rows = in_chunks(self.conn, "SELECT path, id, type, status, related, archived FROM documents"
                                    " WHERE rowid IN (...)", sorted(rowids))
        found = [Identity(r[0], r[1], r[2], r[3], tuple((k, t) for k, t in json.loads(r[4])), bool(r[5]))
                 for r in rows]
        return sorted(found)

    def edges_to(self, doc_id: str, kinds: Iterable[str]) -> list[tuple[str, str]]:
        """Incoming (kind, source) edges of the given kinds."""
        return self.edges_into([doc_id], kinds).get(doc_id, [])

    def edges_into(self, doc_ids: Iterable[str], kinds: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
        """Incoming (kind, source) edges of the given kinds to each of `doc_ids`, by target, in the order
        they were indexed: many documents' incoming links in one statement per chunk of ids."""
        kinds = list(kinds)
        found: dict[str, list[tuple[str, str]]] = {}
        if not kinds:
            return found
        rows = in_chunks(self.conn, "SELECT dst, kind, src FROM relations"
                                    " WHERE kind IN (SELECT value FROM json_each(?)) AND dst IN (...) ORDER BY rowid",
                         dict.fromkeys(doc_ids), before=(json.dumps(kinds),))
        for dst, kind, src in rows:
            found.setdefault(dst, []).append((kind, src))
        return found


def _listing(r: sqlite3.Row) -> Listing:
    return Listing(
        rowid=int(r[0]), path=r[1], id=r[2], type=r[3], title=r[4], description=r[5], status=r[6],
        tags=tuple(json.loads(r[7])), related=tuple((k, t) for k, t in json.loads(r[8])),
        owner=r[9], verified=r[10], archived=bool(r[11]), size=int(r[12]), hidden=int(r[13]),
    )
