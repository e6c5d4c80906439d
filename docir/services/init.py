"""`docir init`: make a folder a store, without touching anything already there."""

from __future__ import annotations

from pathlib import Path

from docir.documents.files import atomic_write
from docir.schema import default_schema_text
from docir.store import DOCS_DIR, SCHEMA_FILE, STATE_DIR, STATE_GITIGNORE

STORES_TEMPLATE = "# Peer stores whose documents docir reads (never writes), one home folder per line.\nstores: []\n"


def init_store(root: Path) -> list[str]:
    """Create what is missing (docs/, the schema, .docir/ and its .gitignore); return what was created."""
    created: list[str] = []
    root.mkdir(parents=True, exist_ok=True)
    docs = root / DOCS_DIR
    if not docs.is_dir():
        docs.mkdir()
        created.append(f"{DOCS_DIR}/")
    schema = root / SCHEMA_FILE
    if not schema.exists():
        atomic_write(schema, default_schema_text())
        created.append(SCHEMA_FILE)
    state = root / STATE_DIR
    if not state.is_dir():
        state.mkdir()
        created.append(f"{STATE_DIR}/")
    for name, text in ((".gitignore", STATE_GITIGNORE), ("stores.yaml", STORES_TEMPLATE)):
        target = state / name
        if not target.exists():
            atomic_write(target, text)
            created.append(f"{STATE_DIR}/{name}")
    return created
