"""Beliefs to query parameters and back, side by side so a write and its read agree.

Neo4j properties cannot hold maps, so `metadata` and `extra` are stored as JSON text.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from engine.model import Belief, Justification, Kind, Nogood, Truth
from engine.tms.access import own_tags

TRUTH_LABELS = {  # the closed set of label combinations a belief can carry
    Truth.IN: ["Belief", "In"],
    Truth.OUT: ["Belief", "Out"],
    Truth.UNDETERMINED: ["Belief", "Out", "Undetermined"],
}


def belief_props(b: Belief) -> dict[str, Any]:
    """A belief's stored properties but its id and computed labels: maps as JSON text, and
    the metadata's access tags as a property Cypher can read (None: removed)."""
    metadata = b.metadata
    return {
        "text": b.text,
        "source": b.source,
        "source_url": b.source_url,
        "source_hash": b.source_hash,
        "date": b.date,
        "metadata": _json_text(metadata),
        "extra": _json_text(b.extra),
        "created_at": b.created_at,
        "updated_at": b.updated_at,
        "retracted": b.retracted,
        "asserted": b.asserted,
        "retracted_at": b.retracted_at,
        "retract_reason": b.retract_reason,
        "access_tags": (sorted(own_tags(metadata)) or None) if metadata else None,
    }


def belief_to_row(b: Belief) -> dict[str, Any]:
    return {"id": b.id, "props": belief_props(b)}


def labelled_belief_row(b: Belief, truth: Truth, depth: int | None) -> dict[str, Any]:
    """A row for create_labelled_beliefs: empty strings and maps and false pins are left out,
    since an absent property reads as empty or false (bulk imports are dominated by property
    writes)."""
    props = {k: v for k, v in belief_props(b).items()
             if not (v == "" or v == "{}" or v is False or v is None)}
    props["id"] = b.id
    if depth is not None:
        props["depth"] = depth
    return {"labels": TRUTH_LABELS[truth], "props": props}


def _json_text(m: Mapping[str, Any]) -> str:
    # most beliefs have empty maps: their text without a call to json (200k at an import)
    return json.dumps(dict(m), sort_keys=True, ensure_ascii=False) if m else "{}"


# What a belief's definition is stored as (the change log's before-images keep these).
DEFINITION_KEYS = tuple(belief_props(Belief("x", "x")))


def belief_from_map(m: Mapping[str, Any]) -> Belief:
    return Belief(
        id=m["id"],
        text=m.get("text") or "",
        justifications=tuple(justification_from_map(j) for j in m.get("justifications") or ()),
        source=m.get("source") or "",
        source_url=m.get("source_url") or "",
        source_hash=m.get("source_hash") or "",
        date=m.get("date") or "",
        metadata=MappingProxyType(json_map(m.get("metadata"))),
        extra=MappingProxyType(json_map(m.get("extra"))),
        created_at=m.get("created_at") or "",
        updated_at=m.get("updated_at") or "",
        retracted=bool(m.get("retracted")),
        asserted=bool(m.get("asserted")),
        retracted_at=m.get("retracted_at") or "",
        retract_reason=m.get("retract_reason") or "",
        truth=Truth(m["truth"]) if m.get("truth") else None,
        depth=m.get("depth"),
        effective_tags=tuple(m.get("effective_tags") or ()),
    )


def justification_rows(belief: str, justifications: Iterable[Justification], first_seq: int = 0
                       ) -> list[dict[str, Any]]:
    """Rows for create_justifications: `belief` and the ids each justification names."""
    return [
        {
            "belief": belief,
            "seq": first_seq + i,
            "kind": j.kind.value,
            "label": j.label,
            "antecedents": list(j.antecedents),
            "outlist": list(j.outlist),
            "gate": j.gate,
        }
        for i, j in enumerate(justifications)
    ]


def justification_from_map(m: Mapping[str, Any]) -> Justification:
    return Justification(
        antecedents=tuple(m.get("antecedents") or ()),
        outlist=tuple(m.get("outlist") or ()),
        kind=Kind(m.get("kind") or "SL"),
        label=m.get("label") or "",
        gate=bool(m.get("gate")),
    )


def nogood_from_record(r: Mapping[str, Any]) -> Nogood:
    return Nogood(
        id=r["id"],
        members=tuple(r["members"]),
        discovered=r.get("discovered") or "",
        resolution=r.get("resolution") or "",
    )


def json_map(text: str | None) -> dict[str, Any]:
    """A stored JSON object property (metadata, extra) as a dict ({} when absent)."""
    if not text:
        return {}
    value = json.loads(text)
    return value if isinstance(value, dict) else {}
