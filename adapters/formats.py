"""The ftl-reasons / reasonsforge `network.json` format, in and out.

    {"meta": {...}, "nodes": {id: {"text", "truth_value", "justifications":
      [{"type", "antecedents", "outlist", "label"[, "gate"]}], "source", "source_url",
      "source_hash", "date", "metadata", "created_at", "updated_at", "retracted_at", ...}},
     "nogoods": [{"id", "nodes", "discovered", "resolution"}], "repos": {...},
     "supersessions": [{"old", "new", "created_new", "reason", "at", "rewired"[, "gated"]}],
     "sources": [{"path", "sha256", "size", "forged_at", "chunks"}]}

The last two are this engine's own (supersede's links; the files beliefs are pinned to, each
belief's lines being in its metadata), written only when there are some.

Node fields this engine does not interpret (reviewed_at, verified_at, text_hash, ...) are kept
in `Belief.extra` and written back on export. Two keys are this engine's own and optional:
`asserted` (a user-asserted belief) and `retract_reason`.
A problem with a file raises InvalidInput naming it (with line and column for bad JSON).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, TextIO

from engine.errors import InvalidInput
from engine.memory.records import RewiredEdge, SupersedeRecord, gated_of
from engine.model import ID_RE, Belief, Justification, Kind, Nogood, Truth
from engine.sources.records import SourceRecord
from engine.tms.records import Network

KNOWN_NODE_KEYS = {
    "text", "truth_value", "justifications", "source", "source_url", "source_hash", "date",
    "metadata", "created_at", "updated_at", "retracted_at", "retract_reason", "asserted",
}
_TRUTHS = {"IN": Truth.IN, "OUT": Truth.OUT}
_NO_MAP: Mapping[str, Any] = MappingProxyType({})  # shared by the many nodes without one
STRING_FIELDS = ("source", "source_url", "source_hash", "date", "created_at", "updated_at",
                 "retracted_at", "retract_reason")


def read_network_file(path: str | Path) -> tuple[Network, dict[str, Truth]]:
    """Parse a network file; returns the network (no pins applied yet) and the stored
    truth value of every node."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"{path}: no such file", field="file", value=str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"{path}: cannot be read: {e}", field="file", value=str(path)) from e
    try:
        data = json.loads(text, object_pairs_hook=refuse_duplicate_keys)
    except DuplicateKey as e:
        raise InvalidInput(f"{path}: duplicate key {e.key!r} in one object (an id given twice?)",
                           field="file", value=e.key) from None
    except json.JSONDecodeError as e:
        raise InvalidInput(
            f"{path}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}",
            field="file", value=str(path),
        ) from None
    return parse_network(data, source=str(path))


class DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # built in C; a key given twice leaves it shorter than the pairs
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return out


def parse_network(data: Any, *, source: str = "network") -> tuple[Network, dict[str, Truth]]:
    def bad(where: str, what: str) -> InvalidInput:
        return InvalidInput(f"{source}: {where}: {what}", field=where)

    if not isinstance(data, dict):
        raise bad("top level", "expected a JSON object with a 'nodes' object")
    nodes = data.get("nodes")
    if not isinstance(nodes, dict):
        raise bad("top level", "'nodes' is missing or not an object keyed by belief id")
    beliefs: dict[str, Belief] = {}
    stored: dict[str, Truth] = {}
    for bid, node in nodes.items():
        beliefs[bid], stored[bid] = parse_node(bid, node, bad)
    rest = parse_rest(data, bad)
    return Network(beliefs, rest.nogoods, rest.repos, rest.meta, rest.supersessions,
                   rest.sources), stored


def parse_node(bid: str, node: Any, bad: Callable[[str, str], InvalidInput]
               ) -> tuple[Belief, Truth]:
    """One entry of "nodes": the belief (no pins yet) and the truth value the file stored."""
    where = f"node '{bid}'"
    if not ID_RE.fullmatch(bid):
        raise bad(where, "invalid id: ids are 1-200 characters of [a-z0-9._:-], "
                         "starting with a letter or digit")
    if not isinstance(node, dict):
        raise bad(where, "expected an object")
    text = node.get("text")
    if not isinstance(text, str) or not text.strip():
        raise bad(where, "empty or missing 'text'")
    truth = node.get("truth_value", "IN")
    if truth not in ("IN", "OUT"):
        raise bad(where, f"truth_value must be IN or OUT, not {truth!r}")
    raw_justs = node.get("justifications", [])
    if not isinstance(raw_justs, list):
        raise bad(where, "'justifications' must be a list")
    justifications = tuple(_justification(j, f"{where} justification {k}", bad)
                           for k, j in enumerate(raw_justs))
    metadata = node.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise bad(where, "'metadata' must be an object")
    fields: dict[str, Any] = {}
    for key in STRING_FIELDS:
        value = node.get(key) or ""
        if not isinstance(value, str):
            raise bad(where, f"'{key}' must be a string")
        fields[key] = value
    extra = {k: v for k, v in node.items() if k not in KNOWN_NODE_KEYS}
    return Belief(
        id=bid,
        text=text,
        justifications=justifications,
        metadata=MappingProxyType(metadata) if metadata else _NO_MAP,
        extra=MappingProxyType(extra) if extra else _NO_MAP,
        asserted=bool(node.get("asserted", False)),
        **fields,
    ), _TRUTHS[truth]


