"""Checks repairs against the graph as it is now; reads only. Used twice: by the parse of a
round's reply (so what is wrong is diagnosed and asked again) and inside the write
transaction before anything is written (the graph may have moved since).

A repair is refused, with its reason, when a text echoes the prompt's format; when its
justification is no longer defeated, or repair already answered it; when a bridge does not
exist, is not IN, is the belief itself or rests on it; when a softened claim is the claim
as it stands, or the belief is superseded already, or softened twice in one round.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from engine.model import Truth
from engine.repair.due import Defeated, read_due
from engine.memory.records import Editing
from engine.repair.prompt import FORMAT
from engine.repair.records import RepairTx
from engine.repair.repairs import LINK, SOFTEN, Repair, same_claim
from engine.stages.echo import ECHO_REASON, PromptEcho
from engine.stages.stage import Checked, Skip
from engine.tms.records import TmsTx

ECHO = PromptEcho.of(FORMAT)


class RepairCheckTx(TmsTx, Editing, RepairTx, Protocol):
    """What checking repairs reads: the beliefs and what they rest on (TmsTx), supersede
    records (Editing), what is due (RepairTx)."""


def bridge_problems(tx: TmsTx, repairs: Sequence[Repair]) -> dict[str, list[str]]:
    """What is wrong with the bridges of each link (by repair key)."""
    links = [r for r in repairs if r.action == LINK]
    found = tx.get_beliefs({b for r in links for b in r.bridges})
    out: dict[str, list[str]] = {}
    for r in links:
        problems = []
        standing = []
        for b in r.bridges:
            belief = found.get(b)
            if b == r.belief:
                problems.append(f"bridge '{b}' is the belief itself")
            elif belief is None:
                problems.append(f"bridge '{b}' does not exist")
            elif belief.truth is not Truth.IN:
                problems.append(f"bridge '{b}' is {belief.truth.value if belief.truth else 'OUT'}"
                                ", not IN")
            else:
                standing.append(b)
        if standing and r.belief in tx.upstream(standing):
            problems += [f"bridge '{b}' rests on '{r.belief}'" for b in standing
                         if r.belief in tx.upstream([b])]
        if problems:
            out[r.key] = problems
    return out


def check_repairs(tx: RepairCheckTx, repairs: Sequence[Repair]
                  ) -> tuple[Checked[Repair], dict[str, Defeated]]:
    """The valid repairs, and the defeated justification each answers (by key)."""
    due = {d.key: d for d in read_due(tx).due}
    claims = tx.get_beliefs({r.belief for r in repairs})
    bridges = bridge_problems(tx, [r for r in repairs if r.key in due])
    out: Checked[Repair] = Checked()
    softened: set[str] = set()
    for r in repairs:
        def skip(reason: str, r: Repair = r) -> None:
            out.skipped.append(Skip(id=r.key, reason=reason, line=r.line))

        if ECHO.echoed(r.text, r.comment, *r.bridges):
            skip(ECHO_REASON)
        elif r.belief not in claims:
            skip(f"belief '{r.belief}' does not exist")
        elif r.key not in due:
            skip(f"justification {r.justification} of '{r.belief}' is not defeated, or "
                 "repair already answered it")
        elif r.key in bridges:
            skip("; ".join(bridges[r.key]))
        elif r.action == SOFTEN and same_claim(r.text, claims[r.belief].text):
            skip("the softened text is the claim as it stands")
        elif r.action == SOFTEN and tx.supersede_record(r.belief) is not None:
            skip(f"'{r.belief}' is superseded already")
        elif r.action == SOFTEN and r.belief in softened:
            skip(f"'{r.belief}' is softened once a round")
        else:
            if r.action == SOFTEN:
                softened.add(r.belief)
            out.valid.append(r)
    return out, {r.key: due[r.key] for r in out.valid}


def graph_problems(tx: RepairCheckTx, repairs: Sequence[Repair]) -> Mapping[str, Sequence[str]]:
    """For the parse: every refusal, by key, as the diagnosis to quote in the retry."""
    checked, _ = check_repairs(tx, repairs)
    out: dict[str, list[str]] = {}
    for s in checked.skipped:
        if s.reason != ECHO_REASON:  # an echo is refused by validation and counted there
            out.setdefault(s.id, []).append(s.reason)
    return out
