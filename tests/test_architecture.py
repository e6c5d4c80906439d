"""The layer rules, checked by walking every import in docir/ (docs: arch-ca04975ff55d)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "docir"

# layer -> layers it must never import
FORBIDDEN = {
    "documents": {"index", "services", "cli", "embed", "worker"},
    "index": {"documents", "services", "cli", "embed", "worker"},
    "embed": {"documents", "index", "services", "cli"},
    "services": {"cli", "worker"},  # the command line or the worker hands a session what it needs (its Caller)
    "worker": {"cli"},
    "org": {"cli", "services", "worker"},  # the organisation store is an adapter below the services
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
    "adoption": {"indexing", "lint"},
    "publishing": {"indexing", "vectors"},
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


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def every_import(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement: at module level, inside functions, classes, try blocks, and under
    `if TYPE_CHECKING:`. A type named from a module is a dependency on it for the reader as much as a
    running import is, so a cycle through one is a cycle. Not seen: a module imported by a name
    computed at run time (cli/app.py's lazy commands)."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def targets(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool, modules: set[str]) -> set[str]:
    """The docir modules an import statement runs: every package on the dotted path (Python runs
    each `__init__` on the way) and, for `from x import y`, the submodule x.y when y is one."""
    if isinstance(node, ast.Import):
        named = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:  # relative: counted from the importer's package
            package = importer.split(".") if is_package else importer.split(".")[:-1]
            anchor = package[: len(package) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        named = [base, *(f"{base}.{alias.name}" for alias in node.names)]
    found: set[str] = set()
    for name in named:
        parts = name.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return found & modules


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(paths)
    graph = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        graph[name] = {target for node in every_import(tree)
                       for target in targets(node, name, is_package, modules)} - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan's algorithm), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(_a_cycle_in(group, graph) for group in groups)


def _a_cycle_in(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """The shortest way from the group's first module back to itself, inside the group."""
    start = min(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle in {sorted(group)}")


def test_no_module_imports_itself_through_others() -> None:
    found = [" -> ".join(cycle) for cycle in cycles(import_graph())]
    assert found == [], "import cycles (function-level and type-only imports count too):\n" + "\n".join(found)


def test_the_cycle_check_sees_every_import_form() -> None:
    source = (
        "import docir.a.b\n"
        "from docir import c\n"
        "from docir.d import e as f\n"
        "from . import g\n"
        "def later():\n"
        "    from docir.h import i\n"
        "if TYPE_CHECKING:\n"
        "    from docir.j import k\n"
    )
    modules = {"docir", "docir.a", "docir.a.b", "docir.c", "docir.d", "docir.d.e", "docir.g", "docir.h",
               "docir.j", "docir.j.k"}
    found = set()
    for node in every_import(ast.parse(source)):
        found |= targets(node, "docir.x", False, modules)
    assert found == {"docir", "docir.a", "docir.a.b", "docir.c", "docir.d", "docir.d.e", "docir.g", "docir.h",
                     "docir.j", "docir.j.k"}
    graph = {"docir.a": {"docir.b"}, "docir.b": {"docir.c"}, "docir.c": {"docir.a"}, "docir.d": {"docir.a"}}
    assert cycles(graph) == [["docir.a", "docir.b", "docir.c", "docir.a"]]


# Where a process's own state may be read: the command line (and python -m docir), the Invocation's
# `here()` (this process's, for a command run in it), and the warm client, which is the calling
# process's entry point. Everything below is handed what it needs (adr-3c5e7a90b1d4).
EDGE = ("cli/", "__main__.py", "invocation.py", "worker/client.py")
PROCESS_STATE = {
    "os": {"environ", "environb", "getenv", "putenv", "unsetenv", "getcwd", "getcwdb", "chdir"},
    "sys": {"stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__", "argv"},
    "Path": {"cwd", "home"},
}
READS_PROCESS_STATE = {"print", "input", "expanduser"}  # the process's stdout and stdin; its HOME


def process_state_reads(tree: ast.AST) -> list[str]:
    """Each read of the process's environment, folder or standard streams in a module's source."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.attr in PROCESS_STATE.get(node.value.id, ()):
            found.append(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Attribute) and node.attr == "expanduser":
            found.append(".expanduser")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in READS_PROCESS_STATE:
            found.append(f"{node.func.id}()")
        elif isinstance(node, ast.ImportFrom) and node.module in PROCESS_STATE:
            found.extend(f"{node.module}.{a.name}" for a in node.names if a.name in PROCESS_STATE[node.module])
    return found


def test_nothing_below_the_command_line_reads_the_process_environment_folder_or_streams() -> None:
    """In the warm worker these are the worker's, not the client's; a command is handed its caller's as an
    Invocation, and what they decide goes down as a Caller (settings, the worker link, cancellation)."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(EDGE):
            continue
        wrong.extend(f"{rel}: {read}" for read in process_state_reads(ast.parse(path.read_text(encoding="utf-8"))))
    assert wrong == []


def test_the_process_state_check_sees_every_form() -> None:
    source = (
        "import os, sys\n"
        "from os import environ\n"
        "from pathlib import Path\n"
        "a = os.environ.get('X')\n"
        "b = os.getcwd()\n"
        "sys.stdout.write('x')\n"
        "c = Path.cwd()\n"
        "d = Path('~').expanduser()\n"
        "print('x')\n"
        "e = os.path.join('a', 'b')\n"
        "f = call.stdout\n"
    )
    assert sorted(process_state_reads(ast.parse(source))) == sorted(
        ["os.environ", "os.environ", "os.getcwd", "sys.stdout", "Path.cwd", ".expanduser", "print()"])


LAYER_DOCUMENT = PACKAGE.parent / "docs" / "architecture" / "layers-and-import-boundaries.md"


def rules_text() -> str:
    """The rules of this module's tables, as the layer document states them."""
    lines = [f"layer {layer} never imports: {', '.join(sorted(never))}" for layer, never in FORBIDDEN.items()]
    lines += [f"services/{name} may import: {', '.join(sorted(allowed)) or '(none)'}"
              for name, allowed in SERVICES_MAY_IMPORT.items()]
    lines.append(f"process state is read only in: {', '.join(EDGE)}")
    return "```text\n" + "\n".join(lines) + "\n```"


def test_the_layer_document_states_the_rules_the_test_holds() -> None:
    """docs/architecture/layers-and-import-boundaries.md holds these rules word for word: change one, change both."""
    assert rules_text() in LAYER_DOCUMENT.read_text(encoding="utf-8"), rules_text()
