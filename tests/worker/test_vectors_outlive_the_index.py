"""With the warm worker running and the real model: an hour of embedding is never lost (adr-ff14e9367673).

- an index replaced while the worker drains: the flush ends with every vector in the index there now;
- an index with garbage pages is set aside, and the rebuilt one gets every vector back with no model call;
- export, then import into a fresh clone with an empty vault: nothing embedded, the same `context`;
- a file of another model, or a damaged one, is refused with one line and changes nothing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from docir.index import vector_file
from tests.worker.helpers import SETUP_TIMEOUT, docir, start_worker, wait_for

TOPICS = ("caching", "billing", "sessions", "exports", "search", "retries", "quotas", "audit")


def write_documents(root: Path, count: int, sections: int) -> None:
    folder = root / "docs" / "decisions"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        topic = TOPICS[n % len(TOPICS)]
        body = "".join(f"## Part {s} of the {topic} choice\n\nWe weigh option {s} for {topic} number {n}: it keeps "
                       f"latency at {s * 7 + n} ms and costs {n + s} hours of work, against the {topic} baseline.\n\n"
                       for s in range(sections))
        (folder / f"d{n:03d}.md").write_text(
            f"---\nid: adr-{n:012x}\ntype: decision\ntitle: Choice {n} about {topic}\n"
            f"description: How we handle {topic} in case {n}, and what it costs.\nstatus: accepted\n"
            f"owner: \"@team\"\n---\n\n{body}", encoding="utf-8")


def index_counts(root: Path) -> tuple[int, int]:
    """(documents that take vectors, those whose every vector is current) in the index that is there now."""
    with sqlite3.connect(root / ".docir" / "index.db") as conn:
        documents = conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        current = conn.execute("SELECT count(*) FROM embeddings WHERE dirty = 0").fetchone()[0]
    return int(documents), int(current)


def flush(root: Path, env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    done = docir(root, "embed", "--flush", "--json", env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_an_index_replaced_while_the_worker_drains_ends_with_every_vector_in_the_new_one(
        warm_store: Path) -> None:
    write_documents(warm_store, 80, 10)
    start_worker(warm_store)
    flushing = subprocess.Popen([sys.executable, "-m", "docir", "embed", "--flush", "--json", "--root",
                                 str(warm_store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def draining() -> bool:
        found = json.loads(docir(warm_store, "embed", "--status", "--json").stdout).get("drain")
        return bool(found and found["texts_done"] > 0)

    assert wait_for(draining, timeout=SETUP_TIMEOUT)
    index = warm_store / ".docir" / "index.db"
    aside = warm_store.parent / "moved-aside"
    aside.mkdir()
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{index}{suffix}").exists():
            os.rename(f"{index}{suffix}", aside / f"index.db{suffix}")
    rebuilt = docir(warm_store, "reindex", env={**os.environ, "DOCIR_WORKER": "0"})
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert flushing.poll() is None  # the flush was still running when its index was replaced

    out, err = flushing.communicate(timeout=900)

    documents, current = index_counts(warm_store)
    if flushing.returncode == 0:
        assert json.loads(out)["due"] == 0
        assert current == documents >= 80  # the 80 written and the sample store's own
    else:
        assert err.count("\n") == 1 and "replaced" in err, err


def test_garbage_pages_set_the_index_aside_and_the_rebuilt_one_needs_no_model(warm_store: Path) -> None:
    start_worker(warm_store)
    first = flush(warm_store)
    assert first["texts_embedded"] > 0
    assert docir(warm_store, "worker", "stop").returncode == 0  # its last close checkpoints the WAL
    index = warm_store / ".docir" / "index.db"
    size = index.stat().st_size
    with open(index, "r+b") as handle:  # every page after the first: garbage
        handle.seek(4096)
        handle.write(os.urandom(size - 4096))

    searched = docir(warm_store, "search", "sessions")
    start_worker(warm_store)
    second = flush(warm_store)

    assert searched.returncode == 0, searched.stderr
    assert "moved it to .docir/index.db.damaged-" in searched.stderr and searched.stderr.count("\n") == 1
    assert len(list(index.parent.glob("index.db.damaged-*"))) == 1  # moved aside, not deleted
    assert second["texts_embedded"] == 0  # not one text went through the model
    assert second["due"] == 0
    documents, current = index_counts(warm_store)
    assert current == documents


def _clone(source: Path, target: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", str(source)], check=True)
    subprocess.run([*git, "-C", str(source), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(source), "commit", "-qm", "docs"], check=True)
    subprocess.run(["git", "clone", "-q", str(source), str(target)], check=True)


def answers(root: Path, env: dict[str, str] | None = None) -> list[tuple[str, float]]:
    found = docir(root, "context", "where do we keep user sessions", "--json", "--budget", "0", env=env)
    assert found.returncode == 0, found.stderr
    return [(r["id"], round(float(r["score"]), 6)) for r in json.loads(found.stdout)["results"]]


def test_export_then_import_into_a_fresh_clone_embeds_nothing_and_answers_the_same(
        warm_store: Path, tmp_path: Path) -> None:
    start_worker(warm_store)
    flush(warm_store)
    expected = answers(warm_store)
    exported = docir(warm_store, "embed", "--export", str(tmp_path / "team.docirvec"), "--json")
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["vectors"] > 0
    clone = tmp_path / "clone"
    _clone(warm_store, clone)
    fresh = {**os.environ, "DOCIR_VECTORS": str(tmp_path / "empty-vault" / "vectors.db")}  # another machine

    imported = docir(clone, "embed", "--import", str(tmp_path / "team.docirvec"), "--json", env=fresh)
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["due"] == 0
    after = flush(clone, env=fresh)

    assert after["texts_embedded"] == 0
    assert answers(clone, env=fresh) == expected


def _fingerprint(root: Path) -> tuple[int, int]:
    with sqlite3.connect(root / ".docir" / "index.db") as conn:
        return (int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0]),
                int(conn.execute("SELECT count(*) FROM embeddings WHERE dirty = 0").fetchone()[0]))


@pytest.mark.parametrize("damage", ["another model", "a flipped byte", "truncated", "not a vector file"])
def test_a_file_of_another_model_or_a_damaged_one_is_refused_and_changes_nothing(
        warm_store: Path, tmp_path: Path, damage: str) -> None:
    start_worker(warm_store)
    flush(warm_store)
    good = tmp_path / "good.docirvec"
    assert docir(warm_store, "embed", "--export", str(good)).returncode == 0
    bad = tmp_path / "bad.docirvec"
    if damage == "another model":
        contents = vector_file.read(good)
        header = contents.header
        other = vector_file.Header("BAAI/bge-small-en-v1.5@local-w512", 512, "BAAI/bge-small-en-v1.5@local-w512|"
                                   + header.chunking.rpartition("|")[2], header.dim, header.dtype, header.vectors,
                                   header.plans)
        vector_file.write(bad, other, contents.vectors, contents.plans)
    else:
        data = bytearray(good.read_bytes())
        if damage == "a flipped byte":
            data[-100] ^= 0xFF
        elif damage == "truncated":
            data = data[: len(data) // 2]
        else:
            data[:8] = b"NOTAVECS"
        bad.write_bytes(bytes(data))
    vault = Path(os.environ["DOCIR_VECTORS"])
    before = (_fingerprint(warm_store), vault.stat().st_size)

    refused = docir(warm_store, "embed", "--import", str(bad))

    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert ("never mixed" if damage == "another model" else "cannot import") in refused.stderr
    assert (_fingerprint(warm_store), vault.stat().st_size) == before


_INJECT = '''
import os, sqlite3, sys
_connect = sqlite3.connect
_IN_WORKER = sys.argv[1:3] == ["worker", "serve"]  # the worker alone, never a client (argv[0] is "-m" here)
def connect(database, *args, **kwargs):
    marker = os.environ.get("DOCIR_TEST_IO_ERROR_ONCE", "")
    if _IN_WORKER and marker and str(database).endswith("index.db"):
        try:
            os.unlink(marker)  # once: the marker is consumed by the open that fails
        except FileNotFoundError:
            return _connect(database, *args, **kwargs)
        error = sqlite3.OperationalError("disk I/O error")
        error.sqlite_errorcode = 10  # SQLITE_IOERR
        raise error
    return _connect(database, *args, **kwargs)
sqlite3.connect = connect
'''


def test_a_transient_io_error_inside_the_worker_never_deletes_the_index(warm_store: Path, tmp_path: Path) -> None:
    """The error is injected into the worker process itself (a sitecustomize on its path), once."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(_INJECT, encoding="utf-8")
    marker = tmp_path / "fail-next-open"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(hooks), os.environ.get("PYTHONPATH")) if p),
           "DOCIR_TEST_IO_ERROR_ONCE": str(marker), "DOCIR_MODEL_PATH": str(tmp_path / "no-model")}
    assert docir(warm_store, "reindex", env={**env, "DOCIR_WORKER": "0"}).returncode == 0
    pid = start_worker(warm_store, env=env)
    index = warm_store / ".docir" / "index.db"
    before = os.stat(index).st_ino
    marker.write_text("1", encoding="utf-8")

    found = docir(warm_store, "search", "sessions", "--json", env=env)

    assert found.returncode == 0, found.stderr
    assert found.stderr == ""  # retried, not "rebuilding the index"
    assert json.loads(found.stdout)["results"]
    assert not marker.exists()  # the worker's open did meet the error
    assert json.loads(docir(warm_store, "worker", "status", "--json", env=env).stdout)["pid"] == pid
    assert os.stat(index).st_ino == before
    assert list(index.parent.glob("index.db.damaged-*")) == []
