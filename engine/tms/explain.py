"""Why a belief is IN or OUT, and what it rests on, from the beliefs upstream of it.

`explain` builds a tree: an IN belief shows the justification that supports it (its
shallowest valid one) down to premises; an OUT belief shows each justification and what fails
it (OUT antecedents, IN outlist members, missing ids), or its retraction. Each belief is
explained once; a later mention points back to it, and a belief met again on its own path is
shown as a cycle.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from engine.errors import NotFound
from engine.model import Belief, Justification, Truth
from engine.tms.access import TagSourceJson, tag_sources
from engine.tms.records import TmsStore
from engine.tms.semantics import is_valid


@dataclass
class Step:
    id: str
    truth: str  # IN, OUT, UNDETERMINED, MISSING
    # premise, asserted, retracted, justified, unjustified, undetermined, missing, see-above, cycle
    why: str
    depth: int | None = None
    detail: str = ""
    justifications: list[JustificationStep] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"id": self.id, "truth": self.truth, "why": self.why}
        if self.depth is not None:
            d["depth"] = self.depth
        if self.detail:
            d["detail"] = self.detail
        if self.justifications:
            d["justifications"] = [j.as_dict() for j in self.justifications]
        return d


@dataclass
class JustificationStep:
    kind: str
    label: str
    valid: bool
    antecedents: list[Step]
    outlist: list[Step]

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "label": self.label,
            "valid": self.valid,
            "antecedents": [s.as_dict() for s in self.antecedents],
            "outlist": [s.as_dict() for s in self.outlist],
        }


def _truth(b: Belief) -> str:
    return b.truth.value if b.truth is not None else ""  # stored beliefs always have one


def explain(store: TmsStore, belief_id: str) -> Step:
    upstream = store.read(lambda tx: tx.upstream([belief_id]))
    if belief_id not in upstream:
        raise NotFound("belief", belief_id)
    return explain_in(upstream, belief_id)


def explain_in(beliefs: Mapping[str, Belief], root: str) -> Step:
    truth = {i: b.truth for i, b in beliefs.items()}
    explained: set[str] = set()

    def visit(bid: str, path: tuple[str, ...]) -> Step:
        b = beliefs.get(bid)
        if b is None:
            return Step(bid, "MISSING", "missing", detail="no belief has this id")
        if bid in path:
            return Step(bid, _truth(b), "cycle", detail="support runs back to this belief")
        if bid in explained:
            return Step(bid, _truth(b), "see-above", b.depth)
        explained.add(bid)
        here = path + (bid,)
        if b.retracted:
            reason = f"retracted{': ' + b.retract_reason if b.retract_reason else ''}"
            return Step(bid, _truth(b), "retracted", b.depth, detail=reason)
        if b.is_premise and b.justifications and b.truth != Truth.IN:
            # a premise gated by supersede or challenge: the IN gate is the reason
            return Step(bid, _truth(b), "gated", 0, detail="a premise, gated", justifications=[
                _justification(j, False, visit, here, truth, failing_only=True)
                for j in b.justifications])
        if b.is_premise:
            return Step(bid, _truth(b), "premise", 0)
        if b.truth == Truth.IN:
            valid = [j for j in b.justifications if is_valid(j, truth)]
            if not valid:
                return Step(bid, "IN", "asserted", b.depth, detail="held as a user-asserted fact")
            support = min(valid, key=lambda j: _depth_of(j, beliefs))
            return Step(bid, "IN", "justified", b.depth,
                        justifications=[_justification(support, True, visit, here, truth)])
        why = "undetermined" if b.truth == Truth.UNDETERMINED else "unjustified"
        detail = ("on, or resting on, a loop through outlists: no unique answer"
                  if why == "undetermined" else "no valid justification")
        return Step(bid, _truth(b), why, b.depth, detail=detail, justifications=[
            _justification(j, False, visit, here, truth, failing_only=True)
            for j in b.justifications
        ])

    return visit(root, ())


def _depth_of(j: Justification, beliefs: Mapping[str, Belief]) -> int:
    depths = [beliefs[a].depth or 0 for a in j.antecedents if a in beliefs]
    return 1 + max(depths, default=0)


def _justification(j: Justification, valid: bool, visit, path, truth, *, failing_only=False):
    """The justification's parts; for an OUT belief only the parts that fail it."""
    antecedents = [visit(a, path) for a in j.antecedents
                   if not failing_only or truth.get(a) != Truth.IN]
    outlist = [visit(o, path) for o in j.outlist
               if not failing_only or truth.get(o, Truth.OUT) != Truth.OUT]
    return JustificationStep(j.kind.value, j.label, valid, antecedents, outlist)