def parse_rest(data: Mapping[str, Any], bad: Callable[[str, str], InvalidInput]) -> Network:
    """Everything of a file but its nodes: nogoods, meta, repos, supersessions, sources (as
    a Network without beliefs)."""
    nogoods: list[Nogood] = []
    raw_nogoods = data.get("nogoods", [])
    if not isinstance(raw_nogoods, list):
        raise bad("top level", "'nogoods' must be a list")
    for k, ng in enumerate(raw_nogoods):
        where = f"nogood {k}"
        if not isinstance(ng, dict) or not isinstance(ng.get("id"), str):
            raise bad(where, "expected an object with an 'id'")
        members = ng.get("nodes", [])
        if not isinstance(members, list) or not all(
            isinstance(m, str) and ID_RE.fullmatch(m) for m in members
        ):
            raise bad(where, "'nodes' must be a list of valid belief ids")
        ident = ng["id"].lower()
        if not ID_RE.fullmatch(ident):
            raise bad(where, f"invalid nogood id {ng['id']!r}")
        if any(n.id == ident for n in nogoods):
            raise bad(where, f"nogood id {ident!r} is given twice")
        nogoods.append(Nogood(ident, tuple(members), str(ng.get("discovered") or ""),
                              str(ng.get("resolution") or "")))
    meta = data.get("meta") or {}
    repos = data.get("repos") or {}
    if not isinstance(meta, dict) or not isinstance(repos, dict):
        raise bad("top level", "'meta' and 'repos' must be objects")
    return Network({}, nogoods, repos, meta, read_supersessions(data, bad),
                   read_sources(data, bad))


# supersede's links and the source files, written and read side by side (also used by the
# markdown registry, adapters/markdown_registry.py)
def supersession_json(r: SupersedeRecord) -> dict[str, Any]:
    return {"old": r.old, "new": r.new, "created_new": r.created_new, "reason": r.reason,
            "at": r.at, "rewired": [[e.belief, e.seq, e.kind, e.pos] for e in r.rewired],
            **({"gated": r.gated} if r.gated is not None else {})}


def supersession_from_json(d: Any, where: str, bad: Callable[[str, str], Exception]
                           ) -> SupersedeRecord:
    if not isinstance(d, dict):
        raise bad(where, "expected an object")
    old, new = d.get("old"), d.get("new")
    if not (isinstance(old, str) and ID_RE.fullmatch(old) and isinstance(new, str)
            and ID_RE.fullmatch(new)):
        raise bad(where, "'old' and 'new' must be belief ids")
    rewired = d.get("rewired", [])
    try:
        edges = tuple(RewiredEdge(str(b), int(seq), str(kind), int(pos))
                      for b, seq, kind, pos in rewired)
    except (TypeError, ValueError):
        raise bad(where, "'rewired' must be a list of [belief, seq, kind, pos]") from None
    if any(e.kind not in ("REQUIRES", "UNLESS") or not ID_RE.fullmatch(e.belief)
           for e in edges):
        raise bad(where, "a rewired edge is [belief id, seq, REQUIRES|UNLESS, pos]")
    reason, at = d.get("reason", ""), d.get("at", "")
    if not isinstance(reason, str) or not isinstance(at, str):
        raise bad(where, "'reason' and 'at' must be strings")
    gated = d.get("gated")
    if gated is not None and gated_of(gated) is None:
        raise bad(where, "'gated' must be how many justifications the gate went to (0 or more)")
    return SupersedeRecord(old, new, bool(d.get("created_new", False)), edges, reason, at,
                           gated_of(gated))


def source_json(s: SourceRecord) -> dict[str, Any]:
    return {"path": s.path, "sha256": s.sha256, "size": s.size, "forged_at": s.forged_at,
            "chunks": list(s.chunks)}


def source_from_json(d: Any, where: str, bad: Callable[[str, str], Exception]) -> SourceRecord:
    if not isinstance(d, dict) or not isinstance(d.get("path"), str) or not d["path"]:
        raise bad(where, "expected an object with a 'path'")
    sha, size, at, chunks = (d.get("sha256", ""), d.get("size", 0), d.get("forged_at", ""),
                             d.get("chunks", []))
    if not (isinstance(sha, str) and isinstance(at, str) and isinstance(size, int)
            and isinstance(chunks, list) and all(isinstance(c, str) for c in chunks)):
        raise bad(where, "'sha256' and 'forged_at' are strings, 'size' a number, 'chunks' "
                         "a list of strings")
    return SourceRecord(d["path"], sha, size, at, tuple(chunks))


