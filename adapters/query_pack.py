"""The query pack as files: every named query under cypher/queries/, its parameters read from
its own header.

A pack query documents each parameter as the Neo4j Browser command that sets it,
    //   :param id => 'auth-latency-spikes-every-5-minutes'
and that line is the declaration: the literal's form gives the type (quoted: string; digits:
integer; with a point: float; true/false: boolean). Loading refuses a query whose `$names`
and documented parameters disagree, so the header a Browser user reads is always right.
"""
from __future__ import annotations

import re
from functools import cache

from adapters.cypher_files import CypherFileError, NamedQuery, load_all
from engine.reading.queries import PackParam, PackQuery

PACK_DIR = "queries/"
_PARAM_LINE = re.compile(r"^\s*//\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*;?\s*$")
_USED = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_LITERALS = (
    ("string", re.compile(r"^'[^']*'$|^\"[^\"]*\"$")),
    ("integer", re.compile(r"^-?\d+$")),
    ("float", re.compile(r"^-?\d+\.\d*$")),
    ("boolean", re.compile(r"^(?:true|false)$", re.IGNORECASE)),
)


def literal_type(literal: str) -> str | None:
    for name, pattern in _LITERALS:
        if pattern.match(literal):
            return name
    return None


def pack_params(q: NamedQuery) -> tuple[PackParam, ...]:
    params: list[PackParam] = []
    for line in q.text.splitlines():
        m = _PARAM_LINE.match(line)
        if not m:
            continue
        name, literal = m.group(1), m.group(2)
        kind = literal_type(literal)
        if kind is None:
            raise CypherFileError(f"{q.path}: parameter '{name}' has example {literal!r}, "
                                  "which is not a string, number or boolean literal")
        params.append(PackParam(name, kind, literal))
    declared = [p.name for p in params]
    if len(set(declared)) != len(declared):
        raise CypherFileError(f"{q.path}: a parameter is documented twice")
    code = "\n".join(line.split("//", 1)[0] for line in q.text.splitlines())
    used = set(_USED.findall(code))
    if used != set(declared):
        raise CypherFileError(
            f"{q.path}: query '{q.name}' uses ${', $'.join(sorted(used)) or ' nothing'} but "
            f"documents :param {', '.join(declared) or 'nothing'}; document each parameter "
            "as a `//   :param name => example` line")
    return tuple(params)


def pack_queries() -> list[NamedQuery]:
    return sorted((q for q in load_all().values() if q.path.startswith(PACK_DIR)),
                  key=lambda q: q.path)


@cache
def load_pack() -> tuple[PackQuery, ...]:
    """Every pack query, in file order."""
    return tuple(PackQuery(q.name, q.description, pack_params(q)) for q in pack_queries())


def is_pack_query(name: str) -> bool:
    return any(q.name == name for q in load_pack())
