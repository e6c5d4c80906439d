"""`docir init`: make a folder a store, without touching anything already there."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from docir.documents.files import atomic_write
from docir.documents.ownership import PREFIX, Ownership, record_folder
from docir.documents.records import folders
from docir.documents.records.folders import Found
from docir.documents.records.names import RecordFolder
from docir.errors import DocirError
from docir.schema import default_schema_text, load_schema, parse_schema
from docir.services.integrations import agents
from docir.store import ARCHIVE_DIR, DOCS_DIR, SCHEMA_FILE, STATE_DIR, ensure_state_dir

STORES_TEMPLATE = "# Peer stores whose documents docir reads (never writes), one home folder per line.\nstores: []\n"


class InitReport(NamedTuple):
    created: list[str]  # what was made, store-relative
    excluded: list[str]  # the globs written into the new schema's exclude list (relative to docs/)
    excluded_files: list[str]  # the files they name (store-relative)
    plain: list[str]  # in a store set up before: Markdown without docir frontmatter its exclude list leaves in
    records: list[Found]  # the folders of records the new schema reads in place (adr-0c5e2d8f1a47)


def init_store(root: Path) -> InitReport:
    """Create what is missing (docs/, the schema, .docir/ and its .gitignore) and say what was created.

    A new schema lists under `records:` the folders of decision records the repository keeps (adr-tools',
    log4brains', MADR's), read where they lie in their format and never rewritten (adr-0c5e2d8f1a47); and
    under `exclude:` the other Markdown already in docs/ that docir did not write, so that no command
    indexes it and no lint blocks a commit for it (adr-547a50927c6b). A schema that
    exists is never rewritten: its exclude list may have been edited by hand; the plain Markdown it
    leaves in is only reported.
    """
    created: list[str] = []
    root.mkdir(parents=True, exist_ok=True)
    docs = root / DOCS_DIR
    if not docs.is_dir():
        docs.mkdir()
        created.append(f"{DOCS_DIR}/")
    schema = root / SCHEMA_FILE
    excluded: list[str] = []
    excluded_files: list[str] = []
    plain: list[str] = []
    records: list[Found] = []
    if not schema.exists():
        text = default_schema_text()
        records = folders.find(root)
        if records:
            from docir.schema_edit import with_record_folders

            text = with_record_folders(text, [RecordFolder(r.path, "decision", r.format) for r in records])
        parsed, _problems = parse_schema(text)
        # A folder of records' records are read in place, and its README or template is no document
        # (documents/ownership.py): neither is left out by name.
        markdown, foreign = plain_markdown(root, Ownership.of(parsed) if parsed is not None else Ownership())
        if parsed is not None:
            foreign = {path for path in foreign if record_folder(parsed.records, path) is None}
        if foreign and parsed is not None:
            from docir.schema_edit import edited

            reserved = {spec.folder.strip("/") for spec in parsed.types.values()} | {ARCHIVE_DIR}
            excluded = exclude_globs(markdown, foreign, reserved)
            excluded_files = sorted(foreign)
            text = edited(text, (), excluded)
        atomic_write(schema, text)
        created.append(SCHEMA_FILE)
    else:
        try:
            plain = sorted(plain_markdown(root, Ownership.of(load_schema(schema)))[1])
        except DocirError:  # a broken schema is lint's to report; init says what it made
            pass
    state = root / STATE_DIR
    if not state.is_dir():
        created.append(f"{STATE_DIR}/")
    if not (state / ".gitignore").exists():
        created.append(f"{STATE_DIR}/.gitignore")
    ensure_state_dir(root)
    stores = state / "stores.yaml"
    if not stores.exists():
        atomic_write(stores, STORES_TEMPLATE)
        created.append(f"{STATE_DIR}/stores.yaml")
    if agents.write_block(root / "AGENTS.md") != "unchanged":
        created.append("AGENTS.md")
    return InitReport(created, excluded, excluded_files, plain, records)


def plain_markdown(root: Path, owned: Ownership) -> tuple[list[str], set[str]]:
    """Every Markdown file under docs/ that `owned` leaves in (store-relative), and those of them docir
    did not write: no frontmatter, or frontmatter without docir's `id` and `type`."""
    from docir.documents.files import read_text
    from docir.documents.frontmatter import FrontmatterError, field_lines
    from docir.documents.scan import scan_docs
    from docir.errors import InputError

    markdown = sorted(path for path, (size, _) in scan_docs(root, root / DOCS_DIR, owned=owned).items() if size >= 0)
    foreign: set[str] = set()
    for path in markdown:
        try:
            # The keys as written, not the YAML's value: a document of docir's whose frontmatter is
            # broken (a merge left half of it) is still docir's, for lint to report.
            keys = field_lines(read_text(root / path)[0])
        except (FrontmatterError, InputError, OSError):
            keys = {}
        if not {"id", "type"} <= set(keys):
            foreign.add(path)
    return markdown, foreign


def exclude_globs(markdown: list[str], foreign: set[str], reserved: set[str]) -> list[str]:
    """The fewest globs (relative to docs/) naming the `foreign` files of `markdown` (store-relative) and
    no other: a folder holding nothing but foreign Markdown as `folder/**`, any other file by its path.

    A folder docir writes into (`reserved`: the types' folders and archive/) or one above such a folder
    is never named whole: a document added there later would be left out with it.
    """
    inside = [path[len(PREFIX):] for path in markdown]
    mixed: set[str] = set()  # folders holding a document of docir's, at any depth
    for path in inside:
        if PREFIX + path not in foreign:
            parts = path.split("/")[:-1]
            mixed.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    for folder in reserved:
        parts = folder.split("/")
        mixed.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    globs: list[str] = []
    for path in inside:
        if PREFIX + path not in foreign:
            continue
        parts = path.split("/")
        folders = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
        whole = next((folder for folder in folders if folder not in mixed), None)
        glob = f"{whole}/**" if whole is not None else (path if "/" in path else f"/{path}")
        if glob not in globs:
            globs.append(glob)
    return sorted(globs)
