"""The documents that govern the files a task touches: `applies_to` globs against `--path` and `--changed`.

A decision that names the files it governs is the one an agent changing those files
must read, whatever words the task uses, so matching documents lead the result.
This runs after ranking and leaves its order alone otherwise: a matched document
keeps its rank among the matched, an unranked one follows them, and the rest of the
ranking fills up to `--limit`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import cast

from docir.documents.globs import FIELD, as_globs, first_match
from docir.errors import UsageError
from docir.services.indexing.session import Session
from docir.services.retrieval.results import ContextHit, ContextRow, ExplainedHit
from docir.services.retrieval.skeleton import skeleton
from docir.services.retrieval.visibility import Visibility


@dataclass(frozen=True)
class Governs:
    """A document whose applies_to glob matched one of the paths."""

    rowid: int
    id: str
    glob: str
    path: str


def repository_paths(root: Path, paths: Iterable[str]) -> list[str]:
    """Paths relative to the repository root: an absolute path is made relative, a relative one is taken as is."""
    out: list[str] = []
    for raw in paths:
        text = raw.strip()
        if not text:
            continue
        candidate = Path(text)
        if candidate.is_absolute():
            try:
                text = candidate.resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                raise UsageError(f"--path {raw} is outside the repository at {root}") from None
        text = PurePosixPath(text.replace("\\", "/")).as_posix().removeprefix("./")
        if text.startswith("../"):
            raise UsageError(f"--path {raw} is outside the repository at {root}")
        out.append(text)
    return list(dict.fromkeys(out))


def changed_paths(root: Path) -> list[str]:
    """What git says is being changed under root: tracked files that differ from HEAD (staged or not),
    files added to the index (also before the first commit) and new files git does not ignore."""
    import subprocess  # only for --changed: a cold context or get does not pay for it

    def git(*args: str) -> list[str] | None:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode != 0:
            return None
        return [p for p in done.stdout.split("\0") if p]

    if git("rev-parse", "--is-inside-work-tree") is None:
        raise UsageError(f"--changed needs a git repository; {root} is not inside one")
    found: list[str] = []
    against_head = git("diff", "--name-only", "--relative", "-z", "HEAD")
    if against_head is None:  # no commit yet: everything staged is new
        against_head = git("diff", "--name-only", "--relative", "-z", "--cached") or []
    found += against_head
    found += git("ls-files", "--others", "--exclude-standard", "-z") or []
    return list(dict.fromkeys(found))


def governing(session: Session, paths: list[str], include_inactive: bool) -> list[Governs]:
    """Visible documents whose applies_to matches one of the paths, in path order, with the glob that matched."""
    if not paths:
        return []
    visibility = Visibility.from_schema(session.schema, include_inactive)
    found: list[Governs] = []
    for rowid, doc_id, value in session.catalog.docs.with_field(FIELD):
        globs = as_globs(value)
        match = first_match(globs, paths) if globs else None
        if match is not None:
            found.append(Governs(rowid, doc_id, *match))
    seen = session.catalog.docs.visibility_rows(g.rowid for g in found)
    return [g for g in found if g.rowid in seen and visibility.allows(*seen[g.rowid])]


def lead(session: Session, rows: list[ContextRow], found: list[Governs], limit: int,
         explain: bool) -> list[ContextRow]:
    """Matched documents first (ranked ones in rank order, then the others), then the rest of the
    ranking up to `limit`, then the links of what is kept."""
    by_id = {g.id: g for g in found}
    ranked = [r for r in rows if r["via"] is None]
    linked = [r for r in rows if r["via"] is not None]
    local = [r for r in ranked if r["kind"] == "document" and r.get("store", ".") == "." and r["id"] in by_id]
    head: list[ContextRow] = [_mark(cast(ContextHit, r), by_id[r["id"]], explain) for r in local]
    shown = {r["id"] for r in local}
    missing = [g for g in found if g.id not in shown]
    head += entries(session, missing, explain)
    rest = [r for r in ranked if not any(r is h for h in local)]
    kept = head + rest[: max(0, limit - len(head))]
    kept_ids = {(r.get("store", "."), r["id"]) for r in kept}
    links = [r for r in linked if r["via"] is not None and (r.get("store", "."), r["via"]["id"]) in kept_ids
             and (r.get("store", "."), r["id"]) not in kept_ids]
    return kept + links


def entries(session: Session, found: list[Governs], explain: bool) -> list[ContextRow]:
    """Entries for matched documents the ranking did not place: skeletons with no ranking numbers."""
    listings = session.catalog.docs.listings_by_rowid(g.rowid for g in found)
    out: list[ContextRow] = []
    for g in found:
        listing = listings.get(g.rowid)
        if listing is None:
            continue
        entry: ContextHit = {**skeleton(listing, session.schema, session.today), "kind": "document", "score": None,
                             "similarity": None, "matched_section": None, "matched_section_size": None,
                             "matched_passage": None, "via": None}
        out.append(_mark(entry, g, explain))
    return out


def _mark(entry: ContextHit, g: Governs, explain: bool) -> ContextHit:
    """The entry with the glob that matched (and, with --explain, the path it matched)."""
    marked: dict[str, object] = {k: v for k, v in entry.items() if k != "explain"}
    marked["matched_glob"] = g.glob
    if explain:
        reasons = dict(cast(ExplainedHit, entry).get("explain") or {})
        reasons["applies_to"] = {"glob": g.glob, "path": g.path}
        marked["explain"] = reasons
    return cast(ContextHit, marked)
