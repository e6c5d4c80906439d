"""Reference corpora: the walk, the chunks, the dry run, the type wall, and finding them with context."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docir.documents import refs as refdocs
from docir.documents.chunk import window_budget
from docir.documents.headings import find_headings
from docir.embed.resolve import resolve
from docir.embed.tokens import TokenCounter
from tests.caller import settings
from tests.conftest import FIXTURES, REPO

CORPUS = FIXTURES / "refcorpus"


@pytest.fixture(scope="module")
def counter(model_cache: Path) -> TokenCounter:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        return TokenCounter(resolve(settings(), None))


def chunks_of(name: str, counter: TokenCounter, corpus: Path = CORPUS) -> list[refdocs.RefChunk]:
    ref = next(f for f in refdocs.walk(corpus) if f.relpath == name)
    return refdocs.chunk_file(ref, counter.count_tokens, window_budget(counter.max_tokens))


def test_one_chunk_per_heading_in_order_with_the_full_breadcrumb(counter: TokenCounter) -> None:
    chunks = chunks_of("handbook/troubleshooting.md", counter)
    file = "handbook/troubleshooting.md"
    assert [c.heading_path for c in chunks] == [
        (file, "Troubleshooting pods"),
        (file, "Troubleshooting pods", "Common Issues"),
        (file, "Troubleshooting pods", "Common Issues", "CrashLoopBackOff"),
        (file, "Troubleshooting pods", "Common Issues", "ImagePullBackOff"),
        (file, "Troubleshooting pods", "Getting help"),
    ]
    crash = chunks[2]
    assert crash.text.startswith(f"{file} > Troubleshooting pods > Common Issues > CrashLoopBackOff\n")
    assert "kubectl logs POD --previous" in crash.text


def test_no_chunk_holds_more_than_one_heading_and_it_comes_first(counter: TokenCounter) -> None:
    for name in ("handbook/troubleshooting.md", "setext.md", "quickstart.md"):
        for chunk in chunks_of(name, counter):
            body = chunk.text.split("\n\n", 1)[1]
            headings = find_headings(body)
            assert [h.line for h in headings] == [0], chunk.text


def test_setext_headings_split(counter: TokenCounter) -> None:
    assert [c.heading_path[1:] for c in chunks_of("setext.md", counter)] == [
        ("Platform Handbook",), ("Platform Handbook", "Deploying"), ("Platform Handbook", "Secrets")]


def test_the_8000_token_section_splits_within_budget(counter: TokenCounter) -> None:
    chunks = chunks_of("capacity-8000-tokens.md", counter)
    pieces = [c for c in chunks if c.heading_path[-1] == "Every number we ever measured"]
    assert len(pieces) >= 30
    budget = window_budget(counter.max_tokens)
    assert all(counter.count_tokens(c.text) <= budget for c in chunks)
    assert [c.continuation for c in pieces] == [False] + [True] * (len(pieces) - 1)
    breadcrumb = "capacity-8000-tokens.md > Capacity planning > Every number we ever measured\n"
    assert all(p.text.startswith(breadcrumb) for p in pieces)


def test_the_walk_skips_what_it_must_and_ends_despite_the_loop() -> None:
    skipped: list[refdocs.Skipped] = []
    files = sorted(f.relpath for f in refdocs.walk(CORPUS, skipped))
    assert files == ["capacity-8000-tokens.md", "handbook/troubleshooting.md", "notes.txt", "quickstart.md",
                     "setext.md"]
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert reasons["settings.json"] == "not .md or .txt"
    assert reasons["loop"] == "symlink (never followed)"
    assert ".hidden.md" not in reasons  # dotfiles are not even considered


def test_two_walks_give_identical_identities() -> None:
    first = [(f.source_uri, f.sha256) for f in refdocs.walk(CORPUS)]
    second = [(f.source_uri, f.sha256) for f in refdocs.walk(CORPUS)]
    assert first == second and all(Path(uri).is_absolute() for uri, _ in first)


def test_dry_run_makes_no_model_call_and_writes_nothing(cli, store: Path,  # type: ignore[no-untyped-def]
                                                          monkeypatch: pytest.MonkeyPatch, model_cache: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("the dry run touched the model")

    monkeypatch.setattr("docir.embed.fastembed_model.FastembedEmbedder.__init__", no_model)
    monkeypatch.setattr("docir.embed.fastembed_model.FastembedEmbedder.embed", no_model)
    monkeypatch.setattr("docir.embed.onnx_model.OnnxEmbedder.__init__", no_model)
    monkeypatch.setattr("docir.embed.onnx_model.OnnxEmbedder.embed", no_model)
    monkeypatch.setattr("fastembed.TextEmbedding.__init__", no_model)
    before = sorted(p.relative_to(store).as_posix() for p in store.rglob("*"))
    result = cli("ref", "add", str(CORPUS), "--dry-run", "--root", str(store), "--json")
    assert result.code == 0, result.err
    plan = json.loads(result.out)
    assert {f["file"] for f in plan["files"]} == {"capacity-8000-tokens.md", "handbook/troubleshooting.md", "notes.txt",
                                                    "quickstart.md", "setext.md"}
    crash = next(f for f in plan["files"] if f["file"] == "handbook/troubleshooting.md")["chunks"][2]
    assert crash["heading_path"][-1] == "CrashLoopBackOff" and crash["tokens"] > 10
    assert sorted(p.relative_to(store).as_posix() for p in store.rglob("*")) == before
    from docir.cli.ref_cmd import _print_plan  # the terminal rendering of the same plan
    from docir.invocation import here

    capsys.readouterr()
    _print_plan(plan, here())
    printed = capsys.readouterr().out
    assert "  handbook/troubleshooting.md > Troubleshooting pods > Common Issues > CrashLoopBackOff  " in printed
    assert printed.rstrip().endswith("nothing written")


def test_the_type_checker_rejects_a_reference_chunk_on_document_paths(tmp_path: Path) -> None:
    """The guarantee is "impossible", so the test is a type error, not a runtime assertion."""
    snippet = tmp_path / "misuse.py"
    snippet.write_text(
        "import datetime\n"
        "from docir.documents.refs import RefChunk\n"
        "from docir.index.catalog import Catalog\n"
        "from docir.schema import Schema\n"
        "from docir.services.lint import checks as lint, similarity as lint_deep\n"
        "from docir.services.writing import store_writes as writes\n"
        "from docir.services.indexing.session import Session\n\n"
        "def misuse(session: Session, catalog: Catalog, schema: Schema, chunk: RefChunk) -> None:\n"
        "    writes.update(session, chunk, writes.Changes())\n"
        "    catalog.docs.upsert(chunk)\n"
        "    lint.check(schema, {'x.md': chunk}, datetime.date.today())\n"
        "    lint_deep.near_duplicate_pairs([chunk], 0.9)\n"
    )
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           "--cache-dir", str(tmp_path / "c"),
                           "--config-file", str(REPO / "pyproject.toml"), str(snippet)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout
    errors = [line for line in proc.stdout.splitlines() if "error:" in line]
    for line_no in (10, 11, 12, 13):
        assert any(f"misuse.py:{line_no}:" in e and "RefChunk" in e for e in errors), (line_no, proc.stdout)


@pytest.fixture
def ref_store(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Path:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    root = tmp_path / "sample"
    shutil.copytree(FIXTURES / "stores" / "sample", root)
    corpus = tmp_path / "vendor" / "k8s"
    shutil.copytree(CORPUS, corpus, symlinks=True)
    added = cli("ref", "add", str(corpus), "--name", "k8s", "--root", str(root), "--json")
    assert added.code == 0, added.err
    return root


def test_add_list_readd_and_remove(cli, ref_store: Path) -> None:  # type: ignore[no-untyped-def]
    listed = cli("ref", "list", "--root", str(ref_store), "--json").json()["refs"]
    assert listed[0]["name"] == "k8s" and listed[0]["files"] == 5 and listed[0]["path"] == "../vendor/k8s"
    assert "k8s" in (ref_store / ".docir" / "refs.yaml").read_text()
    again = cli("ref", "add", str(ref_store.parent / "vendor" / "k8s"), "--name", "k8s", "--root", str(ref_store),
                "--json").json()
    assert (again["unchanged"], again["added"], again["updated"], again["chunks"]) == (5, 0, 0, 0)
    removed = cli("ref", "remove", "k8s", "--root", str(ref_store), "--json").json()
    assert removed == {"name": "k8s", "removed_files": 5}
    assert cli("ref", "list", "--root", str(ref_store), "--json").json()["refs"] == []
    assert cli("ref", "remove", "k8s", "--root", str(ref_store)).code == 1


def test_context_finds_a_reference_section_with_its_breadcrumb(cli, ref_store: Path) -> None:  # type: ignore[no-untyped-def]
    flushed = cli("embed", "--flush", "--root", str(ref_store), "--json").json()
    assert flushed["due"] == 0
    task = "my container keeps restarting with a growing delay"
    result = cli("context", task, "--root", str(ref_store), "--json").json()
    refs = [r for r in result["results"] if r["kind"] == "reference"]
    assert refs and refs[0]["heading_path"][-1] == "CrashLoopBackOff"
    assert refs[0]["heading_path"][:2] == ["handbook/troubleshooting.md", "Troubleshooting pods"]
    assert Path(refs[0]["source_uri"]).is_absolute() and refs[0]["source_uri"].endswith("handbook/troubleshooting.md")
    assert result["results"].index(refs[0]) < 3
    without = cli("context", task, "--no-refs", "--root", str(ref_store), "--json").json()
    assert all(r["kind"] == "document" for r in without["results"])
    fetched = cli("get", refs[0]["id"], "--root", str(ref_store), "--json").json()["documents"][0]
    assert fetched["kind"] == "reference" and "kubectl logs POD --previous" in fetched["text"]


def test_readding_an_unchanged_tree_costs_no_model_time(cli, ref_store: Path) -> None:  # type: ignore[no-untyped-def]
    cli("embed", "--flush", "--root", str(ref_store))
    cli("ref", "add", str(ref_store.parent / "vendor" / "k8s"), "--name", "k8s", "--root", str(ref_store))
    again = cli("embed", "--flush", "--root", str(ref_store), "--json").json()
    assert again["texts_embedded"] == 0


def test_get_rejoins_a_split_section(cli, ref_store: Path, counter: TokenCounter) -> None:  # type: ignore[no-untyped-def]
    copy = ref_store.parent / "vendor" / "k8s"  # ids come from source_uri: the registered copy's
    pieces = [c for c in chunks_of("capacity-8000-tokens.md", counter, copy) if c.continuation]
    fetched = cli("get", pieces[3].id, "--root", str(ref_store), "--json").json()["documents"][0]
    section = (CORPUS / "capacity-8000-tokens.md").read_text().split("## Every number we ever measured\n\n", 1)[1]
    assert fetched["pieces"] > 30
    assert " ".join(fetched["text"].split()).endswith(" ".join(section.split()))
