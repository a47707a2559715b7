"""No module of engine/ or adapters/ reaches itself through its imports, at the top of a file
or inside a function: a circle of modules can only be changed together, and the order they
load in decides whether a name exists yet."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Each module, and the modules of this project it imports (a name imported from a
    package counts as its module when there is one)."""
    paths = [*ROOT.joinpath("engine").rglob("*.py"), *ROOT.joinpath("adapters").rglob("*.py")]
    known = {module_of(p) for p in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known
                             else node.module for a in node.names)
        graph[module_of(path)] = {n for n in names if n in known} - {module_of(path)}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of more than one module that reach each other (the kernel's strongly
    connected components)."""
    from engine.tms.graphs import strongly_connected

    successors = {module: sorted(names) for module, names in graph.items()}
    return [group for group in strongly_connected(sorted(graph), successors) if len(group) > 1]


def test_no_module_imports_itself_through_others():
    assert circles(imports()) == []


def test_a_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
