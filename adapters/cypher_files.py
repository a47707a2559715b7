"""Loads the named Cypher queries in `cypher/` (package data, via importlib.resources).

A file holds one or more queries, each headed by
    // name: some_query
    // <one line saying what it returns>
    // defines: belief $ids            (a query that writes: what definitions it changes)
and running to the next `// name:` header. Names are global across files. The loader refuses
duplicate names, a query without its description line, an empty query, and a leftover
Python-style `{placeholder}`, so every value reaches Cypher as a $parameter.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.errors import StoreError

_HEADER = re.compile(r"^//\s*name:\s*([a-z][a-z0-9_]*)\s*$")
_DEFINES = re.compile(r"^//\s*defines:\s*(.*?)\s*$")
_PLACEHOLDER = re.compile(r"\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}")


class CypherFileError(StoreError):
    """A query file in cypher/ is malformed, or a query is asked for by a name no file has:
    the installed package is broken, which no input of the user's can mend."""

    exit_code = 1


@dataclass(frozen=True)
class NamedQuery:
    name: str
    description: str
    text: str
    path: str  # e.g. "tms/propagate.cypher"
    # What the query changes of the network's definitions, for the change log's
    # before-images (adapters/neo4j/before_images.py reads it): the text after
    # `// defines:`, None when the query has no such line.
    defines: str | None = None


def parse_cypher_file(path: str, content: str) -> list[NamedQuery]:
    queries: list[NamedQuery] = []
    name: str | None = None
    lines: list[str] = []
    description = ""

    def flush() -> None:
        if name is None:
            if any(line.strip() and not line.strip().startswith("//") for line in lines):
                raise CypherFileError(f"{path}: Cypher before the first '// name:' header")
            return
        body = "\n".join(lines).strip()
        if not description:
            raise CypherFileError(f"{path}: query '{name}' lacks its '// ...' description line")
        if not any(line.strip() and not line.strip().startswith("//") for line in lines):
            raise CypherFileError(f"{path}: query '{name}' is empty")
        placeholder = _PLACEHOLDER.search(body)
        if placeholder:
            raise CypherFileError(
                f"{path}: query '{name}' has a placeholder {placeholder.group(0)};"
                " pass values as $parameters"
            )
        defines = [m.group(1) for m in map(_DEFINES.match, (x.strip() for x in lines)) if m]
        if len(defines) > 1:
            raise CypherFileError(f"{path}: query '{name}' has more than one '// defines:' line")
        queries.append(NamedQuery(name, description, body, path,
                                  defines[0] if defines else None))

    for raw in content.splitlines():
        header = _HEADER.match(raw.strip())
        if header:
            flush()
            name, lines, description = header.group(1), [], ""
            continue
        if name is not None and not description and not lines and raw.strip().startswith("//"):
            description = raw.strip().lstrip("/").strip()
            continue
        lines.append(raw)
    flush()
    return queries


def _walk(node, prefix: str = ""):
    for child in node.iterdir():
        if child.is_dir():
            yield from _walk(child, f"{prefix}{child.name}/")
        elif child.name.endswith(".cypher"):
            yield f"{prefix}{child.name}", child.read_text(encoding="utf-8")


@cache
def load_all() -> dict[str, NamedQuery]:
    """Every named query in the `cypher` package, keyed by name (read once)."""
    found: dict[str, NamedQuery] = {}
    for path, content in sorted(_walk(resources.files("cypher"))):
        for q in parse_cypher_file(path, content):
            if q.name in found:
                raise CypherFileError(
                    f"duplicate query name '{q.name}' in {path} and {found[q.name].path}"
                )
            found[q.name] = q
    return found


def cypher(name: str) -> str:
    """The text of the named query; an unknown name is an error, never an empty query."""
    try:
        return load_all()[name].text
    except KeyError:
        raise CypherFileError(f"no Cypher query named '{name}' in cypher/") from None
