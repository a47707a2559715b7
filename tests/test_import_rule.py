"""The rule of the rooms: `engine/` imports no `adapters/` module, except the faces and the
composition root (`engine/mcp/`, `engine/resident/`, `engine/desk/`, `engine/wiring/`, which
wire adapters in; the command line, `engine/cli/`, only parses, calls the service and renders,
so it imports none) and the service layer (`engine/service/`), which may load the file formats
and file readers it reads and writes, but never picks a store, a chat model or an embedder:
those come in its Context.

Every import counts, at the top of a module or inside a function (a lazy import is still a
dependency), and so does `importlib.import_module("adapters...")` with a literal name.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
ENTRY_POINTS = ENGINE / "cli"
FACES = [ENGINE / room for room in ("mcp", "resident", "wiring", "desk")]
SERVICE = ENGINE / "service"
# what the service layer may load itself: formats and readers of files, nothing that talks
# to a server or runs a model
SERVICE_ADAPTERS = ("adapters.formats", "adapters.network_stream", "adapters.ftl_registry",
                    "adapters.markdown_registry", "adapters.sources", "adapters.query_pack",
                    "adapters.viz", "adapters.wiki_site", "adapters.clustering",
                    "adapters.vector_cache", "adapters.cypher_files", "adapters.neo4j_browser")


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


def engine_modules_below_the_faces() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py")
                  if not any(face in p.parents for face in FACES) and SERVICE not in p.parents)


def test_no_engine_module_below_the_faces_imports_an_adapter():
    modules = engine_modules_below_the_faces()
    assert len(modules) > 20  # the walk found the engine, not an empty folder
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {module}"
                 for path in modules
                 for line, module in adapter_imports(path.read_text(encoding="utf-8"),
                                                     str(path))]
    assert not offenders, ("engine/ below the faces must not import adapters/; inject "
                           "what it needs from the face instead:\n" + "\n".join(offenders))


def test_the_service_loads_only_file_formats_and_readers():
    modules = sorted(SERVICE.rglob("*.py"))
    assert modules
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {module}"
                 for path in modules
                 for line, module in adapter_imports(path.read_text(encoding="utf-8"),
                                                     str(path))
                 if not module.startswith(SERVICE_ADAPTERS)]
    assert not offenders, ("the service layer gets its store, model and embedder in the "
                           "Context:\n" + "\n".join(offenders))


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


@pytest.mark.parametrize("face", FACES, ids=lambda p: p.name)
def test_each_face_is_where_adapters_come_in(face):
    wired = [p for p in face.rglob("*.py")
             if adapter_imports(p.read_text(encoding="utf-8"), str(p))]
    assert wired  # the rule's exception is used, so its folder name is still right


# --- the stage CLIs share one skeleton, not each other ----------------------------------
SHARED_CLI = {"engine.cli.stage_cli", "engine.cli.stage_flags", "engine.cli.arguments",
              "engine.cli.command", "engine.cli.main", "engine.cli.sources",
              "engine.cli.meaning"}
STAGE_CLIS = ["ask", "contradictions", "dedup", "derive", "forge", "negatives", "pipeline",
              "repair", "review"]


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
                       "from engine.cli.stage_cli import StageCall\n") == {
        "engine.cli.forge", "engine.cli.derive", "engine.cli.stage_cli"}


def test_no_stage_cli_imports_another_cli_module():
    offenders = {}
    for name in STAGE_CLIS:
        source = (ENTRY_POINTS / f"{name}.py").read_text(encoding="utf-8")
        other = cli_imports(source) - SHARED_CLI
        if other:
            offenders[name] = sorted(other)
    assert not offenders, f"stage CLIs importing other CLI modules: {offenders}"


# --- a stage is only what is its own ------------------------------------------------------
# Each LLM stage's package; what two of them share lives in engine/stages/ or engine/pairs/.
STAGE_PACKAGES = ["ask", "contradictions", "dedup", "derive", "forge", "negatives", "repair",
                  "review", "review_premises"]


def stage_imports(package: str) -> dict[str, set[str]]:
    """Each module of engine/<package>/ -> the other stage packages it imports."""
    found = {}
    for path in sorted((ENGINE / package).rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        modules = imported_modules(path.read_text(encoding="utf-8"), name.rpartition(".")[0])
        others = {m.split(".")[1] for m in modules
                  if m.startswith("engine.") and m.count(".") >= 1
                  and m.split(".")[1] in STAGE_PACKAGES and m.split(".")[1] != package}
        if others:
            found[name] = others
    return found


@pytest.mark.parametrize("package", STAGE_PACKAGES)
def test_no_stage_package_imports_another(package):
    assert (ENGINE / package / "__init__.py").is_file()
    assert stage_imports(package) == {}


def test_no_library_code_reads_options_off_a_namespace():
    """Options travel as typed records: nothing in engine/ digs them out of an argparse
    Namespace by name."""
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted(ENGINE.rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "getattr(args" in line]
    assert found == []


# --- the kernel is the ground floor -----------------------------------------------------
KERNEL = ENGINE / "tms"
# What engine/tms/ may stand on, all it imports followed through (a package's __init__
# runs when a module in it is imported, so it counts too). Network, a whole memory as
# import and export move it, carries supersede's and sources' records: those two leaf
# modules (data and protocols over the model) are the one exception in rooms above.
FLOOR = {"engine", "engine.model", "engine.errors", "engine.clock", "engine.bulk",
         "engine.change_records", "engine.memory", "engine.memory.records", "engine.sources",
         "engine.sources.records"}


def imported_modules(source: str, package: str) -> set[str]:
    """Every module `source` (a module of `package`) imports, at the top or in a function:
    `from a.b import c` names a.b, and a.b.c too (c may be a module); relative imports
    resolved."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return found


