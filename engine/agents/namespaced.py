"""An agent's file as we store it under its namespace (the rules: engine/agents/namespace.py)."""
from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType

from engine.agents.namespace import ID_METADATA_KEYS, check_name, prefix, switch_belief, switch_id
from engine.errors import InvalidInput
from engine.interchange import decide_pins
from engine.model import Belief, Justification, Label, Nogood, Truth, check_id
from engine.tms.records import Network

MAX_ID = 200  # engine.model.ID_RE's length


@dataclasses.dataclass
class AgentNetwork:
    """An agent's file as we store it: beliefs with their pins decided (switch included),
    labels computed from scratch over them alone, nogoods, and the file's meta and repos."""

    name: str
    beliefs: dict[str, Belief]
    labels: dict[str, Label]
    nogoods: list[Nogood]
    meta: dict[str, object]
    repos: dict[str, object]
    asserted_there: list[str]  # asserted in the file: held here while the agent is active


def namespaced(name: str, network: Network, stored: Mapping[str, Truth], at: str
               ) -> AgentNetwork:
    """The agent's network under `name`, with the file's retractions kept (as import keeps
    them) and the definition digests of sync-agent."""
    check_name(name)
    ns = prefix(name)
    own = network.beliefs.keys()

    def ref(i: str) -> str:
        # the file's ids passed ID_RE already, and so does the prefix: only the length can fail
        prefixed = ns + i
        return prefixed if len(prefixed) <= MAX_ID else check_id(prefixed, what="namespaced id")

    switch = switch_id(name)
    if "active" in own:
        raise InvalidInput(f"the file has a belief 'active', which would be the switch "
                           f"{switch}", field="id", value="active")
    beliefs: dict[str, Belief] = {switch: switch_belief(name, at)}
    # Each imported belief's metadata dict, filled in once its pin is decided: the beliefs
    # are built here and shared with no one yet, and rebuilding 100k of them costs seconds.
    metadatas: dict[str, dict[str, object]] = {}
    asserted: list[str] = []
    for bid, b in network.beliefs.items():
        new_id = ref(bid)
        is_premise = b.is_premise
        if is_premise or b.asserted:
            gates = tuple(ref(o) for j in b.justifications if j.gate for o in j.outlist)
            label = (f"asserted in {name}" if b.asserted and not is_premise
                     else f"premise of {name}")
            # an asserted derived belief keeps its own justifications beside the switch's
            kept = tuple(_requiring(j, switch, ref) for j in b.justifications if not j.gate)
            justifications = (Justification((switch,), gates, label=label),) + kept
            if b.asserted:
                asserted.append(new_id)
        else:
            justifications = tuple(_requiring(j, switch, ref) for j in b.justifications)
        metadata = _prefixed_metadata(b.metadata, own, ns)
        metadata["namespace"] = name
        metadatas[new_id] = metadata
        beliefs[new_id] = Belief(
            id=new_id, text=b.text, justifications=justifications, source=b.source,
            source_url=b.source_url, source_hash=b.source_hash, date=b.date,
            metadata=MappingProxyType(metadata), created_at=b.created_at,
            updated_at=b.updated_at, retracted=b.retracted, retracted_at=b.retracted_at,
            retract_reason=b.retract_reason, extra=b.extra)
    nogoods = [Nogood(check_id(ns + n.id, what="namespaced nogood id"),
                      tuple(ref(m) for m in n.members), n.discovered, n.resolution)
               for n in network.nogoods]
    stored_here = {ns + i: t for i, t in stored.items()}
    pinned, labels = decide_pins(beliefs, stored_here, at=at)
    for bid, metadata in metadatas.items():
        b = pinned[bid]
        if b.retracted:
            metadata["agent_retracted"] = True
        metadata["agent_sha256"] = definition_sha(b, metadata)
    return AgentNetwork(name, pinned, labels, nogoods, dict(network.meta), dict(network.repos),
                        sorted(asserted))


def only_in(network: Network, stored: Mapping[str, Truth]
            ) -> tuple[Network, dict[str, Truth], list[str]]:
    """The part of an agent's file it holds IN (its retractions kept, labels computed over
    the file alone), the nogoods all of whose members are in it, and the ids left out. What
    the kept beliefs name of the rest is OUT there, so it stays a forward reference (OUT)
    here: the kept beliefs' labels are the same."""
    _, labels = decide_pins(network.beliefs, stored)
    kept = {i: b for i, b in network.beliefs.items() if labels[i].truth is Truth.IN}
    left_out = sorted(network.beliefs.keys() - kept.keys())
    return (dataclasses.replace(network, beliefs=kept, nogoods=[
                n for n in network.nogoods if all(m in kept for m in n.members)]),
            {i: t for i, t in stored.items() if i in kept}, left_out)


def _requiring(j: Justification, switch: str, ref: Callable[[str], str]) -> Justification:
    return Justification(tuple(ref(a) for a in j.antecedents) + (switch,),
                         tuple(ref(o) for o in j.outlist), j.kind, j.label)


def _prefixed_metadata(metadata: Mapping[str, object], own: Collection[str], ns: str
                       ) -> dict[str, object]:
    out = dict(metadata)
    for key in ID_METADATA_KEYS & out.keys():
        value = out[key]
        if isinstance(value, str) and value in own:
            out[key] = ns + value
        elif isinstance(value, list):
            out[key] = [ns + v if isinstance(v, str) and v in own else v for v in value]
    return out


def definition_sha(b: Belief, metadata: Mapping[str, object]) -> str:
    """The digest of what the file says of a belief: text, source fields, metadata (without
    the digest itself), justifications and whether it is retracted there. Fields are joined
    by a separator no id or JSON text holds unescaped; JSON only where a map must be written
    (most beliefs have no metadata but `namespace`, and no extra fields)."""
    if len(metadata) == 1 and "namespace" in metadata:  # most beliefs: no map to write
        meta = f"ns={metadata['namespace']}"
    else:
        rest = {k: v for k, v in metadata.items() if k != "agent_sha256"}
        meta = f"ns={rest['namespace']}" if rest.keys() == {"namespace"} else _canonical(rest)
    parts = [
        b.text, b.source, b.source_url, b.source_hash, b.date, meta,
        "|".join(f"{j.kind.value},{j.label!r},{' '.join(j.antecedents)},{' '.join(j.outlist)}"
                 for j in b.justifications),
        "R" if b.retracted else "", b.retract_reason if b.retracted else "",
        _canonical(b.extra) if b.extra else "",
    ]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def _canonical(value: Mapping[str, object]) -> str:
    return json.dumps(dict(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=dict)
