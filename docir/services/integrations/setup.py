"""`docir init`: make a folder a store, without touching anything already there."""

from __future__ import annotations

from pathlib import Path

from docir.documents.files import atomic_write
from docir.schema import default_schema_text
from docir.services.integrations import agents
from docir.store import DOCS_DIR, SCHEMA_FILE, STATE_DIR, ensure_state_dir

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
    return created
