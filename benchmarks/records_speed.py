"""What reading records in place costs against the same records with docir's frontmatter (adr-0c5e2d8f1a47).

    python -m benchmarks.records_speed [--size 1000] [--repeat 7] [--keep]

Two stores of the same `--size` decisions, made from one generated store (generate.py): every document's
title and body as an adr-tools record (`# N. Title`, a `Date:` line, a `## Status` section, then the
body), once under docir frontmatter in docs/decisions/ (as `docir adopt` leaves it), once as it is in
doc/adr/, which the second store's schema lists under `records:`. Each command is a whole
`python -m docir` process, the two stores in alternating rounds after a discarded warm-up round, beside
the floor (`python -c "import sqlite3"`), with `--busy N` cores kept busy meanwhile:

    reindex-full   `docir reindex --full`: every file read and indexed from nothing
    reindex-one    `docir reindex` after one record's body changed (re-touched before every round)
    query          cold `docir query --limit 20`
    context        cold `docir context "<words of a title>"` (no model: ranked by words)
    get            cold `docir get ID`
    context-warm   the same context answered by each store's warm worker (started without a model)

Prints per command each store's median milliseconds, the ratio in-place / frontmatter, and checks the
target: every ratio <= 1.2 (exit 1 when one is missed; `--no-check`: report only). Writes
benchmarks/results/records_speed.json.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import _harness as harness
from benchmarks.generate import generate_store
from docir.documents import frontmatter

NAME = "records_speed"
TARGET = 1.2
COMMANDS = ("reindex-full", "reindex-one", "query", "context", "get", "context-warm")
SIDES = ("frontmatter", "in-place")
RECORDS_ENTRY = "\nrecords:\n  - {path: doc/adr, type: decision, format: adr-tools}\n"


def build(base: Path, size: int) -> tuple[dict[str, Path], dict[str, str], str]:
    """The two stores under `base`, an id of each (the same record), and a query made of a title's words."""
    source = base / "generated"
    generate_store(source, size)
    stores = {side: base / side for side in SIDES}
    for side, root in stores.items():
        root.mkdir()
        schema = (source / "docs-schema.yaml").read_text(encoding="utf-8")
        if side == "in-place":
            schema = schema + RECORDS_ENTRY
        (root / "docs-schema.yaml").write_text(schema, encoding="utf-8")
    paths = sorted(source.glob("docs/*/*.md"))[:size]
    title = ""
    for number, path in enumerate(paths, 1):
        meta, parts = frontmatter.parse(path.read_text(encoding="utf-8"))
        title = title or str(meta["title"])
        slug = f"{number:04d}-{path.stem}"[:80]
        record = (f"# {number}. {meta['title']}\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n"
                  f"{parts.body.strip(chr(10))}\n")
        folder = stores["frontmatter"] / "docs" / "decisions"
        folder.mkdir(parents=True, exist_ok=True)
        fields = {"id": "adr-" + meta["id"].split("-", 1)[1], "type": "decision", "title": meta["title"],
                  "description": meta["description"], "status": "accepted", "owner": "@bench", "number": number,
                  "date": "2024-03-01"}
        (folder / f"{slug}.md").write_text(  # as `docir adopt` writes it: the record's text under frontmatter
            "---\n" + "\n".join(frontmatter.render_field(k, v) for k, v in fields.items()) + "\n---\n\n" + record,
            encoding="utf-8")
        folder = stores["in-place"] / "doc" / "adr"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{slug}.md").write_text(record, encoding="utf-8")
    for root in stores.values():
        harness.run(harness.docir_argv("reindex", "--root", str(root)), what=f"first index of {root.name}")
    ids = {side: harness.run(harness.docir_argv("query", "--limit", "1", "--json", "--root", str(root)),
                             what="an id").json()["results"][0]["id"] for side, root in stores.items()}
    return stores, ids, " ".join(title.split()[:4])


def argv(command: str, root: Path, ids: dict[str, str], side: str, words: str) -> list[str]:
    where = ("--root", str(root))
    return {
        "reindex-full": harness.docir_argv("reindex", "--full", *where),
        "reindex-one": harness.docir_argv("reindex", *where),
        "query": harness.docir_argv("query", "--limit", "20", *where),
        "context": harness.docir_argv("context", words, *where),
        "get": harness.docir_argv("get", ids[side], *where),
        "context-warm": harness.docir_argv("context", words, *where),
    }[command]


