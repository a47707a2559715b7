"""What the repairer says about one defeated justification: one of four actions.

- link: name existing IN beliefs (`bridges`) that supply what was missing; a new
  justification is added: the old antecedents and the bridges;
- soften: a narrower claim (`text`) the antecedents do support; the belief is reworded
  (supersede --text), its dependents rewired to the new wording;
- abandon: leave it defeated; recorded, so it is not shown again;
- research: the premise the network lacks (`text`), recorded as a gap.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.stages.item_reader import justification_key

LINK, SOFTEN, ABANDON, RESEARCH = "link", "soften", "abandon", "research"
ACTIONS = (LINK, SOFTEN, ABANDON, RESEARCH)
WITH_TEXT = (SOFTEN, RESEARCH)


key = justification_key


@dataclass(frozen=True)
class Repair:
    belief: str
    justification: int
    action: str
    bridges: tuple[str, ...] = ()
    text: str = ""
    comment: str = ""
    line: int = 0  # where in the reply it was, when known

    @property
    def key(self) -> str:
        return key(self.belief, self.justification)

    def as_dict(self) -> dict[str, object]:
        return {"id": self.belief, "justification": self.justification, "action": self.action,
                "bridges": list(self.bridges), "text": self.text, "comment": self.comment}


def same_claim(a: str, b: str) -> bool:
    """Whether two claims are the same words (case, spacing and a final period aside)."""
    def normal(t: str) -> str:
        return " ".join(t.split()).lower().rstrip(".").strip()

    return normal(a) == normal(b)
