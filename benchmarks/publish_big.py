"""A big first publish into a fresh organisation store: wall seconds and peak memory, this tree against a revision.

    python -m benchmarks.publish_big [--rev 1ee4b49] [--repeat 3] [--warmup 0]

The repository: 650 long documents made of the EIPs (../shared/benchdata/eips, every one that
benchmarks/quality/eips.py converts: 584 once Moved stubs are left out, too few and too short
alone). Document k is EIP k (k >= 584: a copy of EIP k - 584 under a new id), followed by further
EIPs, taken in turn, until its body holds BODY_CHARS characters; every appended EIP is preceded
by a `## Part:` heading and each of its headings gains a line naming the copy, so no section is
said word for word by another document (such a section would get no vector). About 16 MB of
Markdown, 23,600 heading sections, 38,000 section rows in the organisation store, 36,600 of
them with a vector. Vectors are synthetic (org_store.py's WordHashEmbedder: each word a seeded
random vector, a text the normalised sum of its words'), made once through docir's own drain
with the real model's id, window and tokenizer: the publish is what is measured, not a model.

Both sides load the model this tree resolves, named by DOCIR_MODEL_PATH, so both record one
model id. Each side (this tree, and the revision unpacked as against_revision.py unpacks it) has its own
copy of the store, indexed and given its vectors by its own code, kept in
benchmarks/.cache/publish-big/. A private PostgreSQL with pgvector (org_store.py's server)
runs from the same folder. Every round times the floor (`python -c "import sqlite3, json"`),
then each side's `python -m docir publish URL --as bench/big --json` as a whole process into a
database created empty just before (untimed), the sides' order alternating from round to round.
Peak RSS is the publish process's own (a wrapper reads its ru_maxrss). After every publish the
tables' contents are hashed (every column but published_at): both sides must write the same rows.

Once, at the end: what the database alone takes to write the same rows and build docir's indexes
over them at once (INSERT ... SELECT of the published rows into empty copies of the tables, then
each index), the floor no client can go below. Prints a table, writes benchmarks/results/publish_big.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._harness import (
    CACHE,
    REPO,
    BenchmarkError,
    Rounds,
    arguments,
    benchmarks_alone,
    child_env,
    docir_argv,
    machine_info,
    module_argv,
    report,
    run,
    target,
)
from benchmarks.against_revision import quartiles, unpacked
from benchmarks.eips_first_index import wrapped

FOLDER = CACHE / "publish-big"
BUILD_VERSION = 1  # bump when the documents or their vectors change for the same inputs
DOCUMENTS = 650
BODY_CHARS = 14_000  # a document's body grows by whole EIPs until it holds this many characters
NAME = "bench/big"
SIDES = ("this", "rev")
TABLE_KEYS = {"repos": "name", "documents": "repo, id", "sections": "repo, doc_id, ord",
              "links": "repo, doc_id, kind, target", "terms": "repo, lexeme"}


def log(message: str) -> None:
    print(f"publish_big: {message}", file=sys.stderr, flush=True)


# --- the repository -------------------------------------------------------------------------------


def variant(body: str, mark: str) -> str:
    """`body` with a line naming this copy under each of its headings (code blocks left alone)."""
    out: list[str] = []
    fenced = False
    count = 0
    for line in body.split("\n"):
        out.append(line)
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            count += 1
            out.append(f"\nRevision {mark}.{count} of this part.\n")
    return "\n".join(out)


def compose(folder: Path) -> Path:
    """The documents (docs/ and docs-schema.yaml) in `folder`/source, rebuilt when missing."""
    import yaml

    from benchmarks.quality import eips

    source = folder / "source"
    if (source / "docs-schema.yaml").is_file():
        return source
    converted = eips.build_store(eips.DEFAULT_SRC, folder / "eips")
    parsed: list[tuple[dict[str, Any], str]] = []
    for path in sorted((converted / eips.DOCS_SUBDIR).glob("eip-*.md"), key=lambda p: int(p.stem.split("-")[1])):
        front, raw = eips._split_eip(path.read_bytes())
        parsed.append((front, raw.decode("utf-8")))
    if not parsed:
        raise BenchmarkError(f"no EIPs in {eips.DEFAULT_SRC}")
    shutil.rmtree(source, ignore_errors=True)
    (source / "docs").mkdir(parents=True)
    cursor = 0
    for k in range(DOCUMENTS):
        meta, body = parsed[k % len(parsed)]
        meta = dict(meta)
        if k >= len(parsed):
            meta.update(id=f"adr-{0xB16000000000 + k:012x}", title=f"{meta['title']} (copy {k})")
            body = variant(body, f"{k}.0")
        parts = [body]
        while sum(map(len, parts)) < BODY_CHARS:
            other, text = parsed[cursor % len(parsed)]
            cursor += 1
            parts.append(f"\n## Part: {other['title']}\n\n" + variant(text, f"{k}.{len(parts)}"))
        head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1 << 20)
        (source / "docs" / f"doc-{k:04d}.md").write_text(f"---\n{head}---\n" + "\n".join(parts), encoding="utf-8")
    shutil.copy2(converted / "docs-schema.yaml", source / "docs-schema.yaml")
    return source


def side_env(tree: Path) -> dict[str, str]:
    """No worker, the tree's docir, and no vault: synthetic vectors must never reach the user's."""
    return {**child_env(), "PYTHONPATH": str(tree), "DOCIR_VECTORS": "off"}


def build_key(tree: Path, model_id: str) -> str:
    from benchmarks.quality import eips

    digest = hashlib.sha256(Path(eips.__file__).read_bytes())
    digest.update(json.dumps([BUILD_VERSION, DOCUMENTS, BODY_CHARS, str(tree), model_id]).encode())
    return digest.hexdigest()[:16]


def model_of(root: Path) -> Any:
    """In a child with the side's docir: the model a publish of `root` records (docir's own resolve)."""
    from benchmarks._docir_api import open_store, resolve
    from docir.schema import load_schema

    store = open_store(root)
    return resolve(load_schema(store.schema_path).model_path, store.root)


def side_store(name: str, tree: Path, source: Path) -> tuple[Path, dict[str, Any]]:
    """The side's copy of the documents, indexed and given synthetic vectors by its own code (cached)."""
    root = FOLDER / f"store-{name}"
    marker = root / ".publish-big.json"
    (root / "docs").mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "docs-schema.yaml", root / "docs-schema.yaml")
    with benchmarks_alone() as folder:  # this checkout's benchmarks, the tree's docir
        model_id = run(module_argv("publish_big", "--model-id", str(root)), what=f"the model of {name}",
                       env=side_env(tree), cwd=folder).stdout.decode().strip()
    key = build_key(tree, model_id)
    try:
        found = json.loads(marker.read_text(encoding="utf-8"))
        if found.get("key") == key:
            return root, found
    except (OSError, ValueError):
        pass
    log(f"indexing {DOCUMENTS} documents with {name}'s code and giving them vectors (kept for later runs)")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source / "docs", root / "docs")
    shutil.copy2(source / "docs-schema.yaml", root / "docs-schema.yaml")
    # A git repository of its own without commits: no revision, so both sides publish the same row.
    run(["git", "init", "-q", str(root)], what="git init", cwd=root)
    # From the store's folder: `python -m` puts the working folder first on the import path.
    run(docir_argv("reindex", "--root", str(root)), what=f"reindex ({name})", env=side_env(tree), cwd=root)
    with benchmarks_alone() as folder:
        filled = run(module_argv("publish_big", "--fill-vectors", str(root)), what=f"filling vectors ({name})",
                     env=side_env(tree), cwd=folder).json()
    info = {"key": key, **filled}
    marker.write_text(json.dumps(info), encoding="utf-8")
    return root, info


