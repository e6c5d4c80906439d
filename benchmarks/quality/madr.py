"""Build a template-heavy docir store: EIPs rewritten into the MADR template, as a team using it would.

    python -m benchmarks.quality.madr [--src ../shared/benchdata/eips] [--dest benchmarks/.cache/quality/madr]

The template is MADR 4.0.0's `adr-template.md` (`madr/adr-template.md` here, CC0-1.0, as the `madr`
npm package ships it: HTML comments marking optional sections, `{placeholder}` text). Each selected
EIP fills it: Context and Problem Statement from its Motivation (else Abstract), Decision Outcome
from its Abstract's first sentence and its Specification, Consequences from Backwards
Compatibility, Confirmation from Test Cases, Pros and Cons from Rationale, More Information from
Security Considerations; each filled section takes the EIP section's own text before its first
subheading, at most MAX_PARAGRAPHS paragraphs. An optional section the EIP has nothing for is left
the way authors leave one, chosen per EIP and section by a seeded draw (LEFT_AS): deleted with its
comment, kept as its heading and comment with the placeholder deleted, or kept as the template has it.

The selection is every EIP judged by a query of eips_queries.yaml that is not `deep` (a deep query's
answer is a section this rewrite cuts) plus DISTRACTORS others, so its queries are those 56 with their
grades. Ids are those of eips.py (`adr-` + the EIP number in hex), so the judgments carry over. This
corpus measures; no setting is tuned on it.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TEMPLATE = HERE / "madr" / "adr-template.md"
DEFAULT_SRC = REPO.parent / "shared" / "benchdata" / "eips"
DEFAULT_DEST = REPO / "benchmarks" / ".cache" / "quality" / "madr"
QUERIES_FILE = HERE / "eips_queries.yaml"
SCHEMA_FILE = REPO / "docs-schema.yaml"
DISTRACTORS = 100
MAX_PARAGRAPHS = 4
SEED = 20
# How an optional section with nothing to say is left: deleted (heading, comment and all), its heading
# and comment kept with the placeholder text deleted, or kept exactly as the template has it.
LEFT_AS = (("deleted", 0.4), ("heading and comment", 0.4), ("template text", 0.2))
OPTIONAL_MARK = "<!-- This is an optional element. Feel free to remove. -->"
# Template section -> the EIP sections that fill it, first found wins; None: no EIP section says it.
FILLED_FROM: dict[str, tuple[str, ...] | None] = {
    "Context and Problem Statement": ("motivation", "abstract", "simple summary"),
    "Decision Drivers": None,
    "Considered Options": (),  # written from the title, below
    "Decision Outcome": ("specification",),
    "Consequences": ("backwards compatibility",),
    "Confirmation": ("test cases",),
    "Pros and Cons of the Options": ("rationale",),
    "More Information": ("security considerations",),
}


def _eips() -> ModuleType:
    from benchmarks.quality import eips

    return eips


def template_units(template: str) -> tuple[str, list[tuple[str, str, bool, str]]]:
    """(the YAML comment line of its frontmatter, [(heading marks, heading, optional, template body)]).

    A section is optional when the template's optional mark stands right above its heading; the
    `### {title of option}` headings are part of their section's template body."""
    front, body = template.split("\n---\n", 1)
    comment = next(line for line in front.splitlines() if line.startswith("#"))
    lines = body.splitlines()
    units: list[tuple[str, str, bool, str]] = []
    kept: list[str] = []
    optional = False
    for i, line in enumerate(lines):
        heading = _section_heading(line)
        if heading is not None:
            if units:
                units[-1] = (*units[-1][:3], "\n".join(kept).strip("\n"))
            units.append((heading[0], heading[1], optional, ""))
            optional, kept = False, []
        elif line == OPTIONAL_MARK and i + 1 < len(lines) and _section_heading(lines[i + 1]) is not None:
            optional = True
        elif units:
            kept.append(line)
    units[-1] = (*units[-1][:3], "\n".join(kept).strip("\n"))
    return comment, units


def _section_heading(line: str) -> tuple[str, str] | None:
    found = re.match(r"^(##+) (.*)$", line)
    return None if found is None or found.group(2).startswith("{") else (found.group(1), found.group(2))


def eip_sections(body: str) -> dict[str, str]:
    """An EIP's `##` sections by lowercased heading: the text before its first subheading, cut short."""
    found: dict[str, str] = {}
    parts = re.split(r"^## +(.+?)\s*$", body, flags=re.MULTILINE)
    for heading, text in zip(parts[1::2], parts[2::2], strict=True):
        own = re.split(r"^#{3,} ", text, maxsplit=1, flags=re.MULTILINE)[0].strip()
        if not own:  # all of it sits in subsections: the first one's text stands for it
            sub = re.split(r"^#{3,} .*$", text, flags=re.MULTILINE)
            own = next((s.strip() for s in sub if s.strip()), "")
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", own) if p.strip()]
        found.setdefault(heading.strip().lower(), "\n\n".join(paragraphs[:MAX_PARAGRAPHS]))
    return found


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", flat)
    return (match.group(1) if match else flat)[:300]


