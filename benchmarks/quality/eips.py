"""Turn a folder of Ethereum Improvement Proposals into a docir store, deterministically.

    python -m benchmarks.quality.eips --out DIR [--src ../shared/benchdata/eips]   # every EIP
    python -m benchmarks.quality.eips --slice     # regenerate the committed CI slice (eips_slice/)

The EIPs (ethereum/EIPs, CC0) are real, long design documents with YAML frontmatter
(`eip, title, description, author, status, type, category, created, requires`). Each one
becomes a docir `decision`:

- id: `adr-` + the EIP number as 12 lowercase hex digits (EIP-1559 -> adr-00000000060f);
- title: kept; description: the EIP's `description`, or when it has none, the first
  sentence(s) of its Simple Summary / Abstract (20-400 characters);
- status: Final, Living -> accepted; Draft, Review, Last Call, Stagnant -> proposed;
  Withdrawn -> rejected (docir hides it from ranking: never judge one relevant);
- owner: "@" + the first author's GitHub handle, else a slug of the first author's name;
- related: `depends-on` for every EIP in `requires` that is in the same store;
- every other EIP field is kept, the two that clash with docir's renamed:
  `type` -> `eip-type`, `status` -> `eip-status`;
- the body: the bytes after the EIP's closing `---` line, unchanged.

EIPs whose status is `Moved` are left out. They are 130-byte stubs that point at the ERC
repository ("This file was moved to https://github.com/ethereum/ercs/...") with no title
or text, so they could neither be judged nor hold a docir description. This is why the
token standards (ERC-20, ERC-721, ERC-1155, ERC-2981 royalties, ERC-4337) are not here.

A rebuild rewrites only files whose bytes change and deletes files of EIPs no longer
selected, so unchanged files keep their mtime and docir's index does not re-read them.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_SRC = REPO.parent / "shared" / "benchdata" / "eips"
SCHEMA_FILE = REPO / "docs-schema.yaml"
SLICE_DIR = HERE / "eips_slice"
QUERIES_FILE = HERE / "eips_queries.yaml"
DOCS_SUBDIR = Path("docs") / "eips"

STATUS_MAP = {
    "Final": "accepted", "Living": "accepted",
    "Draft": "proposed", "Review": "proposed", "Last Call": "proposed", "Stagnant": "proposed",
    "Withdrawn": "rejected",
}
SKIPPED_STATUSES = frozenset({"Moved"})
# Frontmatter fields whose EIP meaning clashes with docir's: kept under another name.
RENAMED = {"type": "eip-type", "status": "eip-status"}
DESCRIPTION_MIN, DESCRIPTION_MAX = 20, 400
SUMMARY_HEADINGS = ("simple summary", "abstract", "summary", "overview", "specification", "motivation")

# Hard distractors of the CI slice, next to the EIPs that its `ci: true` queries judge: competing
# proposals on the same topics (a fee market with the same title words, other refund and calldata
# repricings, other blob pricing rules, other EOA delegation designs, reentrancy opcodes, ...) and
# the same categories, so a ranking has to tell near neighbours apart. 6913 is Withdrawn on
# purpose: docir must hide it. Each was picked for being close AND short: embedding the slice is
# part of the CI gate's time, and it grows with the number of sections, not documents.
SLICE_DISTRACTORS: tuple[int, ...] = (
    2593, 3416, 8115, 3044,  # fee market twins, priority fees, base fee over RPC
    3300, 7778, 1087, 7981, 1884, 3651,  # refunds, net gas metering, access-list pricing, warm accounts
    1344, 3788, 2976, 7808,  # chain id, typed transactions
    6913, 7851, 5806, 689,  # EOA code and delegation (6913 Withdrawn), address collisions
    7742, 7840, 8096, 8149, 7915,  # blob counts, KZG point evaluation, blob pricing
    5283, 7705, 3336, 4758, 6046, 2970, 7637, 5478,  # reentrancy, memory, SELFDESTRUCT, STATICCALL, hashes
    7713,  # EIP-712 extensions
    5749, 747, 2464,  # wallet providers, tx announcements
    7045,  # validator exits and attestations
)


# --------------------------------------------------------------------------- one EIP


def eip_id(number: int) -> str:
    return f"adr-{number:012x}"


def _split_eip(raw: bytes) -> tuple[dict[str, Any], bytes]:
    """The EIP's frontmatter mapping and its body bytes (everything after the closing '---' line)."""
    match = re.match(rb"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", raw, re.DOTALL | re.MULTILINE)
    if match is None:
        raise ValueError("no frontmatter")
    meta = yaml.safe_load(match.group(1).decode("utf-8")) or {}
    if not isinstance(meta, dict):
        raise TypeError("frontmatter is not a mapping")
    return meta, raw[match.end():]