def render_explanation(step: Step, indent: int = 0) -> list[str]:
    pad = "  " * indent
    head = f"{pad}{step.id} is {step.truth}"
    if step.depth is not None and step.why not in ("see-above", "cycle"):
        head += f" (depth {step.depth})"
    reasons = {
        "premise": "a premise",
        "asserted": step.detail,
        "retracted": step.detail,
        "missing": step.detail,
        "see-above": "explained above",
        "cycle": f"cycle: {step.detail}",
        "justified": "because",
        "unjustified": step.detail + ":",
        "undetermined": step.detail + ":",
        "gated": step.detail + ":",
    }
    lines = [f"{head}: {reasons[step.why]}"]
    for j in step.justifications:
        title = f"{pad}  {j.kind} justification" + (f" '{j.label}'" if j.label else "")
        if step.why == "gated":
            title = f"{pad}  its gate"
        if step.why not in ("justified", "gated"):
            title += " fails on"
        lines.append(title)
        for a in j.antecedents:
            lines.extend(render_explanation(a, indent + 2))
        for o in j.outlist:
            prefix = f"{pad}    unless "
            sub = render_explanation(o, indent + 2)
            sub[0] = prefix + sub[0].lstrip()
            lines.extend(sub)
    return lines


@dataclass(frozen=True)
class TraceEntry:
    id: str
    truth: str
    kind: str  # premise, asserted, missing


def trace(store: TmsStore, belief_id: str) -> list[TraceEntry]:
    """The premises (and user-asserted beliefs) a belief rests on: for an IN belief, through
    its valid justifications; otherwise through all of them."""
    upstream = store.read(lambda tx: tx.upstream([belief_id]))
    if belief_id not in upstream:
        raise NotFound("belief", belief_id)
    return trace_in(upstream, belief_id)


def support(store: TmsStore, belief_id: str) -> tuple[Step, list[TraceEntry]]:
    """`explain` and `trace` of a belief from one read of what lies upstream of it."""
    upstream = store.read(lambda tx: tx.upstream([belief_id]))
    if belief_id not in upstream:
        raise NotFound("belief", belief_id)
    return explain_in(upstream, belief_id), trace_in(upstream, belief_id)


def trace_in(beliefs: Mapping[str, Belief], root: str) -> list[TraceEntry]:
    truth = {i: b.truth for i, b in beliefs.items()}
    found: dict[str, TraceEntry] = {}
    seen: set[str] = set()
    stack = [root]
    while stack:
        bid = stack.pop()
        if bid in seen:
            continue
        seen.add(bid)
        b = beliefs.get(bid)
        if b is None:
            found[bid] = TraceEntry(bid, "MISSING", "missing")
            continue
        if b.is_premise:
            found[bid] = TraceEntry(bid, _truth(b), "premise")
            continue
        relevant = b.justifications
        if b.truth == Truth.IN:
            relevant = tuple(j for j in b.justifications if is_valid(j, truth))
            if b.asserted and not relevant:
                found[bid] = TraceEntry(bid, "IN", "asserted")
        for j in relevant:
            stack.extend(j.antecedents)
    return [found[k] for k in sorted(found)]


class TagTraceJson(TypedDict):
    """A belief's effective access tags and where each comes from."""

    id: str
    effective_tags: list[str]
    sources: list[TagSourceJson]


def trace_tags(store: TmsStore, belief_id: str) -> TagTraceJson:
    """A belief's effective access tags as stored, and where each comes from: the nearest
    belief carrying it as its own and the support path down to it (engine/tms/access.py)."""

    upstream = store.read(lambda tx: tx.upstream([belief_id]))
    if belief_id not in upstream:
        raise NotFound("belief", belief_id)
    truth = {i: b.truth or Truth.OUT for i, b in upstream.items()}
    return {"id": belief_id, "effective_tags": list(upstream[belief_id].effective_tags),
            "sources": [s.as_dict() for s in tag_sources(belief_id, upstream, truth)]}
