"""Documents git has that a sparse checkout left off disk (adr-5d0b7e31c9a6).

A link to such a document is not broken: the document exists in the repository, this
checkout only does not hold it. Git is asked only when a link is otherwise unresolved,
so a store whose links all resolve never runs git here.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from docir.documents import frontmatter
from docir.documents.files import decode
from docir.errors import InputError

_TIMEOUT = 30
_SKIP_WORKTREE = "S"  # `git ls-files -t`: the path is in git's index, the checkout leaves it off disk


def outside_checkout(root: Path, docs_prefix: str = "docs") -> dict[str, str]:
    """id -> store-relative path of each `*.md` under docs/ that git's index holds with the
    skip-worktree bit and that is not on disk. Empty outside git or when git cannot answer.

    Not kept between calls: a long-lived worker would miss a `git sparse-checkout add`.
    """
    listed = _git(root, ["ls-files", "-s", "-t", "-z", "--", docs_prefix])
    if listed is None:
        return {}
    blobs: dict[str, str] = {}  # blob sha -> path (paths are relative to root, where git runs)
    for record in listed.decode("utf-8", "replace").split("\0"):
        tag, _, rest = record.partition(" ")
        info, _, path = rest.partition("\t")
        fields = info.split()
        if tag == _SKIP_WORKTREE and path.endswith(".md") and len(fields) == 3 and not (root / path).exists():
            blobs.setdefault(fields[1], path)
    if not blobs:
        return {}
    contents = _git(root, ["cat-file", "--batch"], ("\n".join(blobs) + "\n").encode())
    if contents is None:
        return {}
    found: dict[str, str] = {}
    for sha, data in _batch(contents):
        where = blobs.get(sha)
        if where is None:
            continue
        try:
            meta, _ = frontmatter.parse(decode(data, where))
        except InputError:
            continue
        doc_id = meta.get("id")
        if isinstance(doc_id, str):
            found.setdefault(doc_id, where)
    return found


def _batch(output: bytes) -> list[tuple[str, bytes]]:
    """The (sha, content) of each object in `git cat-file --batch` output; missing objects are left out."""
    items: list[tuple[str, bytes]] = []
    at = 0
    while at < len(output):
        end = output.index(b"\n", at)
        header = output[at:end].decode("ascii", "replace").split()
        at = end + 1
        if len(header) != 3:  # "<sha> missing"
            continue
        size = int(header[2])
        items.append((header[0], output[at:at + size]))
        at += size + 1
    return items


def _git(root: Path, args: list[str], stdin: bytes | None = None) -> bytes | None:
    try:
        # A partial clone would fetch a missing blob from its remote: a read never waits on the network.
        env = {**os.environ, "GIT_NO_LAZY_FETCH": "1"}
        done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, timeout=_TIMEOUT, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None