def _left_as(number: int, heading: str) -> str:
    draw = random.Random(f"{SEED}:{number}:{heading}").random()
    for name, share in LEFT_AS:
        if draw < share:
            return name
        draw -= share
    return LEFT_AS[-1][0]


def to_madr(number: int, meta: dict[str, Any], body: str, comment: str,
            units: list[tuple[str, str, bool, str]], description: str, status: str, owner: str) -> str:
    """The EIP written into the MADR template: frontmatter, `# title`, the sections."""
    eips = _eips()
    title = str(meta["title"]).strip()
    source = eip_sections(body)
    front = {"id": eips.eip_id(number), "type": "decision", "title": title, "description": description,
             "status": status, "owner": owner, "date": str(meta.get("created", "")),
             "decision-makers": str(meta.get("author", "")), "eip": number}
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1 << 20)
    out = [f"---\n{comment}\n{head}---\n\n# {title}\n"]
    for marks, heading, optional, template_body in units:
        wanted = FILLED_FROM[heading]
        text = ""
        if heading == "Considered Options":
            text = f"* {title}\n* Keep the protocol as it is"
        elif wanted:
            text = next((source[name] for name in wanted if source.get(name)), "")
            if text and heading == "Decision Outcome":
                summary = source.get("abstract") or source.get("simple summary") or text
                text = f'Chosen option: "{title}", because {_first_sentence(summary)}\n\n{text}'
            elif text and heading == "Pros and Cons of the Options":
                text = f"### {title}\n\n{text}"
        mark = f"{OPTIONAL_MARK}\n" if optional else ""
        if not text:
            if not optional:
                text = template_body
            else:
                left = _left_as(number, heading)
                if left == "deleted":
                    continue
                text = template_body if left == "template text" else ""
        out.append(f"\n{mark}{marks} {heading}\n" + (f"\n{text}\n" if text else ""))
    return "".join(out)


def selection(src: Path, queries_file: Path = QUERIES_FILE) -> list[int]:
    """Every EIP a non-deep query judges, then DISTRACTORS others (by a hash of their number)."""
    eips = _eips()
    data = yaml.safe_load(queries_file.read_text(encoding="utf-8"))
    judged = {int(n) for row in data["queries"] if not row.get("deep") for n in row["relevant"]}
    others = []
    for path in sorted(src.glob("eip-*.md")):
        number = int(re.findall(r"\d+", path.name)[0])
        status = eips._split_eip(path.read_bytes())[0].get("status")
        if number not in judged and status not in eips.SKIPPED_STATUSES:
            others.append(number)
    others.sort(key=lambda n: hashlib.sha256(f"{SEED}:{n}".encode()).hexdigest())
    return sorted(judged | set(others[:DISTRACTORS]))


def build_store(src: Path, dest: Path, queries_file: Path = QUERIES_FILE) -> Path:
    """Write the MADR store to `dest` (only files whose bytes change); return `dest`."""
    eips = _eips()
    comment, units = template_units(TEMPLATE.read_text(encoding="utf-8"))
    docs = dest / "docs" / "decisions"
    docs.mkdir(parents=True, exist_ok=True)
    eips._write_if_changed(dest / "docs-schema.yaml", SCHEMA_FILE.read_bytes())
    keep: set[str] = set()
    for number in selection(src, queries_file):
        raw = (src / f"eip-{number}.md").read_bytes()
        meta, body_bytes = eips._split_eip(raw)
        body = body_bytes.decode("utf-8")
        description = meta.get("description") or eips.summary_description(body, str(meta["title"]))
        text = to_madr(number, meta, body, comment, units, " ".join(str(description).split()),
                       eips.STATUS_MAP[str(meta["status"])], eips.owner_of(meta.get("author")))
        slug = re.sub(r"[^a-z0-9]+", "-", str(meta["title"]).lower()).strip("-")[:50]
        name = f"{number:04d}-{slug}.md"
        keep.add(name)
        eips._write_if_changed(docs / name, text.encode("utf-8"))
    for stale in docs.glob("*.md"):
        if stale.name not in keep:
            stale.unlink()
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC)
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    args = parser.parse_args(argv)
    if not args.src.is_dir():
        print(f"madr.py: {args.src} not found", file=sys.stderr)
        return 2
    dest = build_store(args.src, args.dest)
    print(f"{len(list((dest / 'docs' / 'decisions').glob('*.md')))} documents in {dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
