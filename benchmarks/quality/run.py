"""Quality benchmark for `docir context`: lexical vs vector vs fused ranking (SPEC §11).

    python benchmarks/quality/run.py [--corpus quality,docir] [--out benchmarks/results/quality.json]
    python benchmarks/quality/run.py --check-queries      # verify the paraphrase claim, run nothing else
    python benchmarks/quality/run.py --benchdata          # also Cranfield from ../shared/benchdata

Each corpus store is copied into a git-ignored cache folder (benchmarks/.cache/quality/<name>/)
before it is opened, so the repository is never written; the index there keeps its
content-hash vector cache between runs, so only the first run pays for embedding.

Every query is run in the three modes of `ranking.context` (lexical, vector, fused) with
limit 10 and no graph expansion, and scored with binary gains: recall@5, recall@10,
nDCG@10 and MRR@10, overall and split by corpus and by kind (lexical / paraphrase).

The module is also imported by tests/test_quality_gate.py (see `evaluate_corpora`).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
QUERIES_FILE = HERE / "queries.yaml"
BASELINE_FILE = HERE / "baseline.json"
DEFAULT_CACHE = REPO / "benchmarks" / ".cache" / "quality"
DEFAULT_OUT = REPO / "benchmarks" / "results" / "quality.json"
BENCHDATA = REPO.parent / "shared" / "benchdata"

# Where each named corpus's store lives: a folder holding docs/ and docs-schema.yaml.
CORPORA: dict[str, Path] = {
    "quality": HERE / "corpus",  # a fictional company's design documents
    "docir": REPO,  # docir's own design documents
}

MODES = ("lexical", "vector", "fused")
KINDS = ("lexical", "paraphrase")
METRICS = ("recall@5", "recall@10", "ndcg@10", "mrr@10")
CUTOFF = 10


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    relevant: tuple[str, ...]
    corpus: str
    kind: str


def load_queries(path: Path = QUERIES_FILE, corpora: Iterable[str] | None = None) -> list[Query]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    wanted = set(corpora) if corpora is not None else None
    out: list[Query] = []
    seen: set[str] = set()
    for row in data["queries"]:
        q = Query(str(row["id"]), str(row["query"]), tuple(row["relevant"]), str(row["corpus"]), str(row["kind"]))
        if q.id in seen:
            raise ValueError(f"duplicate query id {q.id}")
        if q.kind not in KINDS:
            raise ValueError(f"{q.id}: kind must be one of {KINDS}, not {q.kind!r}")
        if q.corpus not in CORPORA:
            raise ValueError(f"{q.id}: unknown corpus {q.corpus!r}")
        if not 1 <= len(q.relevant) <= 3:
            raise ValueError(f"{q.id}: expected 1-3 relevant ids, got {len(q.relevant)}")
        seen.add(q.id)
        if wanted is None or q.corpus in wanted:
            out.append(q)
    return out


# --------------------------------------------------------------------------- the paraphrase check

# A plain English stopword list: function words, auxiliaries and question words. Content
# words (nouns, verbs, adjectives) are never in it, so the check cannot be passed by
# declaring a shared word unimportant.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can cannot could did do does doing done down during each either
    else ever every few for from further had has have having he her here hers herself him
    himself his how i if in into is isn it its itself just let me more most my myself no nor
    not now of off on once only or other otherwise our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this
    those through to too under until up upon us very was we were what whatever when where
    whether which while who whom whose why will with within without would you your yours
    yourself yourselves shall may might must also onto per via vs versus""".split()  # noqa: SIM905
)

# Longest first; a suffix is stripped only if the stem keeps at least four letters ("s": three).
_SUFFIXES = ("ational", "ations", "ation", "ements", "ement", "ments", "ment", "nesses", "ness",
             "ingly", "ings", "ing", "edly", "ions", "ion", "ied", "ies", "ers", "er", "ed", "es", "ly", "e")
