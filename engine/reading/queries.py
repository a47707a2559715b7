"""The query pack: named, parameterised queries (cypher/queries/*.cypher) a user runs with
`python -m engine query NAME --param key=value`, or pastes into Neo4j Browser.

The engine sees a pack query as its name, description and documented parameters (each with a
type read off its Browser example, `:param id => 'x'` is a string, `:param steps => 2` an
integer); it checks the user's `--param` values against them, runs the query through the
store, and renders the rows. Values that are graph elements come back as GraphNode /
GraphEdge (engine/reading/records.py), so nothing here depends on the driver.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from engine.errors import InvalidInput, NotFound
from engine.reading.records import GraphEdge, GraphNode, PackTx, QueryResult
from engine.store import Store

PARAM_TYPES = ("string", "integer", "float", "boolean")
ParamValue = str | int | float | bool  # a parameter converted to its declared type


@dataclass(frozen=True)
class PackParam:
    name: str
    type: str  # one of PARAM_TYPES
    example: str  # the Cypher literal of the Browser example, e.g. 'auth-uses-jwt' or 2


@dataclass(frozen=True)
class PackQuery:
    name: str
    description: str
    params: tuple[PackParam, ...] = ()


# --- finding a query and checking its parameters ---------------------------------------
def find_query(pack: Sequence[PackQuery], name: str | None) -> PackQuery:
    if not name:
        raise InvalidInput("name a query (see `query --list`)", field="name")
    for q in pack:
        if q.name == name:
            return q
    raise NotFound("query", name)


def parse_params(query: PackQuery, pairs: Sequence[str]) -> dict[str, ParamValue]:
    """`key=value` strings -> the query's parameters, each converted to its declared type.
    Every declared parameter is required; an undeclared one is an error."""
    declared = {p.name: p for p in query.params}
    values: dict[str, ParamValue] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidInput(f"--param takes key=value, not {pair!r}", field="param", value=pair)
        if key not in declared:
            known = ", ".join(declared) or "none"
            raise InvalidInput(f"query '{query.name}' has no parameter '{key}' "
                               f"(its parameters: {known})", field="param", value=key)
        if key in values:
            raise InvalidInput(f"--param {key} is given twice", field="param", value=key)
        values[key] = convert(declared[key], raw)
    missing = [p for p in query.params if p.name not in values]
    if missing:
        usage = " ".join(f"--param {p.name}={_plain_example(p)}" for p in missing)
        raise InvalidInput(f"query '{query.name}' needs {usage}", field="param",
                           value=missing[0].name)
    return values


def convert(param: PackParam, raw: str) -> ParamValue:
    problem = InvalidInput(f"--param {param.name} takes {_article(param.type)} {param.type}, "
                           f"not {raw!r}", field=param.name, value=raw)
    if param.type == "string":
        return raw
    if param.type == "integer":
        try:
            return int(raw.strip())
        except ValueError:
            raise problem from None
    if param.type == "float":
        try:
            return float(raw.strip())
        except ValueError:
            raise problem from None
    if param.type == "boolean":
        text = raw.strip().lower()
        if text in ("true", "false"):
            return text == "true"
        raise problem
    raise InvalidInput(f"parameter type {param.type!r} is not one of {PARAM_TYPES}")


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _plain_example(p: PackParam) -> str:
    return p.example.strip("'\"")


# --- running -----------------------------------------------------------------------------
def run_query(store: Store[PackTx], query: PackQuery, params: Mapping[str, ParamValue]
              ) -> QueryResult:
    """Run a pack query (read-only) with checked parameters."""
    return store.read(lambda tx: tx.run_pack_query(query.name, dict(params)))


# --- rendering -----------------------------------------------------------------------------
def cell(value: object) -> str:
    """One value as table text: lists joined by commas, a belief by its id, a
    justification by kind and seq, a relationship by its type."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, GraphNode):
        props = value.properties
        if "id" in props:
            return str(props["id"])
        if "Justification" in value.labels:
            return f"{props.get('kind', 'SL')}#{props.get('seq', '?')}"
        return ":" + ":".join(value.labels)
    if isinstance(value, GraphEdge):
        return value.type
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value)
    if isinstance(value, Mapping):
        return json.dumps(to_json(value), ensure_ascii=False, sort_keys=True)
    return str(value)


def to_json(value: object) -> object:
    if isinstance(value, (GraphNode, GraphEdge)):
        return value.as_dict()
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def json_rows(result: QueryResult) -> list[dict[str, object]]:
    return [{k: to_json(v) for k, v in r.items()} for r in result.records()]


def text_rows(result: QueryResult, width: int = 72) -> list[list[str]]:
    def fit(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= width else text[: width - 3] + "..."

    return [[fit(cell(v)) for v in row] for row in result.rows]


def pack_rows(pack: Sequence[PackQuery]) -> list[tuple[str, str, str]]:
    return [(q.name, " ".join(f"{p.name}={_plain_example(p)}" for p in q.params) or "-",
             q.description) for q in pack]


def pack_json(pack: Sequence[PackQuery]) -> list[dict[str, object]]:
    return [{"name": q.name, "description": q.description,
             "params": [{"name": p.name, "type": p.type, "example": p.example}
                        for p in q.params]} for q in pack]
