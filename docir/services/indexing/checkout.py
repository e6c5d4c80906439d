"""Documents git has that a sparse checkout left off disk (adr-5d0b7e31c9a6).

A link to such a document is not broken: the document exists in the repository, this
checkout only does not hold it. Git is asked only when a link is otherwise unresolved and
the checkout is sparse (`is_sparse`, from files alone), so an ordinary read never runs git
here, nor a query.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from docir.documents.ownership import Ownership
from docir.documents.scan import repository_root
from docir.store import Store

_SKIP_WORKTREE = "S"  # `git ls-files -t`: the path is in git's index, the checkout leaves it off disk


def is_sparse(store: Store) -> bool:
    """Whether the checkout holding the store was made sparse: its git folder holds
    info/sparse-checkout (`git sparse-checkout set` writes it). A few stats, no git process."""
    top = repository_root(store.root)
    dot_git = os.path.join(top, ".git")
    git_dir = dot_git
    if os.path.isfile(dot_git):  # a linked worktree or a submodule: "gitdir: <its git folder>"
        try:
            with open(dot_git, encoding="utf-8") as handle:
                git_dir = os.path.join(top, handle.readline().partition("gitdir:")[2].strip())
        except (OSError, UnicodeDecodeError):
            return False
    return os.path.isfile(os.path.join(git_dir, "info", "sparse-checkout"))


def outside_checkout(store: Store, env: Mapping[str, str], owned: Ownership | None = None) -> dict[str, str]:
    """id -> store-relative path of each document that git's index holds with the skip-worktree bit
    and that is not on disk, of those `owned` (by default the store's schema) leaves in
    (adr-547a50927c6b). Empty outside git or when git cannot answer. Git runs in `env`, the caller's.

    Not kept between calls: a long-lived worker would miss a `git sparse-checkout add`.
    """
    # Only a sparse checkout with a broken link pays for these (a cold `get` imports neither).
    from docir import gitio
    from docir.documents.frontmatter import declared_id

    if owned is None:
        from docir.schema import load_schema

        owned = Ownership.of(load_schema(store.schema_path, cache=store.schema_cache_path))
    root = store.root
    listed = gitio.run(["ls-files", "-s", "-t", "-z", "--", store.docs_dir.relative_to(root).as_posix()], root, env)
    if listed is None:
        return {}
    blobs: dict[str, str] = {}  # blob sha -> path (paths are relative to root, where git runs)
    for record in listed.decode("utf-8", "replace").split("\0"):
        tag, _, rest = record.partition(" ")
        info, _, path = rest.partition("\t")
        fields = info.split()
        if tag == _SKIP_WORKTREE and owned.owns(path) and len(fields) == 3 and not (root / path).exists():
            blobs.setdefault(fields[1], path)
    found: dict[str, str] = {}
    reader = gitio.BlobReader(root, env)
    try:
        for sha, where in blobs.items():
            data = reader.read(sha)
            doc_id = None if data is None else declared_id(data)
            if doc_id is not None:
                found.setdefault(doc_id, where)
    except OSError:  # no git to read them with: as if git knew of none
        return {}
    finally:
        reader.close()
    return found
