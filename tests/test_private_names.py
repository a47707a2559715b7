"""A name that starts with one underscore belongs to its module: no other module of engine/ or
adapters/ imports it (`from engine.cli.main import _report_change`), reaches it through the
module (`main._report_change`), or imports a private module (`engine.x._y`). What two modules
share gets a public name in the module that owns it.

Every import counts, at the top of a module or inside a function.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "adapters")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def _is_module(dotted: str, root: Path) -> bool:
    path = root.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _absolute(module: str | None, level: int, package: str) -> str:
    if level == 0:
        return module or ""
    base = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join(base + ([module] if module else []))


def private_uses(source: str, module_name: str, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, what) for each private name of another module of ours that `source` (the module
    `module_name`) imports or reaches through a module it imported."""
    package = module_name.rpartition(".")[0] if not module_name.endswith("__init__") \
        else module_name.removesuffix(".__init__")
    found: list[tuple[int, str]] = []
    modules: set[str] = set()  # local names bound to one of our modules
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _ours(alias.name):
                    continue
                if any(_private(part) for part in alias.name.split(".")):
                    found.append((node.lineno, f"import {alias.name}"))
                modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            source_module = _absolute(node.module, node.level, package)
            if not _ours(source_module):
                continue
            if any(_private(part) for part in source_module.split(".")):
                found.append((node.lineno, f"from {source_module} import ..."))
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {source_module} import {alias.name}"))
                elif _is_module(f"{source_module}.{alias.name}", root):
                    modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            while isinstance(owner, ast.Attribute):  # engine.cli.main._x
                owner = owner.value
            if isinstance(owner, ast.Name) and owner.id in modules:
                found.append((node.lineno, f"{ast.unparse(node)}"))
    return sorted(found)


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_no_module_uses_another_modules_private_names():
    files = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert len(files) > 100  # the walk found the code, not an empty folder
    offenders = [f"{path.relative_to(ROOT)}:{line}: {what}"
                 for path in files
                 for line, what in private_uses(path.read_text(encoding="utf-8"),
                                                _module_name(path))]
    assert not offenders, ("a private name is its module's own; give what modules share a "
                           "public name:\n" + "\n".join(offenders))


def test_the_check_sees_every_way_to_reach_a_private_name():
    source = (
        "from engine.cli.main import _report_change, COMMANDS\n"
        "from engine.cli import network\n"
        "import engine.cli.command as command\n"
        "import engine.cli.main\n"
        "from . import arguments\n"
        "from engine.stages.item_reader import flat_text as _text\n"
        "import argparse\n"
        "def f(p):\n"
        "    from engine.cli.keeping import _counts\n"
        "    network._justifications(p)\n"
        "    command._private_helper()\n"
        "    engine.cli.main._report_change(p)\n"
        "    arguments._positive(1)\n"
        "    argparse._ArgumentGroup\n"
        "    p._actions\n"
    )
    assert [what for _, what in private_uses(source, "engine.cli.reading")] == [
        "from engine.cli.main import _report_change",
        "from engine.cli.keeping import _counts",
        "network._justifications",
        "command._private_helper",
        "engine.cli.main._report_change",
        "arguments._positive",
    ]


def test_the_check_sees_a_private_module():
    source = "import engine._hidden\nfrom adapters._inner import thing\n"
    assert [what for _, what in private_uses(source, "engine.x")] == [
        "import engine._hidden", "from adapters._inner import ..."]
