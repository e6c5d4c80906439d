"""The layer rules, checked by walking every import in docir/ (docs: arch-ca04975ff55d)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "docir"

# layer -> layers it must never import
FORBIDDEN = {
    "documents": {"index", "services", "cli", "embed", "worker"},
    "index": {"documents", "services", "cli", "embed", "worker"},
    "embed": {"documents", "index", "services", "cli"},
    "services": {"cli"},
    "worker": {"cli"},
    "org": {"cli", "worker"},
}


# Inside services/: subpackage -> the other subpackages it may import. indexing is the base
# every command stands on; nothing below reaches up to the commands built on it.
SERVICES_MAY_IMPORT = {
    "indexing": set(),
    "vectors": {"indexing"},
    "retrieval": {"indexing", "vectors"},
    "writing": {"indexing", "vectors"},
    "lint": {"indexing", "retrieval", "vectors"},
    "integrations": {"indexing", "retrieval", "writing", "lint", "vectors"},
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "docir" else None


def test_no_import_crosses_a_layer_the_wrong_way() -> None:
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        layer = rel.parts[0] if len(rel.parts) > 1 else None
        if layer not in FORBIDDEN:
            continue
        for module in imports_of(path):
            target = layer_of(module)
            if target in FORBIDDEN[layer]:
                wrong.append(f"{rel} imports {module}")
    assert wrong == []


def test_nothing_outside_cli_imports_cli() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in ("cli", "__main__.py")
        for module in imports_of(path)
        if layer_of(module) == "cli"
    ]
    assert wrong == []


def test_no_sql_outside_the_index_layer() -> None:
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in ("index", "org"):  # org holds the PostgreSQL statements as index holds SQLite's
            continue
        text = path.read_text(encoding="utf-8")
        for keyword in ("SELECT ", "INSERT INTO", "DELETE FROM", "CREATE TABLE", "UPDATE documents"):
            if keyword in text:
                wrong.append(f"{rel}: {keyword.strip()}")
    assert wrong == []


def test_services_are_subpackages_that_import_only_downward() -> None:
    services = PACKAGE / "services"
    loose = sorted(p.name for p in services.glob("*.py") if p.name != "__init__.py")
    assert loose == [], f"every service belongs to a subpackage: {loose}"
    assert {p.name for p in services.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(SERVICES_MAY_IMPORT)
    wrong = []
    for path in services.rglob("*.py"):
        mine = path.relative_to(services).parts[0]
        for module in imports_of(path):
            parts = module.split(".")
            if parts[:2] == ["docir", "services"] and len(parts) > 2 and parts[2] != mine:
                if parts[2] not in SERVICES_MAY_IMPORT[mine]:
                    wrong.append(f"services/{path.relative_to(services)} imports {module}")
    assert wrong == []


def test_every_subpackage_says_what_it_owns() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        if init.parent == PACKAGE:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        first = doc.splitlines()[0] if doc else ""
        assert first.endswith(".") and len(first) <= 140, f"{init.relative_to(PACKAGE)}: one line saying what it owns"