def _requires(value: Any) -> list[int]:
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [int(v) for v in value]
    return [int(n) for n in re.findall(r"\d+", str(value))]


def owner_of(author: Any) -> str:
    """'@' + the first author's GitHub handle, else '@' + a slug of the first author's name."""
    text = str(author or "").strip()
    first, depth = "", 0
    for ch in text:  # the first author ends at the first comma outside () and <>
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            break
        first += ch
    handle = re.search(r"\(@([A-Za-z0-9][A-Za-z0-9-]*)\)", first)
    if handle:
        return "@" + handle.group(1)
    name = re.sub(r"[(<].*", "", first)
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return "@" + (slug or "unknown")


_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\[(\"'])")


def _plain(markdown: str) -> str:
    """Markdown prose flattened to one line of text: links to their text, emphasis marks dropped."""
    text = _LINK_RE.sub(r"\1", markdown)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("**", "").replace("__", "")
    text = re.sub(r"(?<![\w*])\*(?!\s)([^*]+?)\*(?!\w)", r"\1", text)
    return " ".join(text.split())


def _paragraphs(section: str) -> list[str]:
    """Prose paragraphs of a Markdown section: no headings, code, tables, lists' bullets kept as text."""
    out: list[str] = []
    current: list[str] = []
    fenced = False
    for line in section.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            current = _flush(current, out)
            continue
        if fenced or stripped.startswith(("#", "|", ">", "<!--")) or not stripped:
            current = _flush(current, out)
            continue
        current.append(re.sub(r"^([-*+]|\d+\.)\s+", "", stripped))
    _flush(current, out)
    return out


def _flush(lines: list[str], out: list[str]) -> list[str]:
    if lines:
        text = _plain(" ".join(lines))
        # prose, not a lone link, a number table or a line that introduces a list
        if len(re.findall(r"[A-Za-z]{3,}", text)) >= 4 and not text.endswith(":"):
            out.append(text)
    return []


def summary_description(body: str, title: str) -> str:
    """The first sentence(s) of the Simple Summary / Abstract (else the first prose), 20-400 chars."""
    from docir.documents.headings import find_headings, section_span

    headings = find_headings(body)
    chosen: str | None = None
    for wanted in SUMMARY_HEADINGS:
        for heading in headings:
            if _plain(heading.text).strip(" :").casefold() == wanted:
                span = section_span(body, heading.text, level=heading.level)
                if span is not None:
                    chosen = body[heading.end:span[1]]
                    break
        if chosen is not None and _paragraphs(chosen):
            break
        chosen = None
    paragraphs = _paragraphs(chosen if chosen is not None else body)
    text = paragraphs[0] if paragraphs else ""
    description = ""
    for sentence in _SENTENCE_END_RE.split(text):
        candidate = f"{description} {sentence}".strip()
        if len(candidate) > DESCRIPTION_MAX:
            break
        description = candidate
        if len(description) >= 80:
            break
    if not description and text:  # a first sentence longer than the maximum: cut at a word
        description = text[: DESCRIPTION_MAX - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    if len(description) < DESCRIPTION_MIN:
        description = f"{title}. {description}".strip()[:DESCRIPTION_MAX]
    if len(description) < DESCRIPTION_MIN:
        description = f"{title}: an Ethereum Improvement Proposal"[:DESCRIPTION_MAX]
    return description


def convert(raw: bytes, present: set[int] | frozenset[int]) -> tuple[int, bytes] | None:
    """(EIP number, the docir document's bytes), or None for a Moved stub."""
    meta, body = _split_eip(raw)
    status = str(meta.get("status", ""))
    if status in SKIPPED_STATUSES:
        return None
    if status not in STATUS_MAP:
        raise ValueError(f"EIP {meta.get('eip')}: unknown status {status!r}")
    number = int(meta["eip"])
    title = str(meta["title"]).strip()
    description = meta.get("description")
    if description is None or not str(description).strip():
        description = summary_description(body.decode("utf-8"), title)
    front: dict[str, Any] = {
        "id": eip_id(number),
        "type": "decision",
        "title": title,
        "description": " ".join(str(description).split()),
        "status": STATUS_MAP[status],
        "owner": owner_of(meta.get("author")),
    }
    related = [{"depends-on": eip_id(n)} for n in _requires(meta.get("requires")) if n in present and n != number]
    if related:
        front["related"] = related
    front["eip"] = number
    for key, value in meta.items():
        if key in ("eip", "title", "description"):
            continue
        front[RENAMED.get(key, key)] = value
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1 << 20, default_flow_style=False)
    return number, b"---\n" + head.encode("utf-8") + b"---\n" + body


# --------------------------------------------------------------------------- the store


def _number_of(path: Path) -> int | None:
    match = re.fullmatch(r"eip-(\d+)\.md", path.name)
    return int(match.group(1)) if match else None


def _write_if_changed(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def build_store(src: Path, dest: Path, numbers: Iterable[int] | None = None, *,
                schema: Path = SCHEMA_FILE) -> Path:
    """Write a docir store of the EIPs in `src` (all, or only `numbers`) to `dest`; return `dest`.

    Only files whose bytes change are written; files of EIPs no longer selected are removed.
    """
    wanted = None if numbers is None else {int(n) for n in numbers}
    sources: dict[int, bytes] = {}
    for path in sorted(src.glob("eip-*.md")):
        number = _number_of(path)
        if number is None or (wanted is not None and number not in wanted):
            continue
        raw = path.read_bytes()
        if _split_eip(raw)[0].get("status") in SKIPPED_STATUSES:
            continue
        sources[number] = raw
    if wanted is not None:
        missing = sorted(wanted - set(sources))
        if missing:
            raise ValueError(f"not in {src} (or Moved): EIP {', '.join(map(str, missing))}")
    present = frozenset(sources)
    docs = dest / DOCS_SUBDIR
    docs.mkdir(parents=True, exist_ok=True)
    _write_if_changed(dest / "docs-schema.yaml", schema.read_bytes())
    keep: set[str] = set()
    for number, raw in sorted(sources.items()):
        converted = convert(raw, present)
        assert converted is not None
        name = f"eip-{number}.md"
        keep.add(name)
        _write_if_changed(docs / name, converted[1])
    for stale in docs.glob("*.md"):
        if stale.name not in keep:
            stale.unlink()
    return dest


# --------------------------------------------------------------------------- the CI slice


def ci_judged(queries_file: Path = QUERIES_FILE) -> set[int]:
    """Every EIP judged by a `ci: true` query of eips_queries.yaml."""
    data = yaml.safe_load(queries_file.read_text(encoding="utf-8"))
    return {int(n) for row in data["queries"] if row.get("ci") for n in row["relevant"]}


def slice_numbers(queries_file: Path = QUERIES_FILE) -> list[int]:
    return sorted(ci_judged(queries_file) | set(SLICE_DISTRACTORS))


SLICE_README = """\
# The EIP slice of the quality benchmark

A docir store of {count} Ethereum Improvement Proposals from ethereum/EIPs (CC0), converted by
`benchmarks/quality/eips.py`: every EIP judged by a `ci: true` query of `eips_queries.yaml`,
plus hard distractors on the same topics (`SLICE_DISTRACTORS` in eips.py). Do not edit the
documents by hand; regenerate the folder with

    python -m benchmarks.quality.eips --slice [--src ../shared/benchdata/eips]
"""


def build_slice(src: Path, dest: Path = SLICE_DIR, queries_file: Path = QUERIES_FILE) -> Path:
    numbers = slice_numbers(queries_file)
    build_store(src, dest, numbers)
    count = len(list((dest / DOCS_SUBDIR).glob("*.md")))
    _write_if_changed(dest / "README.md", SLICE_README.format(count=count).encode("utf-8"))
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC, help="folder of eip-N.md files")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", type=Path, help="build a store of every EIP here")
    group.add_argument("--slice", action="store_true", help=f"regenerate {SLICE_DIR.relative_to(REPO)}")
    parser.add_argument("--numbers", help="with --out: only these EIPs (comma-separated)")
    args = parser.parse_args(argv)
    if not args.src.is_dir():
        parser.error(f"{args.src} is not a folder")
    if args.slice:
        dest = build_slice(args.src)
    else:
        numbers = [int(n) for n in args.numbers.split(",")] if args.numbers else None
        dest = build_store(args.src, args.out, numbers)
    count = len(list((dest / DOCS_SUBDIR).glob("*.md")))
    print(f"{dest}: {count} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
