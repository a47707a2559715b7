"""Reads a repair reply (or a proposals file) into repairs and diagnostics. Never raises.

The reply's shapes are those engine/stages/replies.py reads. Diagnosed, each asking for the
one retry: no repairs in the reply; an item that is not an object; no id, or a belief and
justification the round did not show; an action that is not link, soften, abandon or
research; a link with no bridges; a soften or research with no text; a soften whose text is
the claim as it stands; a second repair of the same justification (the first is kept); every
justification left without a repair of a belief the reply does repair; and, when the round
can reach the graph, what a bridge breaks (unknown, not IN, the belief itself, resting on the
belief). A belief shown that no repair names is passed over, not a problem
(engine/stages/item_reader.py): the run shows it again after the others. No action is ever
taken by default: a justification without a usable repair stays as it is.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.repair.repairs import ACTIONS, LINK, SOFTEN, WITH_TEXT, Repair, key, same_claim
from engine.results import JsonValue
from engine.stages.item_reader import ItemsParse, JustificationReader, read_items, unanswered
from engine.stages.item_reader import flat_text as _text
from engine.stages.replies import Diagnostic, ReplyShape, bare_id, second_fills_gaps

SHAPE = ReplyShape("repairs", ("id", "action"))
# What the round showed: belief id -> defeated justification positions -> the claim.
Expected = Mapping[str, Mapping[int, str]]
# Graph checks of the round's repairs: key -> what is wrong (empty: nothing).
GraphCheck = Callable[[Sequence[Repair]], Mapping[str, Sequence[str]]]


@dataclass
class RepairParse(ItemsParse[Repair]):
    """Repairs read from one reply; `missing`: justification keys without a usable repair."""


def _ids(value: object) -> list[str]:
    raw = value if isinstance(value, list) else [] if value in (None, "") else [value]
    out: list[str] = []
    for v in raw:
        ident = bare_id(v)
        if ident and ident not in out:
            out.append(ident)
    return out


class _Reader(JustificationReader[RepairParse, str]):
    label = "repair"

    def read_answer(self, obj: Mapping[str, JsonValue], line: int, seen: set[str], belief: str,
                    where: str, shown: Mapping[int, str] | None, position: int) -> None:
        k = key(belief, position)
        action = bare_id(obj.get("action") or "").lower()
        if action not in ACTIONS:
            self.problem(f"{where} #{position}: action must be one of {', '.join(ACTIONS)}"
                         + (f", got {action!r}" if action else ", got none"), line)
            return
        bridges = _ids(obj.get("bridges"))
        text = _text(obj.get("text"))
        if action == LINK and not bridges:
            self.problem(f"{k}: link names no bridges (the IN beliefs that supply what was "
                         "missing)", line)
            return
        if action in WITH_TEXT and not text:
            self.problem(f"{k}: {action} needs a `text`", line)
            return
        if action == SOFTEN and shown is not None and same_claim(text, shown[position]):
            self.problem(f"{k}: the softened text is the claim as it stands; give a narrower "
                         "one", line)
            return
        if k in seen:
            self.problem(f"{where}: a second repair of {k}; the first is kept", line)
            return
        seen.add(k)
        self.out.items.append(Repair(
            belief, position, action, tuple(bridges) if action == LINK else (),
            text if action in WITH_TEXT else "", _text(obj.get("comment")), line))

    def graph(self, check: GraphCheck | None) -> None:
        if check is None or not self.out.items:
            return
        problems = check(self.out.items)
        kept = []
        for r in self.out.items:
            found = problems.get(r.key) or ()
            for reason in found:
                self.problem(f"{r.key}: {reason}", r.line)
            if not found:
                kept.append(r)
        self.out.items = kept

    def finish(self) -> RepairParse:
        if self.expected is not None:
            left = unanswered(self.expected, {r.key for r in self.out.items})
            self.unanswered(((k, belief) for k, belief, _ in left), self._no_repair)
        return self.out

    def _no_repair(self, key: str, belief: str) -> str:
        if any(d.reason.startswith(f"{key}: ") for d in self.out.diagnostics):
            return ""  # its repair was read and diagnosed
        return (f"no repair of {key} (belief '{belief}', justification "
                f"{key.rsplit('#', 1)[1]})")


def parse_reply(text: object, expected: Expected | None = None,
                graph_check: GraphCheck | None = None) -> RepairParse:
    """The repairs of a reply. `expected` (what the round showed) enables the id, number,
    claim and completeness checks, `graph_check` the bridge checks; without them (a
    proposals file) validation makes them later."""
    reader = _Reader(RepairParse(), expected)
    if read_items(text, SHAPE, "repair", reader, reader.read):
        reader.graph(graph_check)
    return reader.finish()


def combine(first: RepairParse, second: RepairParse) -> RepairParse:
    """After the retry: the second reply's repairs, plus the first's for justifications the
    second left out. What is still without a repair stays as it is (noted); the round is a
    format failure only when the second reply still has a problem and no repair was read at
    all (a well-formed second reply that repairs nothing is dry)."""
    by_key = second_fills_gaps(first.items, second.items, lambda r: r.key)
    still = [k for k in second.missing if k not in by_key]
    merged = RepairParse(items=list(by_key.values()), notes=first.notes + second.notes,
                         missing=still,
                         passed_over=[k for k in second.passed_over if k not in by_key])
    if merged.items:
        merged.notes = [Diagnostic("first reply: " + d.reason, d.line) for d in first.diagnostics] \
            + [Diagnostic("retry: " + d.reason, d.line) for d in second.diagnostics] + merged.notes
    else:
        merged.diagnostics = list(second.diagnostics)
    return merged
