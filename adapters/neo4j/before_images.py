"""Before-images: what a write changed of the network's definitions, as it was before.

Every named query that writes says, in its `// defines:` line (cypher/), what it changes:

    // defines: belief $ids                 the beliefs whose ids are in parameter `ids`
    // defines: belief $rows.id; source $rows.source    a field of each row; several parts
    // defines: belief new $rows.props.id   beliefs the query creates (no read: absent before)
    // defines: belief via NAME             the ids the read query NAME returns (`ids`) for
                                            the same parameters
    // defines: network                     the one NetworkInfo
    // defines: everything                  the whole network (reset): no image is kept,
                                            and history cannot be read back past this write
    // defines: nothing (why)               labels, stamps, provenance, the log itself

TxBase runs `capture` before each such query, so the first time a write touches a unit
(a belief, a nogood, a supersession, a source file, the network's meta, a namespace) its
definition is read and kept on the transaction's ChangeTracker; the store writes the
images into the write's (:Change) entry. No verb has to remember it: a query that writes
without a `defines:` line fails tests/unit/test_before_images.py.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from adapters.cypher_files import CypherFileError, load_all
from adapters.neo4j.change_tracker import TrackedTx
from adapters.neo4j.records import DEFINITION_KEYS
from engine.memory.images import KINDS, NETWORK_KEY, TRUTH_MARKS

_PART = re.compile(r"^(?P<kind>[a-z]+)(?:\s+(?P<new>new)\s+|\s+via\s+(?P<via>[a-z][a-z0-9_]*)|\s+)?"
                   r"(?P<path>\$[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?$")


@dataclass(frozen=True)
class Selector:
    kind: str
    path: tuple[str, ...] = ()  # parameter, then fields of each of its rows
    new: bool = False  # the query creates these: absent before, nothing to read
    via: str = ""  # a read query giving the ids (`ids`) for the same parameters


@dataclass(frozen=True)
class Defines:
    selectors: tuple[Selector, ...] = ()
    everything: bool = False


NOTHING = Defines()


def parse_defines(name: str, text: str) -> Defines:
    """A query's `// defines:` text; a malformed one is a broken query file."""
    if text == "everything":
        return Defines(everything=True)
    if text == "nothing" or text.startswith("nothing ("):
        return NOTHING
    selectors = []
    for part in (p.strip() for p in text.split(";")):
        m = _PART.match(part)
        kind = m.group("kind") if m else ""
        if not m or kind not in KINDS:
            raise CypherFileError(f"query '{name}': cannot read '// defines: {text}' (a kind of"
                                  f" {', '.join(KINDS)}, then $param[.field], new $param or"
                                  " via QUERY; or nothing (why), or everything)")
        path = tuple(m.group("path")[1:].split(".")) if m.group("path") else ()
        if kind == "network" and (path or m.group("via") or m.group("new")):
            raise CypherFileError(f"query '{name}': '// defines: network' takes nothing more")
        if kind != "network" and not path and not m.group("via"):
            raise CypherFileError(f"query '{name}': '// defines: {kind}' says which ({text})")
        selectors.append(Selector(kind, path, bool(m.group("new")), m.group("via") or ""))
    return Defines(tuple(selectors))


@cache
def defines_by_query() -> dict[str, Defines]:
    """Every query that declares what it defines, by name (queries saying nothing absent)."""
    out = {}
    for q in load_all().values():
        if q.defines is not None:
            found = parse_defines(q.name, q.defines)
            if found != NOTHING:
                out[q.name] = found
    return out


def _values(value: Any, path: tuple[str, ...]) -> Iterable[Any]:
    if value is None:
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _values(item, path)
        return
    if not path:
        yield value
        return
    if isinstance(value, Mapping):
        yield from _values(value.get(path[0]), path[1:])


def capture(tx: TrackedTx, name: str, params: Mapping[str, Any]) -> None:
    """Keep the before-image of every unit query `name` is about to change, once a write."""
    defines = defines_by_query().get(name)
    if defines is None:
        return
    log = tx.change_log
    if defines.everything:
        log.everything = True
        return
    for s in defines.selectors:
        known = log.images.setdefault(s.kind, {})
        if s.kind == "network":
            keys = [NETWORK_KEY]
        elif s.via:
            record = tx.read_plain(s.via, dict(params))
            keys = list(record["ids"]) if record else []
        else:
            keys = [str(v) for v in _values(params.get(s.path[0]), s.path[1:])]
        fresh = sorted({k for k in keys if k not in known})
        if not fresh:
            continue
        if s.new:
            known.update(dict.fromkeys(fresh))
        else:
            known.update(read_images(tx, s.kind, fresh))


def read_images(tx: TrackedTx, kind: str, keys: list[str]) -> dict[str, Any]:
    """The definitions of `keys` as they are now, in the images' form (None: absent)."""
    out: dict[str, Any] = dict.fromkeys(keys)
    record = tx.read_plain(f"images_{kind}", {"keys": keys, "props": DEFINITION_KEYS})
    for key, image in (record["images"] if record else []):
        out[key] = _IMAGE_OF[kind](image)
    return out


def _belief(row: list[Any]) -> dict[str, Any]:
    props, labels, justifications, source, duplicate_of = row
    out: dict[str, Any] = {"props": {k: v for k, v in props if v is not None}}
    marks = sorted(x for x in labels if x not in TRUTH_MARKS)
    if marks:
        out["marks"] = marks
    if justifications:
        out["justifications"] = sorted(
            [[seq, kind or "SL", label or "", bool(gate), [i for _, i in sorted(ants)],
              [i for _, i, _ in sorted(outs)], sorted(p for p, _, g in outs if g)]
             for seq, kind, label, gate, ants, outs in justifications])
    if source:
        out["from"] = source
    if duplicate_of:
        out["duplicate_of"] = duplicate_of
    return out


def _plain(image: Any) -> Any:
    return image


_IMAGE_OF = {"belief": _belief, "nogood": _plain, "supersession": _plain, "source": _plain,
             "namespace": _plain, "network": _plain}


def images_json(images: Mapping[str, Mapping[str, Any]]) -> str:
    """The entry's `before` property: kind -> key -> image (null: absent before)."""
    return json.dumps({k: dict(v) for k, v in images.items() if v}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
