"""The layer rules, checked by walking every import in docir/ (STYLE.md)."""

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
        if rel.parts[0] == "index":
            continue
        text = path.read_text(encoding="utf-8")
        for keyword in ("SELECT ", "INSERT INTO", "DELETE FROM", "CREATE TABLE", "UPDATE documents"):
            if keyword in text:
                wrong.append(f"{rel}: {keyword.strip()}")
    assert wrong == []
