"""Plain git hooks: install a small marked shim per hook, chaining any hook already there.

The shims call `docir hooks run EVENT`, which decides what the event needs:
a lint of staged documents before a commit, an index refresh after
checkout, merge and rebase. A refresh never fails the git command and never
touches git's own index; embeddings are left to the warm worker.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from docir.errors import UsageError
from docir.store import DOCS_DIR, SCHEMA_FILE, STATE_DIR, find_root

MARKER = "# docir-managed hook: `docir hooks uninstall` removes it and restores any hook it chained."
CHAINED_SUFFIX = ".docir-chained"
HOOKS = ("pre-commit", "post-checkout", "post-merge", "post-rewrite")

TEMPLATE = """#!/bin/sh
{marker}
# Set DOCIR=0 to skip docir for one git command.
hook_dir=$(dirname "$0")
if [ -x "$hook_dir/{name}{suffix}" ]; then
  "$hook_dir/{name}{suffix}" "$@" || {on_chained_failure}
fi
[ "${{DOCIR:-1}}" = "0" ] && exit 0
{shortcut}{run} hooks run {name} "$@"{tail}
"""
# Without starting Python, the hook's main cost (adr-a9d6f450a4d1): a file checkout ($3 = 0) or one that
# stays on the same commit.
POST_CHECKOUT_SHORTCUT = '[ "$3" = "0" ] || [ "$1" = "$2" ] && exit 0\n'
# Without starting Python: a commit that stages no document and no schema of any store, wherever the
# stores sit in the repository (adr-a9d6f450a4d1). A document is Markdown under docs/, or in a folder whose
# name says it holds decision records (doc/adr, architecture/decisions, ...), as the folders of records
# read in place outside docs/ are named (adr-0c5e2d8f1a47). Deletions count: they can break links.
# A path git still quotes (one with '"' or a control character) may carry a quote at either end.
PRE_COMMIT_SHORTCUT = ("git -c core.quotePath=false diff --cached --name-only --no-renames"
                       " | grep -qE '(^\"?|/)(docs/.*[.]md|docs-schema[.]yaml)\"?$"
                       "|(^\"?|/)[^/]*([Aa][Dd][Rr]|[Dd]ecision)[^/]*/(.*/)?[^/]*[.]md\"?$' || exit 0\n")
SHORTCUTS = {"post-checkout": POST_CHECKOUT_SHORTCUT, "pre-commit": PRE_COMMIT_SHORTCUT}


@dataclass(frozen=True)
class HookChange:
    name: str
    action: str  # installed, updated, chained, removed, restored, absent


def render(name: str, command: str = "docir") -> str:
    """The shim for `name`; `command` is how it starts docir (the installing interpreter by default)."""
    blocking = name == "pre-commit"  # only the commit hook may stop git; refreshes always exit 0
    return TEMPLATE.format(
        marker=MARKER, name=name, suffix=CHAINED_SUFFIX, run=command,
        on_chained_failure="exit $?" if blocking else "true",
        tail="" if blocking else " || true\nexit 0",
        shortcut=SHORTCUTS.get(name, ""),
    )


def hooks_dir(repo: Path) -> Path:
    """Where git looks for hooks here, honouring core.hooksPath (and worktrees)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=repo, capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise UsageError(f"{repo} is not inside a git repository; run 'git init' first") from None
    path = Path(out)
    return path if path.is_absolute() else (repo / path).resolve()


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(repo: Path, command: str) -> list[HookChange]:
    folder = hooks_dir(repo)
    folder.mkdir(parents=True, exist_ok=True)
    changes = []
    for name in HOOKS:
        target = folder / name
        action = "installed"
        if target.exists() and is_ours(target):
            action = "updated"
        elif target.exists() or target.is_symlink():
            chained = folder / f"{name}{CHAINED_SUFFIX}"
            if chained.exists():
                raise UsageError(f"{target} is not docir's and {chained.name} already exists; "
                                 "move one of them away first")
            os.replace(target, chained)
            action = "chained"
        _write_executable(target, render(name, command))
        changes.append(HookChange(name, action))
    return changes


