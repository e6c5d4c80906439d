"""The rules of files as git and the walk of docs/ find them: unreadable files, conflict markers,
symlinks the walk does not follow, and applies_to globs against the repository's files."""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from urllib.parse import unquote

from docir.documents import body_links, globs
from docir.documents.conflicts import conflict_markers
from docir.documents.scan import FileStat, link_reason
from docir.errors import InputError
from docir.services.indexing.convert import is_archived_path
from docir.services.lint.registry import Hit, Parsed, rule


@rule("DOC016", "unreadable-file", "error", "The file is binary, not UTF-8, or too large to be a document.",
      "Only UTF-8 Markdown documents belong under docs/. Move the file elsewhere or re-save it as UTF-8.",
      bad="docs/decisions/diagram.md   # a PNG saved with a .md name",
      good="docs/decisions/diagram.png  # beside the documents, not one of them")
def unreadable_file(path: str, error: InputError | OSError) -> Iterator[Hit]:
    message = error.message if isinstance(error, InputError) else error.strerror or str(error)
    yield path, 1, 1, message


@rule("DOC019", "applies-to-matches-nothing", "warning",
      "An applies_to glob matches no file in the repository.",
      "applies_to lists globs of the files a document governs, relative to the repository root "
      "(e.g. src/auth/**, '*.proto'); context --path and --changed put the document first for them. "
      "A glob that matches nothing usually means the code it governed moved or is gone, and the "
      "document may be stale: re-read it, then fix the glob (docir update ID --applies-to GLOB). "
      "Files git ignores do not count.",
      bad="applies_to: [src/auth/**]      # src/auth/ was moved to services/auth/",
      good="applies_to: [services/auth/**]")
def applies_to_matches_nothing(parsed: Parsed, files: Callable[[], list[str]]) -> Iterator[Hit]:
    """`files` lists the repository's files, called at the first glob to match (once for all documents)."""
    found = _applies_to(parsed)
    if found is None or found[1] is None:  # no glob list: DOC021's
        return
    line, written = found[0], found[1]
    for glob in written:
        if globs.problem(glob) is None and not any(globs.matches(glob, f) for f in files()):
            yield (parsed.path, line, 1,
                   f"applies_to '{glob}' matches no file in the repository; the code it governed may be gone")


@rule("DOC026", "broken-body-link", "error",
      "A relative link in the body names a file, or a heading of one, that does not exist.",
      "A link between documents or records (`[ADR 7](0007-use-postgres.md)`, `../guides/setup.md#install`, an "
      "image) is read relative to the document's folder, and its #anchor as the slug a git host gives a "
      "heading (lower case, punctuation dropped, spaces as '-'). The finding points at the line. Fix the "
      "path or the anchor, or add the file. Links with a scheme (https:, mailto:) and site-rooted paths "
      "(/docs/x) are not checked, nor links in code.",
      bad="Supersedes [ADR 7](0007-use-postgress.md)", good="Supersedes [ADR 7](0007-use-postgres.md)")
def broken_body_link(parsed: Parsed, root: Path) -> Iterator[Hit]:
    doc = parsed.doc
    if doc is None or parsed.conflicted or is_archived_path(parsed.path):
        return
    here, top = (root / parsed.path).parent, root.resolve()
    for link in body_links.links(doc.body):
        line = parsed.body_line + link.line - 1
        target = here / link.target if link.target else root / parsed.path
        try:
            inside = target.resolve().is_relative_to(top)
        except OSError:
            continue
        if not inside:
            continue  # a link out of the repository: not the store's to check
        if not target.exists():
            yield parsed.path, line, 1, f"links to {link.target}, which does not exist"
            continue
        if link.anchor and target.is_file() and target.suffix in (".md", ".markdown"):
            try:
                known = body_links.anchors(doc.body) if target == root / parsed.path else _anchors_of(target)
            except (OSError, UnicodeDecodeError):
                continue
            if unquote(link.anchor).lower() not in known:
                where = link.target or "this document"
                yield parsed.path, line, 1, f"links to #{link.anchor} in {where}, which has no such heading"


