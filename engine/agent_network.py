"""An agent's file as we store it under its namespace (the rules: engine/namespace.py)."""
from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import Any

from engine.errors import InvalidInput
from engine.interchange import decide_pins
from engine.model import Belief, Justification, Label, Network, Nogood, Truth, check_id
from engine.namespace import ID_METADATA_KEYS, check_name, prefix, switch_belief, switch_id


@dataclasses.dataclass
class AgentNetwork:
    """An agent's file as we store it: beliefs with their pins decided (switch included),
    labels computed from scratch over them alone, nogoods, and the file's meta and repos."""

    name: str
    beliefs: dict[str, Belief]
    labels: dict[str, Label]
    nogoods: list[Nogood]
    meta: dict[str, Any]
    repos: dict[str, Any]
    asserted_there: list[str]  # asserted in the file: held here while the agent is active


def namespaced(name: str, network: Network, stored: Mapping[str, Truth], at: str
               ) -> AgentNetwork:
    """The agent's network under `name`, with the file's retractions kept (as import keeps
    them) and the definition digests of sync-agent."""
    check_name(name)
    ns = prefix(name)
    own = network.beliefs.keys()

    def ref(i: str) -> str:
        return check_id(ns + i, what="namespaced id")

    switch = switch_id(name)
    if "active" in own:
        raise InvalidInput(f"the file has a belief 'active', which would be the switch "
                           f"{switch}", field="id", value="active")
    beliefs: dict[str, Belief] = {switch: switch_belief(name, at)}
    asserted: list[str] = []
    for bid, b in network.beliefs.items():
        new_id = ref(bid)
        if b.is_premise or b.asserted:
            gates = tuple(ref(o) for j in b.justifications if j.gate for o in j.outlist)
            label = (f"asserted in {name}" if b.asserted and not b.is_premise
                     else f"premise of {name}")
            # an asserted derived belief keeps its own justifications beside the switch's
            kept = tuple(_requiring(j, switch, ref) for j in b.justifications if not j.gate)
            justifications = (Justification((switch,), gates, label=label),) + kept
            if b.asserted:
                asserted.append(new_id)
        else:
            justifications = tuple(_requiring(j, switch, ref) for j in b.justifications)
        metadata = {**_prefixed_metadata(b.metadata, own, ns), "namespace": name}
        beliefs[new_id] = dataclasses.replace(
            b, id=new_id, justifications=justifications, asserted=False,
            metadata=MappingProxyType(metadata))
    nogoods = [Nogood(check_id(ns + n.id, what="namespaced nogood id"),
                      tuple(ref(m) for m in n.members), n.discovered, n.resolution)
               for n in network.nogoods]
    stored_here = {ns + i: t for i, t in stored.items()}
    pinned, labels = decide_pins(beliefs, stored_here, at=at)
    for bid, b in pinned.items():
        if bid == switch:
            continue
        metadata = dict(b.metadata)
        if b.retracted:
            metadata["agent_retracted"] = True
        metadata["agent_sha256"] = definition_sha(b, metadata)
        pinned[bid] = dataclasses.replace(b, metadata=MappingProxyType(metadata))
    return AgentNetwork(name, pinned, labels, nogoods, dict(network.meta), dict(network.repos),
                        sorted(asserted))


def _requiring(j: Justification, switch: str, ref: Callable[[str], str]) -> Justification:
    return dataclasses.replace(j, antecedents=tuple(ref(a) for a in j.antecedents) + (switch,),
                               outlist=tuple(ref(o) for o in j.outlist))


def _prefixed_metadata(metadata: Mapping[str, Any], own: Collection[str], ns: str
                       ) -> dict[str, Any]:
    out = dict(metadata)
    for key in ID_METADATA_KEYS:
        value = out.get(key)
        if isinstance(value, str) and value in own:
            out[key] = ns + value
        elif isinstance(value, list):
            out[key] = [ns + v if isinstance(v, str) and v in own else v for v in value]
    return out


def definition_sha(b: Belief, metadata: Mapping[str, Any]) -> str:
    """The digest of what the file says of a belief: text, source fields, metadata (without
    the digest itself), justifications and whether it is retracted there."""
    body = {
        "text": b.text, "source": b.source, "source_url": b.source_url,
        "source_hash": b.source_hash, "date": b.date,
        "metadata": {k: v for k, v in metadata.items() if k != "agent_sha256"},
        "justifications": [[j.kind.value, j.label, list(j.antecedents), list(j.outlist)]
                           for j in b.justifications],
        "retracted": b.retracted, "reason": b.retract_reason if b.retracted else "",
        "extra": dict(b.extra),
    }
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
