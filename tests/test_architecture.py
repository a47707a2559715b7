"""ARCHITECTURE.md is a map: at most 200 lines, and every path it names (and every path the
design pages under docs/design/ name) exists."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "ARCHITECTURE.md"
PAGES = [MAP, *sorted((ROOT / "docs" / "design").glob("*.md"))]
TOP = ("engine", "adapters", "cypher", "tests", "scripts", "docs", "docker")
# a path as the pages write it: a top folder, then path parts; `<name>` stands for any part
PATH = re.compile(rf"\b(?:{'|'.join(TOP)})/[\w<>./*-]*[\w>/]")


def named_paths(text: str) -> set[str]:
    return {m.group(0).rstrip(".") for m in PATH.finditer(text)}


def exists(path: str) -> bool:
    """The file or folder is there; a pattern (`<name>`, `*`) matches one; a module's name
    (`engine/tms/propagate.propagate`, a path and a name in it) names a module that is."""
    if "<" in path or "*" in path:
        return any(ROOT.glob(re.sub(r"<[^>]+>", "*", path)))
    if (ROOT / path).exists():
        return True
    module, dot, name = path.rpartition(".")
    return bool(dot) and name.isidentifier() and (ROOT / f"{module}.py").is_file()


def test_the_map_is_at_most_200_lines():
    assert len(MAP.read_text(encoding="utf-8").splitlines()) <= 200


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_path_a_page_names_exists(page):
    named = named_paths(page.read_text(encoding="utf-8"))
    assert named  # the pattern still finds paths
    missing = sorted(p for p in named if not exists(p))
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_check_sees_paths_and_patterns():
    text = "see engine/tms/semantics.py, engine/<stage>/ and docs/nothing.md."
    assert named_paths(text) == {"engine/tms/semantics.py", "engine/<stage>/",
                                 "docs/nothing.md"}
    assert exists("engine/tms/semantics.py") and exists("engine/<stage>/__main__.py")
    assert exists("engine/tms/propagate.label_region")
    assert not exists("docs/nothing.md") and not exists("engine/tms/nothing.label_region")