_WORD_RE = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """A deliberately crude stemmer: lowercase and strip one common suffix."""
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)]
            if suffix in ("ied", "ies"):
                w += "y"
            return w
    if w.endswith("s") and not w.endswith("ss") and len(w) >= 4:
        return w[:-1]
    return w


def content_stems(text: str) -> set[str]:
    """Stems of the content words of `text` (stopwords and one-letter tokens dropped)."""
    return {stem(t) for t in _WORD_RE.findall(text.lower()) if t not in STOPWORDS and len(t) > 1}


def stems_clash(a: str, b: str) -> bool:
    """Same stem, or one stem a prefix of the other (both at least 4 letters): strict on purpose."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 4 and long_.startswith(short)


@dataclass(frozen=True)
class DocFields:
    """What a paraphrase query must not share words with: title, description, headings."""

    id: str
    path: Path
    title: str
    description: str
    headings: tuple[str, ...]

    def text(self) -> str:
        return "\n".join((self.title, self.description, *self.headings))


def read_fields(store_root: Path) -> dict[str, DocFields]:
    """Every document of a store's docs/ (archive included) by id."""
    from docir.documents.frontmatter import parse
    from docir.documents.headings import find_headings

    found: dict[str, DocFields] = {}
    for path in sorted((store_root / "docs").rglob("*.md")):
        meta, split = parse(path.read_text(encoding="utf-8"))
        doc_id = str(meta.get("id", ""))
        headings = tuple(h.text for h in find_headings(split.body))
        found[doc_id] = DocFields(doc_id, path, str(meta.get("title", "")), str(meta.get("description", "")), headings)
    return found


def check_queries(queries: Sequence[Query], fields_by_corpus: dict[str, dict[str, DocFields]]) -> list[str]:
    """Problems with the query set: unknown ids, and paraphrase queries that share a content word."""
    problems: list[str] = []
    for q in queries:
        fields = fields_by_corpus[q.corpus]
        for doc_id in q.relevant:
            if doc_id not in fields:
                problems.append(f"{q.id}: relevant id {doc_id} is not a document of corpus {q.corpus}")
        if q.kind != "paraphrase":
            continue
        mine = content_stems(q.text)
        for doc_id in q.relevant:
            if doc_id not in fields:
                continue
            theirs = content_stems(fields[doc_id].text())
            shared = sorted({f"{a}~{b}" if a != b else a for a in mine for b in theirs if stems_clash(a, b)})
            if shared:
                problems.append(f"{q.id}: paraphrase query {q.text!r} shares {', '.join(shared)} "
                                f"with {doc_id} ({fields[doc_id].title!r})")
    return problems


# --------------------------------------------------------------------------- metrics


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, doc in enumerate(ranked[:k]) if doc in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def mrr_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    for i, doc in enumerate(ranked[:k]):
        if doc in relevant:
            return 1.0 / (i + 1)
    return 0.0


def score(ranked: Sequence[str], relevant: Iterable[str]) -> dict[str, float]:
    rel = set(relevant)
    return {
        "recall@5": recall_at(ranked, rel, 5),
        "recall@10": recall_at(ranked, rel, 10),
        "ndcg@10": ndcg_at(ranked, rel, 10),
        "mrr@10": mrr_at(ranked, rel, 10),
    }


def mean_metrics(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {m: 0.0 for m in METRICS}
    return {m: sum(r[m] for r in rows) / len(rows) for m in METRICS}


# --------------------------------------------------------------------------- running


@dataclass
class QueryRun:
    query: Query
    ranked: dict[str, list[str]] = field(default_factory=dict)  # mode -> ids, best first
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)  # mode -> metric -> value