def fill_vectors(root: Path) -> dict[str, Any]:
    """In a child with the side's docir: every document's vectors, by WordHashEmbedder, through the drain."""
    import sqlite3

    from benchmarks import org_store

    # The query model loads from where docir packs it (DOCIR_MODEL_PATH names a folder to resolve, not
    # a file layout the loader takes); only its tokenizer, dimension and window are used.
    folder = os.environ.pop("DOCIR_MODEL_PATH", None)
    real = org_store.real_model()
    if folder is not None:
        os.environ["DOCIR_MODEL_PATH"] = folder
    choice = model_of(root)
    if not choice.available:
        raise BenchmarkError(f"no model for {root}: {choice.status}")
    # The id a publish resolves, whatever build the query side loaded: the vectors must be its.
    embedder = org_store.WordHashEmbedder(real)
    embedder.model_id = choice.model_id
    texts = org_store.fill_vectors(root, embedder)
    conn = sqlite3.connect(root / ".docir" / "index.db")
    try:
        counts = {name: int(conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
                  for name in ("documents", "sections", "chunk_embeddings", "vectors")}
        chars = int(conn.execute("SELECT sum(length(body)) FROM documents").fetchone()[0])
    finally:
        conn.close()
    return {"model_id": choice.model_id, "texts_embedded": texts, "rows": counts, "body_chars": chars}


# --- the database ---------------------------------------------------------------------------------


def digest(url: str) -> dict[str, str]:
    """A hash of each table's rows (published_at left out), in key order."""
    import psycopg

    out: dict[str, str] = {}
    with psycopg.connect(url) as conn:
        for table, key in TABLE_KEYS.items():
            # to_jsonb of the row less published_at and the columns that say which index or sample holds a
            # row (a revision before them lacks them): every column's value, whatever the table's layout
            found = conn.execute(f"SELECT md5(string_agg(md5((to_jsonb(t) - 'published_at' - 'draw' - 'own_index'"
                                 f" - 'vector_index')::text), '' ORDER BY {key})) FROM docir.{table} t").fetchone()
            out[table] = str(found[0] if found else None)
    return out


def counts(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url) as conn:
        found = {table: int(conn.execute(f"SELECT count(*) FROM docir.{table}").fetchone()[0])  # type: ignore[index]
                 for table in TABLE_KEYS}
        found["section_vectors"] = int(conn.execute(  # type: ignore[index]
            "SELECT count(vector) FROM docir.sections").fetchone()[0])
    return found


def server_floor(url: str) -> float:
    """Seconds the database takes to write the published rows again into empty copies of the tables, then
    build every index docir has on them at once: what these rows cost the server at the least, whatever
    the client does and however its indexes are kept."""
    import psycopg

    from docir.org.published import BUILD_MEMORY

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS floor CASCADE")
        conn.execute("CREATE SCHEMA floor")
        tables = ("documents", "sections", "links")
        for table in tables:
            conn.execute(f"CREATE TABLE floor.{table} (LIKE docir.{table} INCLUDING DEFAULTS INCLUDING GENERATED)")
        written = {table: ", ".join(name for (name,) in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'docir' AND table_name = %s"
            " AND is_generated = 'NEVER' ORDER BY ordinal_position", (table,))) for table in tables}
        indexes = [(name, text) for name, text in conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'docir' AND tablename = ANY(%s)",
            (list(tables),))]
        started = time.perf_counter()
        with conn.transaction():
            # As much memory as docir gives a bulk publish's index build.
            conn.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY // (1024 * 1024)}MB'")
            for table in tables:
                conn.execute(f"INSERT INTO floor.{table} ({written[table]}) SELECT {written[table]} FROM docir.{table}")
            for name, text in indexes:
                conn.execute(text.replace(f"INDEX {name} ON docir.", f"INDEX floor_{name} ON floor.", 1)
                             .replace(f'INDEX "{name}" ON docir.', f'INDEX "floor_{name}" ON floor.', 1))
        seconds = time.perf_counter() - started
        conn.execute("DROP SCHEMA floor CASCADE")
    return seconds


