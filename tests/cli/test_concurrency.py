"""Several agents writing at once lose no update (adr-79690ae4fdaa): real processes, one store."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.cli.helpers import A1, B1, PATHS, frontmatter_of, ids, parse_json
from tests.conftest import FIXTURES, Result, run_process

PROCESSES = 8
ITERATIONS = 10

# One writer: ITERATIONS sequential `docir update`, each its own process, stopping at the first failure.
WRITER = """
import subprocess, sys
p, root, doc_id, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
for k in range(n):
    r = subprocess.run([sys.executable, "-m", "docir", "update", doc_id, "--root", root,
                        "--append-section", f"Note {p}-{k}", "--body", f"text {p}-{k}"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or "Traceback" in r.stderr:
        sys.stderr.write(f"writer {p} update {k}: exit {r.returncode}: {r.stderr}")
        sys.exit(1)
"""


def start_together(commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for cmd in commands]
    done = []
    for proc, cmd in zip(procs, commands, strict=True):
        out, err = proc.communicate(timeout=300)
        done.append(subprocess.CompletedProcess(cmd, proc.returncode, out, err))
    return done


def test_parallel_appends_to_one_document_lose_nothing(sample_store: Path) -> None:
    path = sample_store / PATHS[A1]
    original = path.read_text(encoding="utf-8")
    meta_before = frontmatter_of(path)

    results = start_together([
        [sys.executable, "-c", WRITER, str(p), str(sample_store), A1, str(ITERATIONS)] for p in range(PROCESSES)
    ])

    for result in results:
        assert result.returncode == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    wanted = {f"{p}-{k}" for p in range(PROCESSES) for k in range(ITERATIONS)}
    headings = Counter(re.findall(r"^## Note (\d+-\d+)$", text, flags=re.MULTILINE))
    bodies = Counter(re.findall(r"^text (\d+-\d+)$", text, flags=re.MULTILINE))
    assert set(headings) == wanted, f"lost: {sorted(wanted - set(headings))}"
    assert all(n == 1 for n in headings.values()), [h for h, n in headings.items() if n > 1]
    assert bodies == headings
    # Each section keeps its own body right under it.
    for key in wanted:
        assert f"## Note {key}\n\ntext {key}\n" in text
    # The original document is still all there, frontmatter intact.
    assert text.startswith(original.rstrip("\n"))
    assert frontmatter_of(path) == meta_before
    # Sections of one writer appear in its own order.
    order = [h for h in re.findall(r"^## Note (\d+-\d+)$", text, flags=re.MULTILINE)]
    for p in range(PROCESSES):
        mine = [int(h.split("-")[1]) for h in order if h.startswith(f"{p}-")]
        assert mine == list(range(ITERATIONS))
    # No temp files left behind by the atomic writes.
    assert not [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]

    got = run_process("get", A1, "--root", str(sample_store), "--json")
    assert got.code == 0, got.err
    assert got.err == ""
    doc = parse_json(got.out)["documents"][0]
    assert doc["body"] == text[text.index("\n---\n", 4) + 5 :]
    for key in wanted:
        assert f"## Note {key}\n" in doc["body"]
    section = parse_json(run_process("get", A1, "--section", "Note 7-9", "--root", str(sample_store), "--json").out)
    # the section runs to the next heading: its text, then at most the blank line before that heading
    assert section["documents"][0]["body"] in ("## Note 7-9\n\ntext 7-9\n", "## Note 7-9\n\ntext 7-9\n\n")


def test_parallel_adds_with_the_same_title_make_distinct_documents(store: Path) -> None:
    results = start_together([
        [sys.executable, "-m", "docir", "add", "decision", "--title", "Same title", "--description",
         f"Writer {p} adds a decision with a title every writer uses.", "--owner", "@team",
         "--root", str(store), "--json"]
        for p in range(PROCESSES)
    ])
    for result in results:
        assert result.returncode == 0, result.stderr
    made = [json.loads(r.stdout) for r in results]
    assert len({m["id"] for m in made}) == PROCESSES
    assert len({m["path"] for m in made}) == PROCESSES
    for m in made:
        assert (store / m["path"]).is_file()
        assert frontmatter_of(store / m["path"])["id"] == m["id"]
    listed = parse_json(run_process("query", "--root", str(store), "--json").out)
    assert sorted(ids(listed)) == sorted(m["id"] for m in made)


def test_parallel_first_reads_of_a_fresh_store_agree(tmp_path: Path) -> None:
    """Eight commands opening a store that has no index yet: one builds it, none sees it half-made."""
    for round_no in range(6):
        root = tmp_path / f"store{round_no}"
        shutil.copytree(FIXTURES / "stores" / "sample", root)
        results = start_together([
            [sys.executable, "-m", "docir", "search", "sessions", "--root", str(root), "--json"]
            for _ in range(PROCESSES)
        ])
        for result in results:
            assert result.returncode == 0, result.stderr
            assert result.stderr == "", f"round {round_no}: {result.stderr}"
            assert set(ids(json.loads(result.stdout))) == {A1, B1}


def test_index_created_by_another_process_mid_open_is_not_rebuilt(
    sample_store: Path, cli, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """The race above, made deterministic.

    This command finds no index and starts to open a fresh one; right after it has
    read the (still empty) file's identity, another process builds the index. The
    index it then sees is a good docir index, so it must use it: no rebuild, no warning.
    """
    fired: list[Result] = []
    real_connect = sqlite3.connect

    class Racing(sqlite3.Connection):
        seen_identity = False

        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
            if self.seen_identity and not fired:
                fired.append(run_process("reindex", "--root", str(sample_store)))
            if "user_version" in sql.lower() and "=" not in sql:
                self.seen_identity = True
            return super().execute(sql, *args)

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        kwargs.setdefault("factory", Racing)
        return real_connect(*args, **kwargs)  # type: ignore[arg-type]

    index = sample_store / ".docir" / "index.db"
    assert not index.exists()
    monkeypatch.setattr(sqlite3, "connect", connect)

    result = cli("search", "sessions", "--root", str(sample_store), "--json")

    monkeypatch.undo()
    assert fired, "the racing process never ran"
    assert fired[0].code == 0, fired[0].err
    assert result.code == 0, result.err
    assert result.err == "", result.err
    assert set(ids(result.json())) == {A1, B1}

