"""The verbs a proposal may hold, each in library form: its arguments as JSON, what it
targets and names, the checks the verb makes before it writes, and the verb's own work
inside a write transaction (the same function the verb runs, so an accepted proposal does
exactly what the verb would have done)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from engine import tms
from engine.agents.import_agent import require_namespace
from engine.agents.records import AgentTx
from engine.errors import InvalidInput
from engine.memory import dialectic, supersede
from engine.model import Belief, Change, Justification, Kind, check_id, check_text
from engine.memory.dialectic import DialecticTx
from engine.memory.supersede import SupersedeTx
from engine.sources.pinning import SourcedClaim, pin_in
from engine.sources.records import SourceRecords
from engine.tms.access import TAGS_KEY
from engine.tms.records import ResolutionTx

Args = Mapping[str, Any]


# --- justifications as JSON: to-args and from-args side by side --------------------------
def justification_args(j: Justification) -> dict[str, object]:
    return {"kind": j.kind.value, "antecedents": list(j.antecedents), "outlist": list(j.outlist),
            "label": j.label}


def justification_from_args(d: Mapping[str, Any]) -> Justification:
    try:
        kind = Kind(str(d.get("kind", "SL")).upper())
    except ValueError:
        raise InvalidInput(f"kind takes 'SL' or 'CP', not {d.get('kind')!r}",
                           field="kind") from None
    return Justification(tuple(d.get("antecedents") or ()), tuple(d.get("outlist") or ()), kind,
                         str(d.get("label") or ""))


def _justifications(args: Args, key: str = "justifications") -> tuple[Justification, ...]:
    return tuple(justification_from_args(j) for j in args.get(key) or ())


def _mentions(args: Args) -> list[str]:
    return [ref for j in _justifications(args) for ref in j.mentions()]


def _check_refs(a: Args) -> None:
    """Every id a justification names is well-formed (the verb's own work checks the rest)."""
    for j in _justifications(a):
        for ref in j.antecedents:
            check_id(ref, what="antecedent id")
        for ref in j.outlist:
            check_id(ref, what="outlist id")


# --- the verbs ---------------------------------------------------------------------------
def _check_add(a: Args) -> None:
    check_id(a["id"])
    check_text(a.get("text"), ident=a["id"])
    _check_refs(a)


def pin_args(claim: SourcedClaim) -> dict[str, object]:
    """A source pin as `propose add --source` read it, kept on the proposal in JSON."""
    return {"path": claim.path, "sha256": claim.sha256, "size": claim.size,
            "lines": list(claim.lines), "quote": claim.quote}


def _pin_of(a: Args) -> SourcedClaim | None:
    p = a.get("pin")
    if not p:
        return None
    return SourcedClaim(p["path"], p["sha256"], int(p["size"]), (int(p["lines"][0]),
                        int(p["lines"][1])), p.get("quote") or "")


class AddTx(ResolutionTx, SourceRecords, AgentTx, Protocol):
    """What a proposed add writes: the belief (ResolutionTx), its pin (SourceRecords), in a
    namespace that must exist (AgentTx)."""


class ActionTx(AddTx, SupersedeTx, Protocol):
    """What any verb a proposal names writes (each takes its own part of it)."""


def _apply_add(tx: AddTx, a: Args) -> Change:
    """As `add` does, pin included: the file as it was read when the proposal was made (a
    change since then shows in `sources stale`, as for any pinned belief)."""
    stamp = tms.now()
    claim = _pin_of(a)
    metadata: dict[str, object] = claim.metadata() if claim else {}
    if a.get("access_tags"):
        metadata[TAGS_KEY] = list(a["access_tags"])
    if a.get("namespace"):  # add --namespace: placed when proposed, the namespace must exist
        require_namespace(tx, a["namespace"])
        metadata["namespace"] = a["namespace"]
    belief = Belief(id=a["id"], text=a["text"], justifications=_justifications(a),
                    source=claim.path if claim else a.get("source") or "",
                    source_url=a.get("source_url") or "",
                    source_hash=claim.sha256 if claim else "",
                    metadata=MappingProxyType(metadata), created_at=stamp, updated_at=stamp)
    if claim is not None:
        pin_in(tx, a["id"], claim, metadata, stamp, check_only=True)
    change = tms.add_beliefs_in(tx, [belief])
    if claim is not None:
        pin_in(tx, a["id"], claim, metadata, stamp)
    return change


def _check_add_justification(a: Args) -> None:
    check_id(a["id"])
    tms.check_new_justifications(a["id"], _justifications(a))


def _check_id_only(a: Args) -> None:
    check_id(a["id"])


def _supersede_parts(a: Args) -> dict[str, Any]:
    given = a.get("justifications")
    return {"text": a.get("text"), "new_id": a.get("new_id"),
            "justifications": None if given is None else _justifications(a),
            "rewire": a.get("rewire")}


def _check_supersede(a: Args) -> None:
    supersede.check_supersede(a["old"], a.get("new"), a.get("text"), a.get("new_id"))
    _check_refs(a)


def _apply_supersede(tx: SupersedeTx, a: Args) -> Change:
    return supersede.supersede_in(tx, a["old"], a.get("new"), reason=a.get("reason") or "",
                                  **_supersede_parts(a)).change


def _check_challenge(a: Args) -> None:
    dialectic.check_challenge(a["id"], a.get("reason") or "", a.get("justification"),
                              a.get("challenge_id"))


def _apply_challenge(tx: DialecticTx, a: Args) -> Change:
    text = dialectic.check_challenge(a["id"], a.get("reason") or "", a.get("justification"),
                                     a.get("challenge_id"))
    return dialectic.challenge_in(tx, a["id"], text, a.get("justification"),
                                  a.get("challenge_id")).change


@dataclass(frozen=True)
class Verb:
    target_key: str  # the argument naming the belief the proposal is about
    check: Callable[[Args], None]
    apply: Callable[[ActionTx, Args], Change]
    named: Callable[[Args], list[str]]  # the other ids it names


VERBS: Mapping[str, Verb] = MappingProxyType({
    "add": Verb("id", _check_add, _apply_add, _mentions),
    "add-justification": Verb(
        "id", _check_add_justification,
        lambda tx, a: tms.add_justification_in(tx, a["id"], _justifications(a)), _mentions),
    "retract": Verb("id", _check_id_only,
                    lambda tx, a: tms.retract_in(tx, a["id"], a.get("reason") or ""),
                    lambda a: []),
    "assert": Verb("id", _check_id_only, lambda tx, a: tms.assert_in(tx, a["id"]),
                   lambda a: []),
    "supersede": Verb("old", _check_supersede, _apply_supersede,
                      lambda a: [i for i in (a.get("new"), a.get("new_id")) if i]
                      + _mentions(a)),
    "challenge": Verb("id", _check_challenge, _apply_challenge,
                      lambda a: [a["challenge_id"]] if a.get("challenge_id") else []),
})
ACTIONS: Sequence[str] = tuple(VERBS)


def verb(action: str) -> Verb:
    if action not in VERBS:
        raise InvalidInput(f"a proposal's action is one of {', '.join(ACTIONS)}, not "
                           f"{action!r}", field="action", value=action)
    return VERBS[action]


def check_action(action: str, args: Args) -> None:
    """The verb's own checks, before anything is written (InvalidInput on bad input)."""
    spec = verb(action)
    if not isinstance(args.get(spec.target_key), str):
        raise InvalidInput(f"{action} needs {spec.target_key}", field=spec.target_key)
    spec.check(args)


def target_of(action: str, args: Args) -> str:
    return str(args[verb(action).target_key])


def named_of(action: str, args: Args) -> list[str]:
    target = target_of(action, args)
    return sorted({i for i in verb(action).named(args) if i != target})


def apply_in(tx: ActionTx, action: str, args: Args) -> Change:
    """Inside a write transaction: what the verb does, its propagation and nogoods."""
    return verb(action).apply(tx, args)