# --- measuring ------------------------------------------------------------------------------------


def publish(tree: Path, root: Path, url: str) -> tuple[float, int, dict[str, Any], int]:
    """One publish as a whole process: wall seconds, peak RSS in MB, its report and its progress lines."""
    ran = run(wrapped(*docir_argv("publish", url, "--as", NAME, "--root", str(root), "--json")),
              what=f"publish ({tree})", env=side_env(tree), cwd=root)
    stderr = ran.stderr.decode(errors="replace").splitlines()
    rss = next((int(line.split("=", 1)[1]) // 1024 for line in stderr if line.startswith("maxrss_kb=")), 0)
    return ran.ms / 1000, rss, ran.json(), sum("publishing:" in line for line in stderr)


def main(argv: list[str] | None = None) -> int:
    parser = arguments("publish_big", __doc__, repeat=3, warmup=0)
    parser.add_argument("--rev", default="1ee4b49", help="the revision to compare with (default 1ee4b49)")
    parser.add_argument("--fill-vectors", type=Path, help=argparse.SUPPRESS)  # internal: the child that fills
    parser.add_argument("--model-id", type=Path, help=argparse.SUPPRESS)  # internal: the side's model
    args = parser.parse_args(argv)
    if args.model_id is not None:
        print(model_of(args.model_id.resolve()).model_id)
        return 0
    if args.fill_vectors is not None:
        print(json.dumps(fill_vectors(args.fill_vectors.resolve())))
        return 0
    from benchmarks import org_store
    from benchmarks._docir_api import resolve

    choice = resolve(None)
    if choice.path is None:
        raise BenchmarkError(f"the model is needed (its id, window and tokenizer): {choice.source}")
    # One model folder named for both sides: each then records the same model id ("...@local"),
    # whatever build either tree's resolve would pick, so their rows can be compared.
    os.environ["DOCIR_MODEL_PATH"] = str(choice.path)
    machine = machine_info()  # its load at the start; report() stamps the load at the end
    started = time.perf_counter()
    sha, rev_tree = unpacked(args.rev)
    source = compose(FOLDER)
    trees = {"this": REPO, "rev": rev_tree}
    stores = {side: side_store(side if side == "this" else f"rev-{sha[:12]}", trees[side], source)
              for side in SIDES}
    walls: dict[str, list[float]] = {side: [] for side in SIDES}
    peaks: dict[str, list[int]] = {side: [] for side in SIDES}
    reports: dict[str, dict[str, Any]] = {}
    progress: dict[str, int] = {}
    digests: dict[str, dict[str, str]] = {}
    warnings: list[str] = []
    with org_store.postgres(FOLDER / "pgdata") as server:
        timing = Rounds("publish_big", args.repeat, args.warmup, floor_env=child_env())
        for number in timing:
            for side in SIDES if number % 2 == 0 else SIDES[::-1]:
                url = org_store.create_database(server, f"big_{side}")
                seconds, rss, answer, lines = publish(trees[side], stores[side][0], url)
                timing.record(side, seconds * 1000)
                if timing.keep:
                    walls[side].append(seconds)
                    peaks[side].append(rss)
                if not answer.get("written") or answer.get("added") != DOCUMENTS or answer.get("vectors_missing"):
                    raise BenchmarkError(f"{side}: the publish did not write every document with its vectors: {answer}")
                reports[side], progress[side] = answer, lines
                digests.setdefault(side, digest(url))
                if digests[side] != digest(url):
                    warnings.append(f"{side}: two publishes of the same store wrote different rows")
                log(f"{side}: {seconds:.1f} s, {rss} MB")
        rows_written = counts(server.get_uri("big_this"))
        floor_s = server_floor(server.get_uri("big_this"))
    same = digests["this"] == digests["rev"]
    if not same:
        warnings.append("this tree and the revision wrote different rows: "
                        + ", ".join(t for t in TABLE_KEYS if digests["this"][t] != digests["rev"][t]))
    floor_ms = statistics.median(timing.samples.wall["floor"])
    sides: dict[str, dict[str, Any]] = {
        side: {"wall_s": round(statistics.median(walls[side]), 1), "walls_s": [round(v, 1) for v in walls[side]],
               "peak_rss_mb": max(peaks[side]), "peaks_mb": peaks[side], "progress_lines": progress[side]}
        for side in SIDES}
    ratios = [a / b for a, b in zip(walls["this"], walls["rev"], strict=True)]
    payload = {"rev": args.rev, "rev_sha": sha, "rounds": args.repeat, "documents": DOCUMENTS,
               "store": {side: info for side, (_, info) in stores.items()}, "rows": rows_written,
               "sides": sides, "paired_ratio_quartiles": quartiles(ratios), "same_rows": same,
               "server_floor_s": round(floor_s, 1), "floor_ms": round(floor_ms, 1), "warnings": warnings,
               "targets": [target("this tree's first publish", sides["this"]["wall_s"], 30,
                                  f"{sides['this']['wall_s']} s, median of {args.repeat}", unit="s"),
                           target("this tree's peak memory", sides["this"]["peak_rss_mb"], 250,
                                  f"{sides['this']['peak_rss_mb']} MB, the largest of {args.repeat}", unit="mb")],
               "duration_s": round(time.perf_counter() - started), "machine": machine}
    rows = [[side, sides[side]["wall_s"], min(walls[side]), max(walls[side]), sides[side]["peak_rss_mb"],
             sides[side]["progress_lines"]] for side in SIDES]
    report("publish_big", payload, out=args.out, rows=rows,
           title=[f"first publish of {rows_written['documents']} documents, {rows_written['sections']:,} section "
                  f"rows ({rows_written['section_vectors']:,} with vectors), {rows_written['links']} links; this "
                  f"tree against {args.rev}, {args.repeat} alternating rounds"],
           columns=[("side", ""), ("median s", ".1f"), ("min s", ".1f"), ("max s", ".1f"), ("peak MB", "d"),
                    ("progress lines", "d")],
           notes=[f"paired ratio this / rev, p25/p50/p75: {' / '.join(map(str, quartiles(ratios)))}",
                  f"same rows written by both: {'yes' if same else 'NO'}",
                  f"the database alone, the same rows into empty tables with docir's indexes: {floor_s:.1f} s",
                  f'floor  python -c "import sqlite3, json": median {floor_ms:.1f} ms'])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
