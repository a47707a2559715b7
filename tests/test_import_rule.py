"""The rule of the rooms: `engine/` imports no `adapters/` module, except from the entry-point
room `engine/cli/` (the composition roots, which wire adapters in).

Every import counts, at the top of a module or inside a function (a lazy import is still a
dependency), and so does `importlib.import_module("adapters...")` with a literal name.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
ENTRY_POINTS = ENGINE / "cli"


def adapter_imports(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, module) of every import of `adapters` or a module under it in `source`."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _is_adapter(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and _is_adapter(node.module):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and _names_import_function(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) \
                    and _is_adapter(first.value):
                found.append((node.lineno, first.value))
    return sorted(found)


def _is_adapter(module: str) -> bool:
    return module == "adapters" or module.startswith("adapters.")


def _names_import_function(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in ("import_module", "__import__")


def engine_modules_outside_the_entry_points() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if ENTRY_POINTS not in p.parents)


def test_no_engine_module_outside_the_entry_points_imports_an_adapter():
    modules = engine_modules_outside_the_entry_points()
    assert len(modules) > 20  # the walk found the engine, not an empty folder
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {module}"
                 for path in modules
                 for line, module in adapter_imports(path.read_text(encoding="utf-8"),
                                                     str(path))]
    assert not offenders, ("engine/ outside engine/cli/ must not import adapters/; inject "
                           "what it needs from the entry point instead:\n"
                           + "\n".join(offenders))


def test_the_check_sees_every_form_of_import():
    source = (
        "import json\n"
        "import adapters\n"
        "import adapters.formats as formats\n"
        "from adapters.neo4j.store import Neo4jStore\n"
        "from engine.adapters_like import x\n"
        "from . import adapters_too\n"
        "def later():\n"
        "    from adapters import clustering\n"
        "    import importlib\n"
        "    return importlib.import_module('adapters.viz')\n"
    )
    assert adapter_imports(source) == [
        (2, "adapters"), (3, "adapters.formats"), (4, "adapters.neo4j.store"),
        (8, "adapters"), (10, "adapters.viz"),
    ]


def test_the_entry_point_room_is_where_adapters_come_in():
    wired = [p for p in ENTRY_POINTS.rglob("*.py")
             if adapter_imports(p.read_text(encoding="utf-8"), str(p))]
    assert wired  # the rule's exception is used, so its folder name is still right


# --- the stage CLIs share one skeleton, not each other ----------------------------------
SHARED_CLI = {"engine.cli.stage_cli", "engine.cli.stage_parts", "engine.cli.support",
              "engine.cli.visible_to"}
STAGE_CLIS = ["ask", "contradictions", "dedup", "derive", "forge", "pipeline", "repair",
              "review"]


def cli_imports(source: str) -> set[str]:
    """Every engine.cli module `source` imports (`from engine.cli import x` names x)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("engine.cli.")}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "engine.cli":
                found |= {f"engine.cli.{a.name}" for a in node.names}
            elif node.module.startswith("engine.cli."):
                found.add(node.module)
    return found


def test_cli_imports_sees_both_forms():
    assert cli_imports("from engine.cli import forge as f\nimport engine.cli.derive\n"
                       "from engine.cli.stage_cli import Wiring\n") == {
        "engine.cli.forge", "engine.cli.derive", "engine.cli.stage_cli"}


def test_no_stage_cli_imports_another_cli_module():
    offenders = {}
    for name in STAGE_CLIS:
        source = (ENTRY_POINTS / f"{name}.py").read_text(encoding="utf-8")
        other = cli_imports(source) - SHARED_CLI
        if other:
            offenders[name] = sorted(other)
    assert not offenders, f"stage CLIs importing other CLI modules: {offenders}"