def prepare_store(source: Path, target: Path) -> Path:
    """Mirror source's docs/ and docs-schema.yaml into target, keeping target's .docir/ (its vectors)."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "docs-schema.yaml", target / "docs-schema.yaml")
    if (target / "docs").exists():
        shutil.rmtree(target / "docs")
    shutil.copytree(source / "docs", target / "docs")  # copy2 keeps mtimes: unchanged files are not re-read
    return target


def open_indexed(store_root: Path, log: Callable[[str], None] = lambda _m: None) -> tuple[Any, Any]:
    """Open a session on the store, sync it and drain every embedding: (session, query source)."""
    from docir.services.vectors import embedding
    from docir.services.vectors.query_source import load_local
    from docir.services.indexing.session import open_session

    session = open_session(store_root)
    source = load_local(session.schema.model_path, session.store.root)
    if source.model_id is None:
        session.close()
        raise RuntimeError(f"no embedding model ({source.status}); the quality benchmark needs one")
    started = time.perf_counter()
    report = embedding.drain(session.catalog, source.embedder)  # type: ignore[attr-defined]
    log(f"  {store_root.name}: {session.catalog.conn.execute('SELECT count(*) FROM documents').fetchone()[0]} documents, "
        f"{report.texts_embedded} texts embedded, {report.texts_reused} reused, {time.perf_counter() - started:.1f}s")
    return session, source


def run_queries(session: Any, source: Any, queries: Sequence[Query], modes: Sequence[str] = MODES) -> list[QueryRun]:
    from docir.services.retrieval import ranking

    runs: list[QueryRun] = []
    for q in queries:
        run = QueryRun(q)
        for mode in modes:
            result = ranking.context(session, [q.text], source, limit=CUTOFF, expand=False, mode=mode)
            ids = [r["id"] for r in result.results]
            run.ranked[mode] = ids
            run.metrics[mode] = score(ids, q.relevant)
        runs.append(run)
    return runs


def summarise(runs: Sequence[QueryRun], modes: Sequence[str] = MODES) -> dict[str, Any]:
    """mode -> group -> metrics; groups: all, corpus:<name>, kind:<kind>, <corpus>/<kind>."""
    groups: dict[str, list[QueryRun]] = {"all": list(runs)}
    for run in runs:
        groups.setdefault(f"corpus:{run.query.corpus}", []).append(run)
        groups.setdefault(f"kind:{run.query.kind}", []).append(run)
        groups.setdefault(f"{run.query.corpus}/{run.query.kind}", []).append(run)
    out: dict[str, Any] = {}
    for mode in modes:
        out[mode] = {name: {"n": len(members), **mean_metrics([r.metrics[mode] for r in members])}
                     for name, members in sorted(groups.items(), key=lambda kv: _group_order(kv[0]))}
    return out


def _group_order(name: str) -> tuple[int, str]:
    if name == "all":
        return (0, name)
    if name.startswith("corpus:"):
        return (1, name)
    if name.startswith("kind:"):
        return (2, name)
    return (3, name)


def evaluate_corpora(names: Sequence[str], work_dir: Path, queries_file: Path = QUERIES_FILE,
                     log: Callable[[str], None] = lambda _m: None) -> tuple[list[QueryRun], dict[str, Any]]:
    """Copy each corpus into work_dir, index and embed it, run its queries: (per-query runs, summary)."""
    queries = load_queries(queries_file, names)
    runs: list[QueryRun] = []
    for name in names:
        store = prepare_store(CORPORA[name], work_dir / name)
        session, source = open_indexed(store, log)
        try:
            runs.extend(run_queries(session, source, [q for q in queries if q.corpus == name]))
        finally:
            session.close()
    return runs, summarise(runs)


# --------------------------------------------------------------------------- Cranfield


def _smart_records(text: str) -> list[dict[str, str]]:
    """SMART format: '.I n' starts a record, '.X' lines start fields."""
    records: list[dict[str, str]] = []
    current: dict[str, str] | None = None
    tag = None
    for line in text.splitlines():
        if line.startswith(".I "):
            current = {"I": line[3:].strip()}
            records.append(current)
            tag = None
        elif len(line) == 2 and line.startswith(".") and current is not None:
            tag = line[1]
            current[tag] = ""
        elif current is not None and tag is not None:
            current[tag] += line + "\n"
    return records


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    match = re.search(r"(.+?\s\.)(\s|$)", flat)
    sentence = match.group(1) if match else flat
    return sentence[:390]


def build_cranfield(folder: Path, target: Path) -> tuple[Path, list[Query]]:
    """A docir store of the 1,400 abstracts, and the 225 queries with their judgments."""
    docs_dir = target / "docs" / "abstracts"
    if target.exists():
        shutil.rmtree(target / "docs", ignore_errors=True)
    docs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "docs-schema.yaml", target / "docs-schema.yaml")
    ids: dict[str, str] = {}
    for rec in _smart_records((folder / "cran.all.1400").read_text(encoding="utf-8", errors="replace")):
        number = rec["I"]
        doc_id = f"guide-{int(number):012x}"
        ids[number] = doc_id
        title_lines = [ln.strip() for ln in rec.get("T", "").splitlines() if ln.strip()]
        title = title_lines[0] if title_lines else f"abstract {number}"
        abstract = rec.get("W", "").strip()
        description = _first_sentence(abstract) or title
        if len(description) < 20:
            description = (description + " " + title)[:390]
        front = {"id": doc_id, "type": "guide", "title": title, "description": description,
                 "status": "current", "owner": "@cranfield"}
        text = "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=10_000) + "---\n\n" + abstract + "\n"
        (docs_dir / f"{int(number):04d}.md").write_text(text, encoding="utf-8")
    qrels: dict[int, set[str]] = {}
    for line in (folder / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[2].lstrip("-").isdigit() and 1 <= int(parts[2]) <= 4:
            qrels.setdefault(int(parts[0]), set()).add(ids[parts[1]])
    queries: list[Query] = []
    for n, rec in enumerate(_smart_records((folder / "cran.qry").read_text(encoding="utf-8", errors="replace")), start=1):
        relevant = qrels.get(n)
        if relevant:
            queries.append(Query(f"cran-{n}", " ".join(rec.get("W", "").split()), tuple(sorted(relevant)),
                                 "cranfield", "lexical"))
    return target, queries


def evaluate_cranfield(work_dir: Path, log: Callable[[str], None]) -> tuple[list[QueryRun], dict[str, Any]] | None:
    folder = BENCHDATA / "cranfield"
    if not (folder / "cran.all.1400").is_file():
        log(f"skipping Cranfield: {folder} not found")
        return None
    store, queries = build_cranfield(folder, work_dir / "cranfield")
    log(f"  cranfield: {len(queries)} queries with judgments (codes 1-4 relevant)")
    session, source = open_indexed(store, log)
    try:
        runs = run_queries(session, source, queries)
    finally:
        session.close()
    summary = summarise(runs)
    for mode in summary:  # every Cranfield query is "lexical" and one corpus: keep only "all"
        summary[mode] = {"all": summary[mode]["all"]}
    return runs, summary


# --------------------------------------------------------------------------- output


def table(summary: dict[str, Any], title: str) -> str:
    groups = list(next(iter(summary.values())).keys())
    lines = [title, f"{'group':<24} {'n':>4}  {'mode':<8} " + " ".join(f"{m:>9}" for m in METRICS)]
    for group in groups:
        for mode in summary:
            row = summary[mode][group]
            lines.append(f"{group if mode == MODES[0] else '':<24} {row['n'] if mode == MODES[0] else '':>4}  {mode:<8} "
                         + " ".join(f"{row[m]:>9.3f}" for m in METRICS))
        best = max(summary, key=lambda md: summary[md][group]["ndcg@10"])
        fused_wins = all(summary["fused"][group]["ndcg@10"] > summary[md][group]["ndcg@10"] for md in summary if md != "fused")
        lines.append(f"{'':<24} {'':>4}  {'':<8} best nDCG@10: {best}{'  (fused beats both)' if fused_wins else ''}")
    return "\n".join(lines)


def per_query_json(runs: Sequence[QueryRun]) -> list[dict[str, Any]]:
    out = []
    for run in runs:
        rel = set(run.query.relevant)
        out.append({
            "id": run.query.id, "corpus": run.query.corpus, "kind": run.query.kind, "query": run.query.text,
            "relevant": list(run.query.relevant),
            "ranks": {mode: {d: (ids.index(d) + 1 if d in ids else None) for d in run.query.relevant}
                      for mode, ids in run.ranked.items()},
            "metrics": run.metrics,
            "top3": {mode: ids[:3] for mode, ids in run.ranked.items()},
            "hits": {mode: sum(1 for d in ids if d in rel) for mode, ids in run.ranked.items()},
        })
    return out


def write_baseline(summary: dict[str, Any], names: Sequence[str]) -> None:
    import subprocess

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True, check=False).stdout.strip() or None
    except OSError:
        commit = None
    from docir.services.retrieval import ranking

    baseline = {
        "about": "Overall numbers of benchmarks/quality/run.py; tests/test_quality_gate.py requires fused "
                 "recall@10 >= fused.recall@10 - 0.005 here, and fused nDCG@10 above lexical and vector.",
        "corpora": list(names),
        "queries": summary["fused"]["all"]["n"],
        "measured_at_commit": commit,
        "ranking": {"FUSION_K": ranking.FUSION_K, "COVERAGE_POWER": ranking.COVERAGE_POWER,
                    "LEXICAL_WEIGHT": ranking.LEXICAL_WEIGHT, "VECTOR_WEIGHT": ranking.VECTOR_WEIGHT},
        **{mode: {m: round(summary[mode]["all"][m], 4) for m in METRICS} for mode in MODES},
        "by_corpus": {name: {mode: {m: round(summary[mode][f"corpus:{name}"][m], 4) for m in METRICS}
                             for mode in MODES} for name in names},
    }
    BASELINE_FILE.write_text(json.dumps(baseline, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {BASELINE_FILE}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="quality,docir", help="comma-separated: quality, docir (default both)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where store copies and their indexes live")
    parser.add_argument("--queries", type=Path, default=QUERIES_FILE)
    parser.add_argument("--check-queries", action="store_true", help="only verify queries.yaml (ids, paraphrase claim)")
    parser.add_argument("--benchdata", action="store_true", help="also run Cranfield from ../shared/benchdata")
    parser.add_argument("--write-baseline", action="store_true",
                        help=f"store this run's overall numbers in {BASELINE_FILE.name} (the CI gate's floor)")
    args = parser.parse_args(argv)

    names = [n.strip() for n in args.corpus.split(",") if n.strip()]
    unknown = [n for n in names if n not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; known: {', '.join(CORPORA)}")

    queries = load_queries(args.queries, names)
    problems = check_queries(queries, {n: read_fields(CORPORA[n]) for n in names})
    n_para = sum(q.kind == "paraphrase" for q in queries)
    if problems:
        print(f"queries.yaml: {len(problems)} problem(s):", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    print(f"queries.yaml: {len(queries)} queries ({n_para} paraphrase) over {', '.join(names)}: ok")
    if args.check_queries:
        return 0

    def log(message: str) -> None:
        print(message, flush=True)

    started = time.perf_counter()
    log("indexing and embedding (vectors are cached in the index between runs):")
    runs, summary = evaluate_corpora(names, args.cache, args.queries, log)
    result: dict[str, Any] = {
        "benchmark": "quality", "cutoff": CUTOFF, "modes": list(MODES), "corpora": names,
        "queries": len(runs), "paraphrase_queries": sum(r.query.kind == "paraphrase" for r in runs),
        "summary": summary, "per_query": per_query_json(runs),
    }
    print()
    print(table(summary, "docir context quality (binary gains, limit 10, no expansion)"))
    if args.write_baseline:
        write_baseline(summary, names)
    if args.benchdata:
        cran = evaluate_cranfield(args.cache, log)
        if cran is not None:
            cran_runs, cran_summary = cran
            result["cranfield"] = {"queries": len(cran_runs), "summary": cran_summary,
                                   "per_query": per_query_json(cran_runs)}
            print()
            print(table(cran_summary, "Cranfield (1,400 abstracts, 225 queries; judgment codes 1-4 relevant)"))
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out} ({result['seconds']}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
