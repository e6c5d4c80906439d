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
import resource
import shutil
import statistics
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


LAST_CPU_S = [0.0]  # user + system seconds of the last process `run` ran, its children included


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str], cwd: Path, env: dict[str, str], *, what: str) -> tuple[float, str]:
    """Wall seconds and combined output of one process (CPU seconds in LAST_CPU_S); BenchmarkError when it fails."""
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env,
                          check=False)
    elapsed = time.perf_counter() - started
    LAST_CPU_S[0] = _children_cpu() - cpu
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
    """One first use and one second use of the hook at `rev`, everything made afresh."""
    tmp = Path(tempfile.mkdtemp(prefix="docir-lint-install-")).resolve()
    env = clean_env(tmp)
    try:
        consumer, sha = build(tmp, rev, docs, env)
        argv = [sys.executable, "-m", "pre_commit", "run", "docir-lint", "--all-files"]
        print(f"lint_install: first run at {rev} ({sha[:12]}): clone, virtualenv, pip install", file=sys.stderr)
        first_s, _ = run(argv, consumer, env, what="first pre-commit run")
        first_cpu_s = LAST_CPU_S[0]
        again_s, again_out = run(argv, consumer, env, what="second pre-commit run")
        if "Passed" not in again_out:
            raise BenchmarkError(f"the hook did not pass on a generated store:\n{again_out[-2000:]}")
        return {"sha": sha, "first_s": first_s, "first_cpu_s": first_cpu_s, "again_s": again_s,
                "again_cpu_s": LAST_CPU_S[0], "model_runtime": runtime_in_env(tmp / "pre-commit-home")}
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", action="append", help="a commit of this repository the hook installs (repeatable: "
                                                       "the revisions take turns; default HEAD)")
    parser.add_argument("--repeat", type=int, default=1, help="first uses per revision (default 1)")
    parser.add_argument("--docs", type=int, default=20, help="documents in the consumer's store (default 20)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "lint_install.json", help="JSON output")
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
    results = [summarise(rev, runs[rev]) for rev in revs]
    payload: dict[str, object] = {
        "benchmark": "lint_install",
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine,
        "config": {"revs": revs, "repeat": args.repeat, "docs": args.docs, "seed": SEED, "target_s": TARGET_S},
        "results": results,
    }
    write_results(args.out, payload, machine)
    print(f"pre-commit run docir-lint --all-files from nothing, {args.docs} documents, "
          f"median of {args.repeat}; target: first use under {TARGET_S:g} s")
    header = f"{'revision':<24} {'first wall s':>12} {'first CPU s':>11} {'again s':>8}  model runtime installed"
    print(header)
    print("-" * len(header))
    for row in results:
        label = f"{row['rev']} ({str(row['sha'])[:8]})"
        runtime = ", ".join(row["model_runtime"]) or "none"  # type: ignore[arg-type]
        print(f"{label:<24} {row['first_s']:>12.2f} {row['first_cpu_s']:>11.2f} {row['again_s']:>8.2f}  "
              f"{runtime}  {row['status']}")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
