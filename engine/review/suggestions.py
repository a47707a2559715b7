"""What a sound but imperfect justification could become, from its verdict.

- narrow: antecedents the verdict calls unnecessary are dropped (at least one must remain);
- split: an ALL justification the verdict says should be ANY becomes one justification per
  (remaining) antecedent;
- merge: an ANY justification the verdict says should be ALL. Recorded only: joining the
  sibling justifications is a decision about several of them, left to a person.
Only a valid verdict gets a suggestion: an invalid justification is defeated instead.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.stages.arguments import ShownJustification
from engine.review.verdicts import Verdict


@dataclass(frozen=True)
class Suggestion:
    kind: str  # narrow, split, narrow+split, merge
    text: str
    antecedent_sets: tuple[tuple[str, ...], ...] = ()  # the new justifications' antecedents

    @property
    def applicable(self) -> bool:
        return bool(self.antecedent_sets)


def suggestion_for(v: Verdict, j: ShownJustification) -> Suggestion | None:
    if not v.valid:
        return None
    antecedents = j.antecedent_ids
    kept = tuple(a for a in antecedents if a not in v.unnecessary_antecedents)
    narrow = bool(kept) and len(kept) < len(antecedents)
    base = kept if narrow else antecedents
    split = v.mode == "ANY" and j.mode == "ALL" and len(base) >= 2
    if v.mode == "ALL" and j.mode == "ANY":
        return Suggestion("merge", "make this ANY justification one ALL justification with its "
                                   "siblings (recorded only)")
    dropped = [a for a in antecedents if a not in kept]
    if narrow and split:
        return Suggestion("narrow+split",
                          f"drop {', '.join(dropped)}; split the rest into one justification "
                          "per antecedent (ANY)", tuple((a,) for a in base))
    if narrow:
        return Suggestion("narrow", f"drop {', '.join(dropped)} (not load-bearing)", (base,))
    if split:
        return Suggestion("split", "split into one justification per antecedent (ANY)",
                          tuple((a,) for a in base))
    return None
