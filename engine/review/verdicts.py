"""What review says about one justification, and the names review gives things.

A justification is named by its belief and its 1-based position in the belief's order
(`auth-bottleneck#2`): the number the prompt shows, the reply cites, the defeater's id
carries, and the REVIEWED edge records.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from engine.stages.item_reader import justification_key

# Why an unsound justification fails: the seven kinds of the reference, in our words below.
REASON_TYPES: dict[str, str] = {
    "unsupported-conjunct": "the claim asserts a part that no antecedent supports",
    "over-generalizes": "the claim is broader than what the antecedents establish",
    "false-causal-claim": "the claim asserts a cause the antecedents only show side by side",
    "internal-contradiction": "the antecedents, or the claim and an antecedent, conflict",
    "circular-reasoning": "the claim restates an antecedent, or rests on itself",
    "missing-bridge": "a step between the antecedents and the claim is left unstated",
    "scope-mismatch": "the antecedents are about a different component, case or condition",
}
UNCLASSIFIED = "unclassified"  # an invalid verdict whose reason type is missing or unknown
NO_REASON = "none"  # what a valid verdict gives as its reason type
MODES = ("ALL", "ANY")

DEFEATER_PREFIX = "review"
SUPERSEDED = "superseded by review"
MAX_ID = 200


key = justification_key


def defeater_id(belief_id: str, position: int) -> str:
    """`review:<belief>:j<n>`; a belief id too long for that keeps its first characters and a
    hash of the whole, so the id stays unique, well-formed and within 200 characters."""
    tail = f":j{position}"
    plain = f"{DEFEATER_PREFIX}:{belief_id}{tail}"
    if len(plain) <= MAX_ID:
        return plain
    digest = hashlib.sha256(belief_id.encode("utf-8")).hexdigest()[:12]
    room = MAX_ID - len(DEFEATER_PREFIX) - 1 - len(tail) - len(digest) - 1
    return f"{DEFEATER_PREFIX}:{belief_id[:room]}-{digest}{tail}"


@dataclass(frozen=True)
class AntecedentFinding:
    """What one antecedent establishes for the claim, and what it does not."""

    id: str
    establishes: str = ""
    does_not_establish: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "establishes": self.establishes,
                "does_not_establish": self.does_not_establish}


@dataclass(frozen=True)
class Verdict:
    """The verdict on justification `justification` of belief `belief`. Only `valid` is
    required of a reply; the other judgements are None (not given) or empty."""

    belief: str
    justification: int
    valid: bool
    sufficient: bool | None = None
    necessary: bool | None = None
    unnecessary_antecedents: tuple[str, ...] = ()
    mode: str | None = None  # the mode the justification should have, when given
    reason_type: str = ""
    missing_property: str = ""
    comment: str = ""
    antecedents: tuple[AntecedentFinding, ...] = ()
    shown_sha256: str = ""  # the belief's review hash when it was shown (proposals files)
    line: int = 0  # where in the reply it was, when known

    @property
    def key(self) -> str:
        return key(self.belief, self.justification)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.belief, "justification": self.justification, "valid": self.valid,
            "sufficient": self.sufficient, "necessary": self.necessary,
            "unnecessary_antecedents": list(self.unnecessary_antecedents), "mode": self.mode,
            "reason_type": self.reason_type, "missing_property": self.missing_property,
            "comment": self.comment,
            "antecedents": [a.as_dict() for a in self.antecedents],
        }
        if self.shown_sha256:
            out["shown_sha256"] = self.shown_sha256
        return out


def finding_text(v: Verdict, claim_id: str) -> str:
    """The defeater's text: what review found wrong with the justification."""
    parts = [f"Review found justification {v.justification} of '{claim_id}' unsound"]
    parts.append(f"({v.reason_type or UNCLASSIFIED})")
    text = " ".join(parts) + "."
    if v.missing_property:
        text += f" Missing: {v.missing_property.strip()}"
        text += "" if text.endswith(".") else "."
    if v.comment:
        text += f" {v.comment.strip()}"
    return text
