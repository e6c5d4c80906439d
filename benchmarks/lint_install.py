"""How long the pre-commit framework's first use of the docir-lint hook takes, on a clean machine.

    python benchmarks/lint_install.py [--rev HEAD] [--docs 20] [--keep]

The first `pre-commit run` of a hook repository clones it, makes a virtualenv and `pip install .`s
it: what a plain install pulls in is paid by everyone who adopts the hook. In a temporary folder:

    clone      git clone of this repository, checked out at --rev (default HEAD)
    consumer   a git repository holding a generated store (benchmarks/generate.py, seed 7) whose
               .pre-commit-config.yaml names the clone as `repo:` with `rev:` = the commit's sha
    first      pre-commit run docir-lint --all-files      (nothing installed yet: clone, venv, pip)
    again      pre-commit run docir-lint --all-files      (the environment exists: lint alone)

"Clean" means fresh caches for everything the install reads: PRE_COMMIT_HOME, pip's cache and
virtualenv's app data all live in the temporary folder. pip still reads its configured package
index, as any install does. Also recorded: whether the hook's environment holds onnxruntime,
fastembed or tokenizers (the model runtime the lint never needs). Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate_store  # benchmarks/ is not a package
from speed import machine_info, write_results

SEED = 7
TARGET_S = 8.0
MODEL_RUNTIME = ("onnxruntime", "fastembed", "tokenizers")


class BenchmarkError(Exception):
    pass


def run(argv: list[str], cwd: Path, env: dict[str, str], *, what: str) -> tuple[float, str]:
    """Wall seconds and combined output of one process; BenchmarkError when it fails."""
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env,
                          check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise BenchmarkError(f"{what} failed (exit {proc.returncode}): {' '.join(argv)}\n"
                             f"{(proc.stdout + proc.stderr)[-3000:]}")
    return elapsed, proc.stdout + proc.stderr


def clean_env(tmp: Path) -> dict[str, str]:
    """This process's environment with every cache the hook's install reads moved into `tmp`."""
    import os

    env = dict(os.environ)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "VIRTUAL_ENV", "PYTHONPATH"):
        env.pop(key, None)
    env.update({"PRE_COMMIT_HOME": str(tmp / "pre-commit-home"), "PIP_CACHE_DIR": str(tmp / "pip-cache"),
                "VIRTUALENV_OVERRIDE_APP_DATA": str(tmp / "virtualenv-app-data"),
                "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
                "GIT_CONFIG_NOSYSTEM": "1", "DOCIR_WORKER": "0"})
    return env


def build(tmp: Path, rev: str, docs: int, env: dict[str, str]) -> tuple[Path, str]:
    """The clone of this repository at `rev`, and a consumer repository using its hook; the sha."""
    source = HERE.parent
    sha = run(["git", "rev-parse", rev], source, env, what="git rev-parse")[1].strip()
    clone = tmp / "docir-clone"
    run(["git", "clone", "-q", "--no-checkout", str(source), str(clone)], tmp, env, what="git clone")
    run(["git", "checkout", "-q", sha], clone, env, what="git checkout")
    consumer = tmp / "consumer"
    generate_store(consumer, docs, SEED)
    (consumer / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {clone}\n    rev: {sha}\n    hooks:\n      - id: docir-lint\n", encoding="utf-8")
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "config", "commit.gpgsign", "false"],
                 ["git", "add", "-A"], ["git", "commit", "-q", "-m", "a store"]):
        run(argv, consumer, env, what=" ".join(argv))
    return consumer, sha


def runtime_in_env(home: Path) -> dict[str, bool]:
    """Which of the model runtime's packages the hook's environment holds."""
    found = {name: False for name in MODEL_RUNTIME}
    for site in home.glob("repo*/py_env-*/lib/python*/site-packages"):
        for name in MODEL_RUNTIME:
            found[name] = found[name] or (site / name).is_dir()
    return found


def measure(rev: str, docs: int, keep: bool) -> dict[str, object]:
    tmp = Path(tempfile.mkdtemp(prefix="docir-lint-install-")).resolve()
    env = clean_env(tmp)
    try:
        consumer, sha = build(tmp, rev, docs, env)
        argv = [sys.executable, "-m", "pre_commit", "run", "docir-lint", "--all-files"]
        print(f"lint_install: first run at {sha[:12]} (clone, virtualenv, pip install)", file=sys.stderr)
        first_s, first_out = run(argv, consumer, env, what="first pre-commit run")
        again_s, again_out = run(argv, consumer, env, what="second pre-commit run")
        if "Passed" not in again_out:
            raise BenchmarkError(f"the hook did not pass on a generated store:\n{again_out[-2000:]}")
        return {"sha": sha, "first_s": round(first_s, 2), "again_s": round(again_s, 2),
                "model_runtime_installed": runtime_in_env(tmp / "pre-commit-home"),
                "first_output_tail": first_out[-600:]}
    finally:
        if keep:
            print(f"lint_install: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="HEAD", help="the commit of this repository the hook installs (default HEAD)")
    parser.add_argument("--docs", type=int, default=20, help="documents in the consumer's store (default 20)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "lint_install.json", help="JSON output")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    args = parser.parse_args(argv)
    if args.docs < 1:
        parser.error("--docs must be positive")
    if shutil.which("git") is None:
        print("lint_install: git is not installed", file=sys.stderr)
        return 1
    machine = machine_info()
    try:
        measured = measure(args.rev, args.docs, args.keep)
    except BenchmarkError as exc:
        print(f"lint_install: {exc}", file=sys.stderr)
        return 1
    first = measured["first_s"]
    assert isinstance(first, float)
    payload: dict[str, object] = {
        "benchmark": "lint_install",
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine,
        "config": {"rev": args.rev, "docs": args.docs, "seed": SEED},
        **measured,
        "target": {"name": f"first use under {TARGET_S:g} s", "limit_s": TARGET_S,
                   "status": "PASS" if first < TARGET_S else "FAIL"},
    }
    write_results(args.out, payload, machine)
    runtime = measured["model_runtime_installed"]
    assert isinstance(runtime, dict)
    print(f"pre-commit run docir-lint --all-files, docir at {str(measured['sha'])[:12]}, {args.docs} documents")
    print(f"{'what':<48} {'seconds':>8}")
    print(f"{'first use (clone, virtualenv, pip install, lint)':<48} {first:>8.2f}")
    print(f"{'again (environment installed)':<48} {measured['again_s']:>8.2f}")
    print(f"model runtime in the hook's environment: "
          f"{', '.join(n for n, there in runtime.items() if there) or 'none'}")
    print(f"target: {payload['target']['name']}: {payload['target']['status']}")  # type: ignore[index]
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