def touch_one(root: Path, side: str) -> None:
    folder = root / ("docs/decisions" if side == "frontmatter" else "doc/adr")
    first = sorted(folder.glob("*.md"))[0]
    text = first.read_text(encoding="utf-8")
    first.write_text(text + ("\nOne more line.\n" if not text.endswith("One more line.\n") else ""),
                     encoding="utf-8")
    if text.endswith("One more line.\n"):
        first.write_text(text[: -len("\nOne more line.\n")] + "\n", encoding="utf-8")


def measure(stores: dict[str, Path], ids: dict[str, str], words: str, repeat: int) -> dict[str, Any]:
    times: dict[str, dict[str, list[float]]] = {c: {s: [] for s in SIDES} for c in COMMANDS}
    floor: list[float] = []
    for root in stores.values():
        harness.run(harness.docir_argv("worker", "start", "--root", str(root)), what="worker start",
                    env=harness.child_env(worker=True))
    try:
        for round_ in range(repeat + 1):
            floor_ms = harness.run([sys.executable, "-c", "import sqlite3"], what="floor").ms
            for command in COMMANDS:
                order = SIDES if round_ % 2 == 0 else SIDES[::-1]
                for side in order:
                    root = stores[side]
                    if command == "reindex-one":
                        touch_one(root, side)
                    ran = harness.run(argv(command, root, ids, side, words), what=f"{command} on {side}",
                                      env=harness.child_env(worker=command.endswith("-warm")))
                    if round_:
                        times[command][side].append(ran.ms)
            if round_:
                floor.append(floor_ms)
    finally:
        for root in stores.values():
            harness.run(harness.docir_argv("worker", "stop", "--root", str(root)), what="worker stop",
                        env=harness.child_env(worker=True), ok_codes=(0, 1))
    result: dict[str, Any] = {"floor_ms": round(statistics.median(floor), 1), "commands": {}}
    for command in COMMANDS:
        medians = {side: statistics.median(values) for side, values in times[command].items()}
        result["commands"][command] = {**{f"{side}_ms": round(ms, 1) for side, ms in medians.items()},
                                       "ratio": round(medians["in-place"] / medians["frontmatter"], 3)}
    return result


def main(argv_: list[str] | None = None) -> int:
    parser = harness.arguments(NAME, __doc__, repeat=7)
    parser.add_argument("--size", type=int, default=1000, help="records in each store (default 1000)")
    parser.add_argument("--keep", action="store_true", help="keep the two stores")
    parser.add_argument("--busy", type=int, default=0, help="cores kept busy while measuring (default 0)")
    parser.add_argument("--no-check", action="store_true", help="report only: exit 0 even when a target is missed")
    args = parser.parse_args(argv_)
    base = Path(tempfile.mkdtemp(prefix=f"docir-{NAME}-"))
    try:
        stores, ids, words = build(base, args.size)
        with harness.busy_cores(args.busy):
            result = measure(stores, ids, words, args.repeat)
    finally:
        if args.keep:
            print(f"{NAME}: kept {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)
    checked = [{"name": command, "status": "PASS" if row["ratio"] <= TARGET else "FAIL", "value": row["ratio"],
                "limit": TARGET, "detail": f"in-place / frontmatter {row['ratio']:.2f}, target <= {TARGET}"}
               for command, row in result["commands"].items()]
    machine = harness.machine_info()
    payload = {"size": args.size, "repeat": args.repeat, "busy": args.busy, **result, "targets": checked,
               "machine": machine}
    rows = [[command, row["frontmatter_ms"], row["in-place_ms"], row["ratio"]]
            for command, row in result["commands"].items()]
    title = [f"{args.size} records with frontmatter against the same read in place (adr-tools); median of "
             f"{args.repeat} alternating rounds, {args.busy} busy cores; floor {result['floor_ms']} ms; "
             f"docir {machine.get('git_head', '?')}"]
    harness.report(NAME, payload, title=title, columns=[("command", ""), ("frontmatter ms", ".1f"),
                                                        ("in place ms", ".1f"), ("ratio", ".2f")],
                   rows=rows, out=args.out)
    missed = [t for t in checked if t["status"] == "FAIL"]
    if missed and not args.no_check:
        print(f"{NAME}: {len(missed)} of {len(checked)} targets missed: "
              + "; ".join(str(t["detail"]) for t in missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