def module_file(name: str) -> Path | None:
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def kernel_closure() -> dict[str, str]:
    """Every module engine/tms/ reaches through imports -> the module that imports it first
    (engine modules followed; `from a import name` of a name that is no module dropped)."""
    start = [f"engine.tms.{p.stem}" if p.stem != "__init__" else "engine.tms"
             for p in sorted(KERNEL.glob("*.py"))]
    reached = dict.fromkeys(start, "")
    work = list(start)
    while work:
        name = work.pop()
        path = module_file(name)
        if path is None:
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for other in imported_modules(path.read_text(encoding="utf-8"), package):
            parents = [".".join(other.split(".")[:n]) for n in range(1, other.count(".") + 2)]
            for module in parents:
                top = module.split(".")[0]
                if module in reached or (top == "engine" and module_file(module) is None):
                    continue
                reached[module] = name
                if top == "engine":
                    work.append(module)
    return reached


def test_the_kernel_stands_on_nothing_above_it():
    reached = kernel_closure()
    assert "engine.tms.nogoods" in reached and "engine.model" in reached  # the walk worked
    above = sorted(f"{module} (imported by {by})" for module, by in reached.items()
                   if module.split(".")[0] == "engine" and module not in FLOOR
                   and not module.startswith("engine.tms"))
    assert not above, ("engine/tms/ is the ground floor: it imports no stage, no agents, "
                       "no reading room, no memory or sources verbs, no CLI:\n"
                       + "\n".join(above))
    outside = sorted(f"{module} (imported by {by})" for module, by in reached.items()
                     if module.split(".")[0] not in ("engine", "__future__")
                     and module.split(".")[0] not in sys.stdlib_module_names)
    assert not outside, ("engine/tms/ imports no adapter, driver or other package:\n"
                         + "\n".join(outside))


def test_the_kernel_check_follows_every_form_of_import():
    source = ("import engine.model\n"
              "from engine.tms import nogoods as n\n"
              "from .values import IN\n"
              "def later():\n"
              "    from engine.agents.namespace import switch_id\n")
    assert imported_modules(source, "engine.tms") == {
        "engine.model", "engine.tms", "engine.tms.nogoods", "engine.tms.values",
        "engine.tms.values.IN", "engine.agents.namespace", "engine.agents.namespace.switch_id"}
