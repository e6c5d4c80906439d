"""A plain install (`pip install .`, what the pre-commit framework gives the lint hook) has no model runtime.

The runtime is the `semantic` extra (adr-2307eb5a55d4). Without it lint works, and every path that
wants a model says once that the semantic layer is off, as when no model is installed at all.
The runtime is hidden by `sys.modules[name] = None` in a child process: an import of it fails,
and `importlib.util.find_spec` finds nothing, as in an environment that never installed it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docir.embed import resolve as resolve_module
from docir.embed.resolve import OFFLINE_INSTALL, RUNTIME_INSTALL, resolve
from tests.caller import settings
from tests.conftest import REPO, Result
from tests.git.test_hooks import git, git_identity, sample_in_git

RUNTIME = ("fastembed", "onnxruntime", "tokenizers")
BUILD_TOOLS = ("onnx",)  # what builds the packaged model's integer file, through onnxruntime's own tools
OFF = f"off: the model runtime is not installed (onnxruntime, tokenizers); run: {RUNTIME_INSTALL}"

# Hide the runtime, run the command, then fail (exit 99) if anything got past the block.
LAUNCHER = f"""
import sys
for name in {RUNTIME!r}:
    sys.modules[name] = None
sys.argv[0] = "docir"
from docir.cli.main import main
code = main()
leaked = sorted(n for n in sys.modules if n.split(".")[0] in {RUNTIME!r} and sys.modules[n] is not None)
if leaked:
    print("imported: " + " ".join(leaked), file=sys.stderr)
    code = 99
sys.exit(code)
"""


def without_runtime(*args: str, cwd: Path) -> Result:
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Path:
    """The sample store in git, on a machine where the offline model's data packages are installed."""
    git_identity(monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    root = sample_in_git(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def test_the_packaged_model_without_its_runtime_is_no_model(monkeypatch: pytest.MonkeyPatch,
                                                           model_cache: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    if resolve(settings(), None).source != "packaged":
        pytest.skip(f"the offline model is not installed: {OFFLINE_INSTALL}")
    for name in RUNTIME:
        monkeypatch.setitem(sys.modules, name, None)
    choice = resolve(settings(), None)
    assert (choice.available, choice.path, choice.source) == (False, None, OFF)


def test_no_runtime_and_no_model_name_both_installs_in_one_reason(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no model assembled here before
    monkeypatch.setattr(resolve_module, "_package_file", lambda package, name: (_ for _ in ()).throw(
        resolve_module.ModelUnavailable(f"no embedding model installed; for the offline model run: {OFFLINE_INSTALL}")))
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    assert resolve(settings(), None).source == (
        f"off: the model runtime is not installed (onnxruntime); run: {RUNTIME_INSTALL}; "
        f"no embedding model installed; for the offline model run: {OFFLINE_INSTALL}")


def test_an_explicit_model_run_by_fastembed_needs_fastembed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bge"
    folder.mkdir()
    (folder / "tokenizer.json").write_text("{}")
    (folder / "model_optimized.onnx").write_bytes(b"")
    monkeypatch.setenv("DOCIR_MODEL_PATH", str(folder))
    assert resolve(settings(), None).source == "explicit"
    monkeypatch.setitem(sys.modules, "fastembed", None)
    assert resolve(settings(), None).source == \
        f"off: the model runtime is not installed (fastembed); run: {RUNTIME_INSTALL}"


def test_lint_of_staged_documents_needs_no_model_runtime(repo: Path) -> None:
    clean = without_runtime("lint", "--staged", cwd=repo)
    assert (clean.code, clean.err) == (0, ""), clean.out + clean.err
    doc = repo / "docs" / "decisions" / "keep-sessions-in-the-database.md"
    doc.write_text(doc.read_text().replace("status: accepted", "status: maybe", 1))
    git(repo, "add", "-A")
    broken = without_runtime("lint", "--staged", cwd=repo)
    assert broken.code == 1 and "keep-sessions-in-the-database.md" in broken.out, broken.out + broken.err


def test_deep_lint_says_in_one_line_that_the_near_duplicate_check_is_skipped(repo: Path) -> None:
    done = without_runtime("lint", "--deep", cwd=repo)
    assert done.code == 0, done.out + done.err
    assert done.err.splitlines() == [f"docir: near-duplicate check skipped: semantic layer is {OFF}"]


def test_context_falls_back_to_lexical_with_its_note(repo: Path) -> None:
    done = without_runtime("context", "where are sessions kept", "--json", cwd=repo)
    assert done.code == 0, done.err
    payload = json.loads(done.out)
    assert payload["semantic"] == OFF and payload["results"]
    assert done.err.splitlines() == [f"docir: semantic ranking is {OFF}; results are lexical only"]


def test_the_extra_installs_what_the_embedders_import_and_the_model_hooks_install_the_extra() -> None:
    """pyproject's `semantic` extra names each package docir/embed imports to run a model; the hooks
    that want a model install the same list, and the lint hook none of it."""
    import tomllib

    import yaml

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["semantic"]
    named = {requirement.split(">")[0].split("=")[0].strip() for requirement in extra}
    imported = {name for name in RUNTIME for path in (REPO / "docir" / "embed").glob("*.py")
                if f"import {name}" in path.read_text() or f"from {name} import" in path.read_text()}
    assert imported == set(RUNTIME) and named == imported | set(BUILD_TOOLS)
    assert all(f'"{tool}"' in (REPO / "docir" / "embed" / "quantized.py").read_text() for tool in BUILD_TOOLS)
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert {hook_id: hook.get("additional_dependencies", []) for hook_id, hook in hooks.items()} == {
        "docir-lint": [], "docir-lint-deep": extra, "docir-reindex": extra}
