from docir.documents.scan import FileStat
from docir.index.records import FileState, SkippedFile
from docir.services.indexing.planning import plan_changes, plan_stats


def stat(path: str, size: int = 10, mtime: int = 1) -> FileStat:
    return size, mtime


def state(path: str, sha: str, size: int = 10, mtime: int = 1) -> FileState:
    return FileState(path, size, mtime, sha)


def stats(states: dict[str, FileState] | dict[str, SkippedFile]) -> dict[str, FileStat]:
    """What plan_stats compares: the (size, mtime_ns) the index remembers."""
    return {path: (s.size, s.mtime_ns) for path, s in states.items()}


def test_unchanged_stat_is_never_read() -> None:
    plan = plan_stats({"docs/a.md": stat("docs/a.md")}, stats({"docs/a.md": state("docs/a.md", "h")}), {})
    assert plan.empty


def test_new_changed_and_gone_files() -> None:
    disk = {"docs/a.md": stat("docs/a.md", mtime=2), "docs/new.md": stat("docs/new.md")}
    indexed = {"docs/a.md": state("docs/a.md", "h1"), "docs/old.md": state("docs/old.md", "h2")}
    plan = plan_stats(disk, stats(indexed), {})
    assert plan.to_read == ("docs/a.md", "docs/new.md")
    assert plan.gone == ("docs/old.md",)


def test_skipped_files_are_not_reread_until_they_change() -> None:
    skipped = {"docs/bad.md": SkippedFile("docs/bad.md", 10, 1, "binary")}
    assert plan_stats({"docs/bad.md": stat("docs/bad.md")}, {}, stats(skipped)).empty
    assert plan_stats({"docs/bad.md": stat("docs/bad.md", size=11)}, {}, stats(skipped)).to_read == ("docs/bad.md",)
    assert plan_stats({}, {}, stats(skipped)).gone_skipped == ("docs/bad.md",)


def test_same_bytes_at_a_new_path_is_a_move() -> None:
    indexed = {"docs/old.md": state("docs/old.md", "h1"), "docs/gone.md": state("docs/gone.md", "h2")}
    plan = plan_changes({"docs/new.md": "h1"}, indexed, ("docs/old.md", "docs/gone.md"))
    assert plan.moved == (("docs/old.md", "docs/new.md"),)
    assert plan.removed == ("docs/gone.md",)
    assert plan.added == ()


def test_touched_versus_changed() -> None:
    indexed = {"docs/a.md": state("docs/a.md", "h1"), "docs/b.md": state("docs/b.md", "h2")}
    plan = plan_changes({"docs/a.md": "h1", "docs/b.md": "h3"}, indexed, ())
    assert plan.touched == ("docs/a.md",)
    assert plan.changed == ("docs/b.md",)


def test_two_copies_of_a_moved_file_make_one_move_and_one_add() -> None:
    indexed = {"docs/old.md": state("docs/old.md", "h1")}
    plan = plan_changes({"docs/x.md": "h1", "docs/y.md": "h1"}, indexed, ("docs/old.md",))
    assert plan.moved == (("docs/old.md", "docs/x.md"),)
    assert plan.added == ("docs/y.md",)
