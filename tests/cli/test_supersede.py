"""Superseding in one step: a write that adds a successor edge (supersedes) marks the replaced document
superseded, both files written atomically under the store's write lock, the replaced one last."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

import pytest

from tests.cli.helpers import A0, A1, B1, PATHS, frontmatter_of, ids, one_line

DESCRIPTION = "Session records move to a key-value store shared by every web node."


def add_successor(cli, root: Path, *extra: str):  # type: ignore[no-untyped-def]
    """An accepted decision (unless `extra` gives its status): a replacement in force at once."""
    status = () if "--status" in extra else ("--status", "accepted")
    return cli("add", "decision", "--title", "Keep sessions in a key-value store", "--description", DESCRIPTION,
               "--owner", "@platform", "--root", str(root), "--json", *status, *extra)


def lint_codes(cli, root: Path) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    report = cli("lint", "--root", str(root), "--format", "json")
    return [(f["code"], f["path"]) for f in report.json()["findings"]]


def test_add_with_supersedes_marks_the_replaced_document_in_one_line(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    replaced = sample_store / PATHS[A1]
    before = replaced.read_text(encoding="utf-8")
    added = add_successor(cli, sample_store, "--related", f"supersedes:{A1}")
    assert added.code == 0, added.err
    assert added.json()["superseded"] == [A1]
    assert replaced.read_text(encoding="utf-8") == before.replace("\nstatus: accepted\n", "\nstatus: superseded\n", 1)
    assert frontmatter_of(sample_store / added.json()["path"])["related"] == [{"supersedes": A1}]
    # The index knows at once: default reads hide it, get shows its new status, lint has nothing to say.
    listed = cli("query", "--type", "decision", "--root", str(sample_store), "--json").json()
    assert ids(listed) == [added.json()["id"]]
    got = cli("get", A1, "--root", str(sample_store), "--json").json()["documents"][0]
    assert got["status"] == "superseded"
    assert ("DOC015", PATHS[A1]) not in lint_codes(cli, sample_store)


def test_keep_status_leaves_the_replaced_document_as_it_was(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    replaced = sample_store / PATHS[A1]
    before = replaced.read_bytes()
    added = add_successor(cli, sample_store, "--related", f"supersedes:{A1}", "--keep-status")
    assert added.code == 0, added.err
    assert added.json()["superseded"] == []
    assert replaced.read_bytes() == before
    assert ("DOC015", PATHS[A1]) in lint_codes(cli, sample_store)


def test_update_add_related_supersedes_marks_it_too(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    newer = add_successor(cli, sample_store).json()["id"]
    updated = cli("update", newer, "--add-related", f"supersedes:{A1}", "--root", root, "--json")
    assert updated.code == 0, updated.err
    assert updated.json()["changed"] == ["related"]
    assert updated.json()["superseded"] == [A1]
    assert frontmatter_of(sample_store / PATHS[A1])["status"] == "superseded"
    # Once closed, it stays as it is: a second edge to it rewrites nothing.
    replaced = sample_store / PATHS[A1]
    mtime = replaced.stat().st_mtime_ns
    other = add_successor(cli, sample_store, "--path", "docs/decisions/other.md",
                          "--related", f"supersedes:{A1}").json()
    assert other["superseded"] == []
    assert replaced.stat().st_mtime_ns == mtime


def test_a_document_already_closed_or_an_inactive_successor_changes_nothing(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    closed = sample_store / PATHS[A0]  # superseded already
    before = closed.read_bytes()
    assert add_successor(cli, sample_store, "--related", f"supersedes:{A0}").json()["superseded"] == []
    assert closed.read_bytes() == before
    # A rejected proposal replaces nothing (as lint's DOC015 counts only active successors).
    rejected = add_successor(cli, sample_store, "--path", "docs/decisions/rejected.md", "--status", "rejected",
                             "--related", f"supersedes:{A1}")
    assert rejected.json()["superseded"] == []
    assert frontmatter_of(sample_store / PATHS[A1])["status"] == "accepted"


def test_a_proposed_successor_replaces_nothing_until_it_is_accepted(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = str(sample_store)
    replaced = sample_store / PATHS[A1]
    before = replaced.read_bytes()
    proposed = add_successor(cli, sample_store, "--status", "proposed", "--related", f"supersedes:{A1}")
    assert proposed.code == 0, proposed.err
    new_id = proposed.json()["id"]
    assert (proposed.json()["superseded"], proposed.json()["replaces_when_accepted"]) == ([], [A1])
    assert one_line(proposed.err, "warning") == (
        f"docir: warning: {A1} stays in force while this decision is proposed; "
        f"'docir update {new_id} --status accepted' marks it superseded then")
    assert replaced.read_bytes() == before
    # The decision in force is still what a default read shows, and lint does not ask to close it.
    assert A1 in ids(cli("query", "--type", "decision", "--root", root, "--json").json())
    assert ("DOC015", PATHS[A1]) not in lint_codes(cli, sample_store)
    # ... and shows its proposed replacement as such, never as what superseded it.
    got = cli("get", A1, "--root", root, "--json").json()["documents"][0]
    assert {"kind": "proposed-replacement", "id": new_id} in got["incoming"]
    assert {"kind": "superseded-by", "id": new_id} not in got["incoming"]
    # Accepted: the replacement takes effect, in the same write.
    accepted = cli("update", new_id, "--status", "accepted", "--root", root, "--json")
    assert accepted.code == 0, accepted.err
    assert accepted.json()["superseded"] == [A1]
    assert frontmatter_of(replaced)["status"] == "superseded"
    assert A1 not in ids(cli("query", "--type", "decision", "--root", root, "--json").json())
    got = cli("get", A1, "--root", root, "--json").json()["documents"][0]
    assert {"kind": "superseded-by", "id": new_id} in got["incoming"]


def test_only_successor_edges_mark_anything(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    added = add_successor(cli, sample_store, "--related", f"relates-to:{A1}", "--related", f"depends-on:{B1}")
    assert added.code == 0, added.err
    assert added.json()["superseded"] == []
    assert frontmatter_of(sample_store / PATHS[A1])["status"] == "accepted"
    assert frontmatter_of(sample_store / PATHS[B1])["status"] == "current"


def test_a_type_without_a_superseded_status_is_one_error_and_nothing_is_written(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder = sample_store / "docs" / "architecture"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    made = cli("add", "architecture", "--title", "Session service, second edition", "--description",
               "The session service rewritten around a key-value store.", "--owner", "@platform",
               "--related", f"supersedes:{B1}", "--status", "current", "--root", str(sample_store), "--json")
    assert made.code == 2
    line = one_line(made.err, "error")
    assert B1 in line and "--keep-status" in line and f"docir update {B1} --status deprecated" in line
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    kept = cli("add", "architecture", "--title", "Session service, second edition", "--description",
               "The session service rewritten around a key-value store.", "--owner", "@platform",
               "--related", f"supersedes:{B1}", "--status", "current", "--keep-status", "--root", str(sample_store),
               "--json")
    assert kept.code == 0, kept.err
    assert kept.json()["superseded"] == []


def test_a_document_cannot_supersede_itself(sample_store: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = (sample_store / PATHS[A1]).read_bytes()
    result = cli("update", A1, "--add-related", f"supersedes:{A1}", "--root", str(sample_store), "--json")
    assert result.code == 2
    assert "itself" in one_line(result.err, "error")
    assert (sample_store / PATHS[A1]).read_bytes() == before


def test_a_terminal_gets_one_line_on_stderr(sample_store: Path, cli,  # type: ignore[no-untyped-def]
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("docir.invocation.Invocation.wants_json", lambda call: call.json)  # as on a terminal
    added = cli("add", "decision", "--title", "Keep sessions in a key-value store", "--description", DESCRIPTION,
                "--owner", "@platform", "--related", f"supersedes:{A1}", "--body", "## Decision\n\nKV.",
                "--status", "accepted", "--root", str(sample_store))
    assert added.code == 0, added.err
    new_id = added.out.split()[0]
    assert added.err == (f"docir: marked {A1} superseded: {new_id} replaces it "
                         "(--keep-status leaves the status as it is)\n")
    plain = cli("update", new_id, "--add-related", f"relates-to:{B1}", "--root", str(sample_store))
    assert plain.code == 0 and plain.err == ""


def test_the_replaced_document_is_written_last_under_the_write_lock(sample_store: Path, cli,  # type: ignore[no-untyped-def]
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from docir.services.writing import store_writes

    real = store_writes.atomic_write
    order: list[str] = []
    lock_held: list[bool] = []

    def watched(path: Path, text: str) -> None:
        order.append(path.relative_to(sample_store).as_posix())
        fd = os.open(sample_store / ".docir" / "write.lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lock_held.append(False)
            fcntl.flock(fd, fcntl.LOCK_UN)
        except BlockingIOError:
            lock_held.append(True)
        finally:
            os.close(fd)
        real(path, text)

    monkeypatch.setattr(store_writes, "atomic_write", watched)
    added = add_successor(cli, sample_store, "--related", f"supersedes:{A1}")
    assert added.code == 0, added.err
    assert order == [added.json()["path"], PATHS[A1]]
    assert lock_held == [True, True]


def test_when_the_replaced_document_cannot_be_written_the_successor_is_whole(  # type: ignore[no-untyped-def]
        sample_store: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from docir.services.writing import store_writes

    real = store_writes.atomic_write
    replaced = sample_store / PATHS[A1]
    before = replaced.read_bytes()

    def full_disk(path: Path, text: str) -> None:
        if path == replaced:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, text)

    monkeypatch.setattr(store_writes, "atomic_write", full_disk)
    added = add_successor(cli, sample_store, "--related", f"supersedes:{A1}")
    assert added.code == 2
    line = one_line(added.err, "error")
    assert f"could not mark {A1} superseded" in line and f"docir update {A1} --status superseded" in line
    assert replaced.read_bytes() == before
    monkeypatch.undo()
    # The successor is whole and indexed; the store is as a two-step supersede leaves it between its steps.
    successor = next(p for p in (sample_store / "docs" / "decisions").glob("*key-value*.md"))
    meta = frontmatter_of(successor)
    assert meta["related"] == [{"supersedes": A1}] and meta["description"] == DESCRIPTION
    listed = ids(cli("query", "--type", "decision", "--root", str(sample_store), "--json").json())
    assert meta["id"] in listed and A1 in listed
    assert ("DOC015", PATHS[A1]) in lint_codes(cli, sample_store)
