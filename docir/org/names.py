"""A repository's name in the organisation store: its git remote, normalised, so every clone agrees.

`https://github.com/org/repo.git`, `git@github.com:org/repo.git` and `ssh://git@github.com/org/repo`
all name `github.com/org/repo`: host (lower case, no user, password or port) and path (no `.git`,
no slashes at either end). Credentials written into a remote never reach the database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from docir import gitio
from docir.errors import UsageError
from docir.org.address import credentials, password_hidden

# git's scp-like form: [user@]host:path, where the host has no slash and the path does not start with one.
_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?!//)(?P<path>.+)$")
NAME_MAX = 200


def normalise_remote(remote: str) -> str:
    """The name a remote URL gives; raises UsageError for one that names nothing."""
    text = remote.strip()
    if "://" in text:
        found = credentials(text)  # the userinfo cut by structure: a token's '/' or '@' is not the URL's
        try:
            parts = urlsplit(found.head + found.rest)
            host = (parts.hostname or "").lower()
        except ValueError:
            raise UsageError(f"the git remote '{password_hidden(text)}' cannot be read as a URL; "
                             "give --as NAME") from None
        path = parts.path
    elif (scp := _SCP.match(text)) is not None and not Path(text).exists():
        host, path = scp["host"].lower(), scp["path"]
    else:  # a local path: a bare repository on this machine or a shared disk
        host, path = "", text
    path = path.strip("/")
    path = path.removesuffix(".git").rstrip("/")
    name = f"{host}/{path}" if host else path
    if not path or not name:
        raise UsageError(f"the git remote '{password_hidden(text)}' names no repository; give --as NAME")
    return name


def check_name(name: str) -> str:
    """A name given with --as, as it will be stored."""
    name = name.strip()
    if not name or len(name) > NAME_MAX or any(ch.isspace() or not ch.isprintable() for ch in name):
        raise UsageError(f"--as '{name}': a repository name is 1 to {NAME_MAX} printable characters without spaces")
    return name


def git_remote(root: Path, env: Mapping[str, str]) -> str | None:
    """The normalised URL of the repository's `origin` (or its only remote); None without one."""
    listed = gitio.run(["remote"], root, env)
    if listed is None:
        return None
    remotes = listed.decode("utf-8", "replace").split()
    if not remotes:
        return None
    chosen = "origin" if "origin" in remotes else remotes[0] if len(remotes) == 1 else None
    if chosen is None:
        raise UsageError(f"this repository has several remotes and none is 'origin' ({', '.join(remotes)}); "
                         "give --as NAME")
    url = gitio.run(["remote", "get-url", chosen], root, env)
    if url is None:
        return None
    return normalise_remote(url.decode("utf-8", "replace"))


def git_revision(root: Path, env: Mapping[str, str]) -> str | None:
    """The commit checked out, or None outside git or before the first commit."""
    out = gitio.run(["rev-parse", "--verify", "-q", "HEAD"], root, env)
    return None if out is None else out.decode("ascii", "replace").strip() or None

