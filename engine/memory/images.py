"""Before-images: a unit of the network's definitions as a write found it, in the form the
change log keeps (JSON in each entry's `before`, kind -> key -> image; null: absent).

    belief        {"props": {stored property: value} (metadata and extra as their stored
                   JSON text; absent properties left out), "marks": [marker labels],
                   "justifications": [[seq, kind, label, gate, [antecedent ids],
                   [outlist ids], [positions of outlist edges a gate appended]]],
                   "from": [source path, lines], "duplicate_of": [kept id, edge properties]}
    nogood        {"members": [ids], "discovered", "resolution"}
    supersession  {"new": id, "props": {the SUPERSEDED_BY link's properties}}  (key: old id)
    source        {the Source node's properties}                            (key: path)
    network       {the NetworkInfo node's properties: meta and repos (JSON text), root}
                                                                            (key: "network")
    namespace     {the Namespace node's properties}                         (key: name)

Labels are not kept: they are a function of the definitions (engine/tms/labelling.py).
These functions turn images into the engine's records; pure, no I/O.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from engine.memory.records import Image, RewiredEdge, SupersedeRecord, gated_of
from engine.model import Belief, Justification, Kind, Nogood
from engine.results import JsonValue
from engine.sources.records import SourceRecord

KINDS = ("belief", "nogood", "supersession", "source", "network", "namespace")
NETWORK_KEY = "network"
TRUTH_MARKS = frozenset({"Belief", "In", "Out", "Undetermined"})

_NO_MAP: Mapping[str, JsonValue] = MappingProxyType({})


def _json_map(text: str | None) -> Mapping[str, JsonValue]:
    if not text or text == "{}":
        return _NO_MAP
    value = json.loads(text)
    return MappingProxyType(value) if isinstance(value, dict) else _NO_MAP


def justification_of(row: list[Any]) -> Justification:
    _seq, kind, label, gate, antecedents, outlist = row[:6]
    return Justification(tuple(antecedents), tuple(outlist), Kind(kind or "SL"), label or "",
                         bool(gate))


def belief_of(bid: str, image: Image) -> Belief:
    """The belief an image describes (no truth: labels are computed)."""
    p = image.get("props") or {}
    return Belief(
        id=bid, text=p.get("text") or "",
        justifications=tuple(justification_of(j) for j in image.get("justifications") or ()),
        source=p.get("source") or "", source_url=p.get("source_url") or "",
        source_hash=p.get("source_hash") or "", date=p.get("date") or "",
        metadata=_json_map(p.get("metadata")), extra=_json_map(p.get("extra")),
        created_at=p.get("created_at") or "", updated_at=p.get("updated_at") or "",
        retracted=bool(p.get("retracted")), asserted=bool(p.get("asserted")),
        retracted_at=p.get("retracted_at") or "", retract_reason=p.get("retract_reason") or "")


def nogood_of(nid: str, image: Image) -> Nogood:
    return Nogood(nid, tuple(image.get("members") or ()), image.get("discovered") or "",
                  image.get("resolution") or "")


def supersession_of(old: str, image: Image) -> SupersedeRecord:
    p = image.get("props") or {}
    return SupersedeRecord(
        old=old, new=image["new"], created_new=bool(p.get("created_new")),
        rewired=tuple(RewiredEdge(b, int(s), k, int(pos))
                      for b, s, k, pos in json.loads(p.get("rewired") or "[]")),
        reason=p.get("reason") or "", at=p.get("at") or "", gated=gated_of(p.get("gated")))


def source_of(path: str, image: Image) -> SourceRecord:
    return SourceRecord(path, image.get("sha256") or "", int(image.get("size") or 0),
                        image.get("forged_at") or "", tuple(image.get("chunks") or ()))


def network_info_of(image: Image | None
                    ) -> tuple[dict[str, JsonValue], dict[str, JsonValue]]:
    """(meta, repos) of a network image (absent: both empty)."""
    if not image:
        return {}, {}
    meta, repos = image.get("meta"), image.get("repos")
    return (json.loads(meta) if meta else {}), (json.loads(repos) if repos else {})


def text_of(image: Image | None) -> str | None:
    return (image.get("props") or {}).get("text") if image else None


def justifications_of(image: Image | None) -> list[list[Any]]:
    """A belief image's justifications without their seqs (what `diff` compares)."""
    return [j[1:] for j in (image or {}).get("justifications") or ()]


def pins_of(image: Image | None) -> tuple[bool, bool, str]:
    p = (image or {}).get("props") or {}
    return bool(p.get("retracted")), bool(p.get("asserted")), p.get("retract_reason") or ""