def _anchors_of(target: Path) -> frozenset[str]:
    """The anchors of the file at `target`, read once however many links name it (by its stat)."""
    st = target.stat()
    return _anchors_read(str(target), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _anchors_read(path: str, _size: int, _mtime_ns: int) -> frozenset[str]:
    from docir.documents import frontmatter

    text = Path(path).read_text(encoding="utf-8")
    try:
        body = frontmatter.split(text).body
    except InputError:
        body = text
    return frozenset(body_links.anchors(body))


@rule("DOC021", "invalid-applies-to", "error", "applies_to is not a list of globs inside the repository.",
      "Write applies_to as a list of globs relative to the repository root:\n"
      "  applies_to: [src/auth/**, '*.proto']\nAbsolute paths and '..' can never match.",
      bad="applies_to: [../shared/auth/**]", good="applies_to: [src/auth/**, '*.proto']")
def invalid_applies_to(parsed: Parsed) -> Iterator[Hit]:
    found = _applies_to(parsed)
    if found is None:
        return
    line, written = found
    if written is None:
        yield parsed.path, line, 1, "applies_to must be a glob or a list of globs"
        return
    for glob in written:
        wrong = globs.problem(glob)
        if wrong is not None:
            yield parsed.path, line, 1, f"applies_to: {wrong}"


def _applies_to(parsed: Parsed) -> tuple[int, list[str] | None] | None:
    """The line of a checked document's applies_to and its globs (None when it is no glob list); None
    when there is nothing to check: no document, one in conflict or archived, or no applies_to."""
    doc = parsed.doc
    if doc is None or parsed.conflicted or globs.FIELD not in doc.meta or is_archived_path(parsed.path):
        return None
    return parsed.lines.get(globs.FIELD, 1), globs.as_globs(doc.meta[globs.FIELD])


@rule("DOC023", "conflict-markers", "error", "The file holds unresolved merge conflict markers.",
      "git could not merge this file and wrote both sides into it between '<<<<<<<', '=======' and "
      "'>>>>>>>' lines. The finding points at each marker. Keep the text that is right, delete the "
      "marker lines, then 'git add' the file. Until then reads skip the document with a warning that "
      "it is in conflict.",
      bad="<<<<<<< HEAD\nstatus: accepted\n=======\nstatus: superseded\n>>>>>>> other-branch",
      good="status: superseded")
def conflict_markers_left(path: str, text: str) -> Iterator[Hit]:
    for line, marker in conflict_markers(text):
        yield path, line, 1, f"unresolved merge conflict marker '{marker}'; keep one side and delete the marker lines"


@rule("DOC024", "unfollowed-symlink", "warning",
      "A symlink under docs/ leaves the repository, loops, or points at nothing.",
      "docir follows a symlink under docs/ that stays inside the repository (or the store root outside "
      "git) and indexes what it reaches under the link's path. A link that leads outside, loops back on "
      "itself or points at nothing is not followed, so whatever documents it was meant to bring in are "
      "not indexed, linted or found; reads warn about it too. Copy the documents in, point the link "
      "inside the repository, or read the other tree as a peer store (.docir/stores.yaml).",
      bad="docs/shared -> /home/me/other-repo/docs", good="docs/shared -> ../vendor/platform-docs")
def unfollowed_symlink(disk: Mapping[str, FileStat]) -> Iterator[Hit]:
    """`disk` is the walk of docs/ (docir/documents/scan.py): a negative size marks a link it did not follow."""
    for path, (size, _) in sorted(disk.items()):
        if size < 0:  # adr-7c2e94a0d5b1
            yield path, 1, 1, link_reason(size)


def repository_files(root: Path) -> list[str]:
    """The repository's files relative to root: what git tracks or would track, else every file not hidden."""
    try:
        done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=root,
                              capture_output=True, text=True, timeout=60)
        if done.returncode == 0:
            return [p for p in done.stdout.split("\0") if p]
    except (OSError, subprocess.TimeoutExpired):
        pass
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        base = Path(folder).relative_to(root)
        found.extend((base / name).as_posix() for name in names if not name.startswith("."))
    return found
