"""How long the pre-commit framework's first use of the docir-lint hook takes, on a clean machine.

    python -m benchmarks.lint_install [--rev HEAD] [--docs 20] [--keep]

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

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._harness import REPO, SEED, BenchmarkError, arguments, git_env, machine_info, report, run
from benchmarks.generate import generate_store

TARGET_S = 8.0
MODEL_RUNTIME = ("onnxruntime", "fastembed", "tokenizers")


def clean_env(tmp: Path) -> dict[str, str]:
    """This process's environment with every cache the hook's install reads moved into `tmp`."""
    env = git_env(dict(os.environ))
    for key in ("VIRTUAL_ENV", "PYTHONPATH"):
        env.pop(key, None)
    env.update({"PRE_COMMIT_HOME": str(tmp / "pre-commit-home"), "PIP_CACHE_DIR": str(tmp / "pip-cache"),
                "VIRTUALENV_OVERRIDE_APP_DATA": str(tmp / "virtualenv-app-data"), "DOCIR_WORKER": "0"})
    return env


def build(tmp: Path, rev: str, docs: int, env: dict[str, str]) -> tuple[Path, str]:
    """The clone of this repository at `rev`, and a consumer repository using its hook; the sha."""
    sha = run(["git", "rev-parse", rev], what="git rev-parse", cwd=REPO, env=env).stdout.decode().strip()
    clone = tmp / "docir-clone"
    run(["git", "clone", "-q", "--no-checkout", str(REPO), str(clone)], what="git clone", cwd=tmp, env=env)
    run(["git", "checkout", "-q", sha], what="git checkout", cwd=clone, env=env)
    consumer = tmp / "consumer"
    generate_store(consumer, docs, SEED)
    (consumer / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {clone}\n    rev: {sha}\n    hooks:\n      - id: docir-lint\n", encoding="utf-8")
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "config", "commit.gpgsign", "false"],
                 ["git", "add", "-A"], ["git", "commit", "-q", "-m", "a store"]):
        run(argv, what=" ".join(argv), cwd=consumer, env=env)
    return consumer, sha


def runtime_in_env(home: Path) -> dict[str, bool]:
    """Which of the model runtime's packages the hook's environment holds."""
    found = {name: False for name in MODEL_RUNTIME}
    for site in home.glob("repo*/py_env-*/lib/python*/site-packages"):
        for name in MODEL_RUNTIME:
            found[name] = found[name] or (site / name).is_dir()
    return found


def measure(rev: str, docs: int, keep: bool) -> dict[str, object]:
    """One first use and one second use of the hook at `rev`, everything made afresh."""
    tmp = Path(tempfile.mkdtemp(prefix="docir-lint-install-")).resolve()
    env = clean_env(tmp)
    try:
        consumer, sha = build(tmp, rev, docs, env)
        argv = [sys.executable, "-m", "pre_commit", "run", "docir-lint", "--all-files"]
        print(f"lint_install: first run at {rev} ({sha[:12]}): clone, virtualenv, pip install", file=sys.stderr)
        first = run(argv, what="first pre-commit run", cwd=consumer, env=env)
        again = run(argv, what="second pre-commit run", cwd=consumer, env=env)
        if b"Passed" not in again.stdout:
            raise BenchmarkError(f"the hook did not pass on a generated store:\n{again.stdout[-2000:]!r}")
        return {"sha": sha, "first_s": first.ms / 1000, "first_cpu_s": first.cpu_ms / 1000, "again_s": again.ms / 1000,
                "again_cpu_s": again.cpu_ms / 1000, "model_runtime": runtime_in_env(tmp / "pre-commit-home")}
    finally:
        if keep:
            print(f"lint_install: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def summarise(rev: str, runs: list[dict[str, object]]) -> dict[str, object]:
    """Medians over a revision's runs, and the runs themselves."""
    def median(key: str) -> float:
        return round(statistics.median(float(r[key]) for r in runs), 2)  # type: ignore[arg-type]

    runtime = runs[0]["model_runtime"]
    assert isinstance(runtime, dict)
    return {"rev": rev, "sha": runs[0]["sha"], "first_s": median("first_s"), "first_cpu_s": median("first_cpu_s"),
            "again_s": median("again_s"), "again_cpu_s": median("again_cpu_s"),
            "model_runtime": sorted(name for name, there in runtime.items() if there),
            "runs": [{k: round(v, 2) if isinstance(v, float) else v for k, v in r.items() if k != "model_runtime"}
                     for r in runs],
            "status": "PASS" if median("first_s") < TARGET_S else "FAIL"}


def main(argv: list[str] | None = None) -> int:
    parser = arguments("lint_install", __doc__)
    parser.add_argument("--rev", action="append", help="a commit of this repository the hook installs (repeatable: "
                                                       "the revisions take turns; default HEAD)")
    parser.add_argument("--repeat", type=int, default=1, help="first uses per revision (default 1)")
    parser.add_argument("--docs", type=int, default=20, help="documents in the consumer's store (default 20)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (their paths are printed)")
    args = parser.parse_args(argv)
    if args.docs < 1 or args.repeat < 1:
        parser.error("--docs and --repeat must be positive")
    if shutil.which("git") is None:
        print("lint_install: git is not installed", file=sys.stderr)
        return 1
    revs: list[str] = args.rev or ["HEAD"]
    machine = machine_info()
    runs: dict[str, list[dict[str, object]]] = {rev: [] for rev in revs}
    try:
        for _ in range(args.repeat):
            for rev in revs:  # in turns, so a busy minute of the machine hits every revision alike
                runs[rev].append(measure(rev, args.docs, args.keep))
    except BenchmarkError as exc:
        print(f"lint_install: {exc}", file=sys.stderr)
        return 1
    results: list[dict[str, Any]] = [summarise(rev, runs[rev]) for rev in revs]
    payload: dict[str, Any] = {
        "machine": machine,
        "config": {"revs": revs, "repeat": args.repeat, "docs": args.docs, "seed": SEED, "target_s": TARGET_S},
        "results": results,
    }
    title = [f"pre-commit run docir-lint --all-files from nothing, {args.docs} documents, "
             f"median of {args.repeat}; target: first use under {TARGET_S:g} s"]
    rows = [[f"{row['rev']} ({str(row['sha'])[:8]})", row["first_s"], row["first_cpu_s"], row["again_s"],
             ", ".join(row["model_runtime"]) or "none", row["status"]] for row in results]
    report("lint_install", payload, title=title, out=args.out, rows=rows,
           columns=[("revision", ""), ("first wall s", ".2f"), ("first CPU s", ".2f"), ("again s", ".2f"),
                    ("model runtime installed", ""), ("target", "")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