def read_supersessions(data: Mapping[str, Any], bad: Callable[[str, str], Exception]
                       ) -> list[SupersedeRecord]:
    raw = data.get("supersessions", [])
    if not isinstance(raw, list):
        raise bad("top level", "'supersessions' must be a list")
    out = [supersession_from_json(d, f"supersession {k}", bad) for k, d in enumerate(raw)]
    if len({r.old for r in out}) != len(out):
        raise bad("supersessions", "a belief is superseded twice")
    return sorted(out, key=lambda r: r.old)


def read_sources(data: Mapping[str, Any], bad: Callable[[str, str], Exception]
                 ) -> list[SourceRecord]:
    raw = data.get("sources", [])
    if not isinstance(raw, list):
        raise bad("top level", "'sources' must be a list")
    out = [source_from_json(d, f"source {k}", bad) for k, d in enumerate(raw)]
    if len({s.path for s in out}) != len(out):
        raise bad("sources", "a source path is given twice")
    return sorted(out, key=lambda s: s.path)


def _justification(j: Any, where: str, bad) -> Justification:
    if not isinstance(j, dict):
        raise bad(where, "expected an object")
    kind = j.get("type", "SL")
    if kind not in ("SL", "CP"):
        raise bad(where, f"type must be SL or CP, not {kind!r}")
    refs = {}
    for key in ("antecedents", "outlist"):
        value = j.get(key, [])
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise bad(where, f"'{key}' must be a list of ids")
        for ref in value:
            if not ID_RE.fullmatch(ref):
                raise bad(where, f"invalid id {ref!r} in '{key}'")
        refs[key] = tuple(value)
    label = j.get("label") or ""
    if not isinstance(label, str):
        raise bad(where, "'label' must be a string")
    gate = j.get("gate", False)
    if not isinstance(gate, bool):
        raise bad(where, "'gate' must be true or false")
    if gate and (refs["antecedents"] or not refs["outlist"]):
        raise bad(where, "a gate has an outlist and no antecedents")
    return Justification(refs["antecedents"], refs["outlist"], Kind(kind), label, gate=gate)


def _justification_json(j: Justification) -> dict[str, Any]:
    out: dict[str, Any] = {"type": j.kind.value, "antecedents": list(j.antecedents),
                           "outlist": list(j.outlist), "label": j.label}
    if j.gate:  # supersede's and challenge's gate on a premise (ours; other readers skip it)
        out["gate"] = True
    return out


def network_to_json(network: Network) -> dict[str, Any]:
    """The network in the file format; an Undetermined belief is written as OUT."""
    nodes = {bid: node_json(network.beliefs[bid]) for bid in sorted(network.beliefs)}
    return _document(network, nodes, len(nodes))


def node_json(b: Belief) -> dict[str, Any]:
    node: dict[str, Any] = {
        "text": b.text,
        "truth_value": "IN" if b.truth == Truth.IN else "OUT",
        "justifications": [_justification_json(j) for j in b.justifications],
        "source": b.source,
        "source_url": b.source_url,
        "source_hash": b.source_hash,
        "date": b.date,
        "metadata": dict(b.metadata),
        "created_at": b.created_at,
        "updated_at": b.updated_at,
        "retracted_at": b.retracted_at,
    }
    if b.retract_reason:
        node["retract_reason"] = b.retract_reason
    if b.asserted:
        node["asserted"] = True
    for key, value in b.extra.items():
        node.setdefault(key, value)
    return node


def _document(network: Network, nodes: dict[str, Any], count: int) -> dict[str, Any]:
    meta = dict(network.meta)
    meta["node_count"] = count
    meta.setdefault("generator", "eem-engine")
    return {
        "meta": meta,
        "nodes": nodes,
        "nogoods": [
            {"id": n.id, "nodes": list(n.members), "discovered": n.discovered,
             "resolution": n.resolution}
            for n in network.nogoods
        ],
        "repos": dict(network.repos),
        **({"supersessions": [supersession_json(r) for r in
                              sorted(network.supersessions, key=lambda r: r.old)]}
           if network.supersessions else {}),
        **({"sources": [source_json(s) for s in sorted(network.sources, key=lambda s: s.path)]}
           if network.sources else {}),
    }


def write_network(out: TextIO, rest: Network, count: int, beliefs: Iterable[Belief]) -> None:
    """dump_network's text, written a node at a time: `rest` is the network but its beliefs,
    `beliefs` its `count` beliefs in id order (a store's pages), never all held at once."""
    text = json.dumps(_document(rest, {}, count), indent=2, ensure_ascii=False)
    head, tail = text.split(_EMPTY_NODES, 1)
    out.write(head + '\n  "nodes": {')
    first = True
    for b in beliefs:
        # {"id": {...}} at indent 2 is the entry one level shallower than in the document;
        # a newline inside a JSON text is always structural (strings escape theirs)
        entry = json.dumps({b.id: node_json(b)}, indent=2, ensure_ascii=False)[2:-2]
        out.write(("\n  " if first else ",\n  ") + entry.replace("\n", "\n  "))
        first = False
    out.write(("}," if first else "\n  },") + tail + "\n")


_EMPTY_NODES = '\n  "nodes": {},'


def dump_network(network: Network) -> str:
    return json.dumps(network_to_json(network), indent=2, ensure_ascii=False) + "\n"
