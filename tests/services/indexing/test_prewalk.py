"""A cold command's walk of docs/ in a forked child (services/indexing/prewalk.py), and the plans it hands over.

The child is forked by a process running one command, so each case runs in a fresh interpreter
(never the test runner, which may hold threads): the script starts the walk, does what the case
needs meanwhile, and prints what the parent took.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from docir.documents.ownership import Ownership
from docir.services.indexing import session as sessions
from docir.services.indexing import sync
from tests.caller import caller

SCRIPT = """
import json, os, sys
from pathlib import Path
from docir.documents.ownership import Ownership
from docir.services.indexing import prewalk
root = Path(sys.argv[1])
case = sys.argv[2]
if case == "child fails":
    prewalk.scan_docs = None  # the child's walk raises
prewalk.start(root, root / "docs")
if case == "index replaced":
    # Wait until the child has planned against the index, then put a new one in its place.
    os.waitid(os.P_PID, prewalk._PENDING[0].pid, os.WEXITED | os.WNOWAIT)
    for suffix in ("", "-wal", "-shm"):
        if (root / ".docir" / f"index.db{suffix}").exists():
            os.rename(root / ".docir" / f"index.db{suffix}", root / ".docir" / f"old.db{suffix}")
    from docir.cli.main import main
    sys.exit(main(["query", "--limit", "100", "--json", "--root", str(root)]))
begun = prewalk.take(root, root / "docs", Ownership())
again = prewalk.take(root, root / "docs", Ownership())
print(json.dumps(None if begun is None else {
    "files": begun.files, "disk": sorted(begun.disk), "again": again is not None,
    "planned": None if begun.planned is None else {
        "to_read": list(begun.planned[1].to_read), "gone": list(begun.planned[1].gone)}}))
"""


def _taken(root: Path, case: str = "") -> dict | None:  # type: ignore[type-arg]
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(root), case], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _markdown(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "docs").rglob("*.md"))


def test_an_unchanged_store_comes_back_as_a_count_and_an_empty_plan(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    assert cli("reindex", "--root", str(sample_store)).code == 0
    taken = _taken(sample_store)
    assert taken == {"files": len(_markdown(sample_store)), "disk": [], "again": False,
                     "planned": {"to_read": [], "gone": []}}


def test_the_plan_names_what_changed_with_the_stats_of_those_files_only(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    assert cli("reindex", "--root", str(sample_store)).code == 0
    edited = sample_store / "docs" / "issues" / "login-loop.md"
    edited.write_text(edited.read_text() + "\nOne more line.\n")
    added = sample_store / "docs" / "issues" / "new.md"
    added.write_text((sample_store / "docs" / "issues" / "slow-invoice-export.md").read_text())
    (sample_store / "docs" / "guides" / "writing-a-decision.md").unlink()
    taken = _taken(sample_store)
    assert taken is not None
    assert taken["planned"] == {"to_read": ["docs/issues/login-loop.md", "docs/issues/new.md"],
                                "gone": ["docs/guides/writing-a-decision.md"]}
    assert taken["disk"] == ["docs/issues/login-loop.md", "docs/issues/new.md"]
    assert taken["files"] == len(_markdown(sample_store))


def test_without_an_index_the_whole_walk_comes_back_unplanned(sample_store: Path) -> None:
    taken = _taken(sample_store)
    assert taken == {"files": len(_markdown(sample_store)), "disk": _markdown(sample_store), "again": False,
                     "planned": None}


def test_a_child_that_fails_leaves_the_walk_to_the_command(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    assert cli("reindex", "--root", str(sample_store)).code == 0
    assert _taken(sample_store, "child fails") is None


def test_a_plan_made_against_a_replaced_index_is_not_taken(cli, sample_store: Path) -> None:  # type: ignore[no-untyped-def]
    """The child found nothing to do in the old index; the command opens a new, empty one: it must walk."""
    listed = cli("query", "--limit", "100", "--json", "--root", str(sample_store)).json()["results"]
    indexed = len(_indexed_paths(sample_store))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(sample_store), "index replaced"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (sample_store / ".docir" / "old.db").is_file()
    assert json.loads(proc.stdout)["results"] == listed
    assert len(_indexed_paths(sample_store)) == indexed


def test_a_plan_made_before_another_process_synced_is_empty_once_checked(sample_store: Path) -> None:
    """What the write lock re-plans (sync.rescan): only the files named, against the index as it is now."""
    sessions.open_session(sample_store, caller()).close()
    edited = sample_store / "docs" / "issues" / "login-loop.md"
    edited.write_text(edited.read_text() + "\nOne more line.\n")
    mine = sessions.open_session(sample_store, caller(), refresh=False)
    try:
        planned = sync.scan(mine.store.root, mine.store.docs_dir, mine.catalog, Ownership())
        assert planned.plan.to_read == ("docs/issues/login-loop.md",)
        sessions.open_session(sample_store, caller()).close()  # another process syncs first
        assert sync.rescan(mine.catalog, planned).plan.empty
    finally:
        mine.close()


def test_a_skipped_file_that_is_gone_is_forgotten(sample_store: Path) -> None:
    bad = sample_store / "docs" / "issues" / "bad.md"
    bad.write_text("no frontmatter here\n")
    sessions.open_session(sample_store, caller()).close()
    assert _skipped(sample_store) == ["docs/issues/bad.md"]
    bad.unlink()
    sessions.open_session(sample_store, caller()).close()
    assert _skipped(sample_store) == []


def _paths(root: Path, table: str) -> list[str]:
    conn = sqlite3.connect(root / ".docir" / "index.db")
    try:
        return [r[0] for r in conn.execute(f"SELECT path FROM {table}")]
    finally:
        conn.close()


def _indexed_paths(root: Path) -> list[str]:
    return _paths(root, "documents")


def _skipped(root: Path) -> list[str]:
    return _paths(root, "skipped")


def test_a_cold_command_sees_edits_made_just_before_it_through_the_childs_plan(sample_store: Path) -> None:
    """End to end, as a hook runs it: `python -m docir` forks the walk (own process, no worker)."""
    from tests.conftest import run_process

    assert run_process("reindex", "--root", str(sample_store)).code == 0
    edited = sample_store / "docs" / "issues" / "slow-invoice-export.md"  # an open one: searched by default
    edited.write_text(edited.read_text() + "\nThe zanzibarite token expired twice.\n")
    (sample_store / "docs" / "guides" / "writing-a-decision.md").unlink()
    found = run_process("search", "zanzibarite", "--root", str(sample_store), "--json")
    assert found.code == 0, found.err
    assert [r["path"] for r in json.loads(found.out)["results"]] == ["docs/issues/slow-invoice-export.md"]
    gone = run_process("get", "guide-0000000000d1", "--root", str(sample_store))
    assert gone.code == 1 and "no document with id guide-0000000000d1" in gone.err