def uninstall(repo: Path) -> list[HookChange]:
    folder = hooks_dir(repo)
    changes = []
    for name in HOOKS:
        target, chained = folder / name, folder / f"{name}{CHAINED_SUFFIX}"
        if not (target.exists() and is_ours(target)):
            changes.append(HookChange(name, "absent"))
            continue
        target.unlink()
        if chained.exists() or chained.is_symlink():
            os.replace(chained, target)
            changes.append(HookChange(name, "restored"))
        else:
            changes.append(HookChange(name, "removed"))
    return changes


def interpreter_command(python: str) -> str:
    return f"{shlex.quote(python)} -m docir"


def rebase_in_progress(repo: Path) -> bool:
    for name in ("rebase-merge", "rebase-apply"):
        try:
            out = subprocess.run(["git", "rev-parse", "--git-path", name], cwd=repo, capture_output=True,
                                 text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return False
        path = Path(out) if Path(out).is_absolute() else repo / out
        if path.exists():
            return True
    return False


def _write_executable(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(tmp.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH | stat.S_IRUSR)
    os.replace(tmp, path)


def refresh_skip_reason(event: str, args: list[str], env: dict[str, str], repo: Path) -> str | None:
    """Why this git event needs no index refresh, or None when it does.

    Hook arguments come positionally from git, or as PRE_COMMIT_* variables
    when the pre-commit framework runs the hook.
    """
    if event == "post-checkout":
        previous = args[0] if len(args) > 0 else env.get("PRE_COMMIT_FROM_REF", "")
        new = args[1] if len(args) > 1 else env.get("PRE_COMMIT_TO_REF", "")
        branch_flag = args[2] if len(args) > 2 else env.get("PRE_COMMIT_CHECKOUT_TYPE", "1")
        if branch_flag == "0":
            return "file checkout"
        if previous and previous == new:
            return "same commit"
        if rebase_in_progress(repo):
            return "rebase in progress; post-rewrite refreshes once at the end"
        return None
    if event == "post-merge":
        return None
    if event == "post-rewrite":
        kind = args[0] if args else env.get("PRE_COMMIT_REWRITE_COMMAND", "rebase")
        return None if kind == "rebase" else f"{kind} changes no files"
    return f"{event} is not a refresh event"


def repo_root(start: Path, required: bool = False) -> Path:
    """The top level of the git repository holding `start`; `start` itself outside any, unless
    `required` (then UsageError)."""
    out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True, text=True,
                         check=False)
    if out.returncode == 0 and out.stdout.strip():
        return Path(out.stdout.strip())
    if required:
        raise UsageError(f"{start} is not inside a git repository; --staged reads git's index")
    return start


def event_from_pre_commit(env: dict[str, str]) -> str:
    """Which git hook the pre-commit framework is running, from the variables it sets for each."""
    if "PRE_COMMIT_CHECKOUT_TYPE" in env:
        return "post-checkout"
    if "PRE_COMMIT_REWRITE_COMMAND" in env:
        return "post-rewrite"
    return "post-merge"


def store_roots(repo: Path) -> list[Path]:
    """Every docir store the hooks serve in this repository (adr-a9d6f450a4d1): each folder where
    git's index holds a docs-schema.yaml beside a docs/ folder and docir is set up (.docir/ exists,
    so a sample store kept as test data is left alone), and the store enclosing the top level."""
    done = subprocess.run(["git", "ls-files", "--cached", "-z", "--", f":(glob)**/{SCHEMA_FILE}"], cwd=repo,
                          capture_output=True, check=False)
    roots = set()
    for path in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        folder = (repo / path).parent
        if path and (folder / DOCS_DIR).is_dir() and (folder / STATE_DIR).is_dir():
            roots.add(folder.resolve())
    enclosing = find_root(repo)
    if enclosing is not None:
        roots.add(enclosing)
    return sorted(roots)
