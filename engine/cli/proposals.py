"""Writes queued for a person, from the command line: `propose VERB ...` (the verb's own
arguments, from verbs.py and keeping.py, plus --reason), proposals, proposal, accept,
reject, withdraw; each one call of engine/service/proposals.py."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli import keeping, verbs
from engine.cli.arguments import DEBUG, JSON, arg, command_parser, each
from engine.cli.command import Call, Command, listing, report_change, shorten

if TYPE_CHECKING:
    from engine.proposals.lifecycle import Proposed
    from engine.proposals.records import Impact, Proposal

ACTIONS = ("add", "add-justification", "retract", "assert", "supersede", "challenge")
EXAMPLES = {
    "add": "propose add cache-is-warm 'The cache is warm after deploy' --reason 'seen in logs'",
    "add-justification": "propose add-justification auth-bottleneck --sl load-test-p99 "
                         "--reason 'the load test shows it'",
    "retract": "propose retract auth-uses-jwt --reason 'moved to sessions'",
    "assert": "propose assert auth-uses-jwt --reason 'sessions were rolled back'",
    "supersede": "propose supersede auth-uses-jwt --text 'Auth validates JWTs and sessions' "
                 "--reason 'sessions since v2'",
    "challenge": "propose challenge auth-bottleneck --reason 'measured without the cache'",
}
VERBS: dict[str, Command] = {name: {**verbs.COMMANDS, **keeping.COMMANDS}[name]
                             for name in ACTIONS}


def _proposed(call: Call) -> Proposed:
    """The proposal the verb's arguments make, queued."""
    from engine.errors import InvalidInput
    from engine.service import proposals

    a, ctx, reason = call.args, call.context, call.args.reason or ""
    if a.verb == "add":
        return proposals.propose_add(ctx, verbs.new_belief(a), reason)
    if a.verb == "add-justification":
        return proposals.propose_add_justification(ctx, a.id, verbs.justifications_of(a),
                                                   reason)
    if a.verb == "retract":
        return proposals.propose_retract(ctx, a.id, reason)
    if a.verb == "assert":
        return proposals.propose_assert(ctx, a.id, reason)
    if a.verb == "supersede":
        if a.undo:
            raise InvalidInput("propose supersede takes no --undo: run supersede --undo",
                               field="undo")
        return proposals.propose_supersede(ctx, a.old, keeping.replacement_of(a), reason)
    return proposals.propose_challenge(ctx, a.id, reason, a.justification, a.challenge_id)


# --- rendering -----------------------------------------------------------------------------
def _impact_lines(impact: Impact) -> list[str]:
    if impact.error:
        return [f"cannot apply now: {impact.error}"]
    lines = [f"IN  {i}" for i in impact.went_in] + [f"OUT {i}" for i in impact.went_out]
    lines += [f"retracted by nogood: {i}" for i in impact.retracted_by_nogood]
    return lines or ["no label would change"]


def _what(p: Proposal) -> str:
    extra = {k: v for k, v in p.args.items() if v not in (None, "", [], {})
             and k not in ("id", "old")}
    shown = " ".join(f"{k}={v}" for k, v in sorted(extra.items()))
    return shorten(f"{p.action} {p.target}" + (f" ({shown})" if shown else ""), 100)


def _proposal_lines(p: Proposal) -> list[str]:
    lines = [f"{p.id}  [{p.status.value}]  {_what(p)}",
             f"  proposed by {p.proposer} at {p.at}: {p.reason}"]
    if p.superseded_by:
        lines.append(f"  superseded by {p.superseded_by}")
    if p.decided_by:
        lines.append(f"  {p.status.value} by {p.decided_by} at {p.decided_at}"
                     + (f": {p.decision_reason}" if p.decision_reason else "")
                     + (f" (change {p.change_seq})" if p.change_seq is not None else ""))
    if p.forced:
        lines.append(f"  forced past: {'; '.join(p.drift)}")
    return lines + ["  impact when proposed:", *(f"    {x}" for x in _impact_lines(p.impact))]


# --- handlers --------------------------------------------------------------------------------
def cmd_propose(call: Call) -> int:
    if call.args.verb == "from":
        return _propose_from(call)
    done = _proposed(call)
    if call.emit(done):
        return 0
    call.say(*_proposal_lines(done.proposal), *(f"  supersedes {old}" for old in done.superseded),
             "nothing changed in the network; accept with: "
             + call.command(f"accept {done.proposal.id}"))
    return 0


def _propose_from(call: Call) -> int:
    from pathlib import Path

    from engine.service import proposals

    a = call.args
    done = proposals.propose_from_file(call.context, Path(a.file), a.reason or "", a.root)
    if call.emit(done):
        return 0
    call.say(*(f"{p.proposal.id}  add {p.proposal.target}: " + ", ".join(
                   _impact_lines(p.proposal.impact)) for p in done.proposed),
             *(f"skipped {i}: {why}" for i, why in done.skipped),
             *(f"rejected (line {n}): {why}" if n else f"rejected: {why}"
               for n, why in done.rejected),
             f"{len(done.proposed)} proposed from {done.stage} run {done.run_id}, "
             f"{len(done.skipped)} skipped, {len(done.rejected)} rejected; nothing changed in "
             "the network; accept each with: " + call.command("accept PROPOSAL"))
    return 0


def cmd_proposals(call: Call) -> int:
    from engine.service import proposals

    found = proposals.list_proposals(call.context, pending=call.args.pending)
    listing(call, found, found.proposals,
            empty="no proposals" + (" pending" if call.args.pending else ""),
            row=lambda p: (p.id, p.status.value, p.action, p.target, p.proposer, p.at[:19],
                           shorten(p.reason, 40)),
            headers=["id", "status", "action", "target", "proposer", "at (UTC)", "reason"])
    return 0


def cmd_proposal(call: Call) -> int:
    from engine.service import proposals

    shown = proposals.show_proposal(call.context, call.args.id)
    if call.emit(shown):
        return 0
    call.say(*_proposal_lines(shown.proposal))
    if shown.fresh is not None:
        call.say("  impact now (what-if, nothing written):",
                 *(f"    {line}" for line in _impact_lines(shown.fresh)),
                 "  changed since proposed: " + ("; ".join(shown.drift) or "nothing"))
    return 0


def cmd_accept(call: Call) -> int:
    from engine.service import proposals

    done = proposals.accept(call.context, call.args.id, force=call.args.force)
    if call.emit(done):
        return 0
    p = done.proposal
    call.say(f"{p.id} accepted by {p.decided_by}: {_what(p)} (change {done.seq})")
    if p.forced:
        call.say(f"forced past: {'; '.join(p.drift)}")
    return report_change(call, done)


def cmd_reject(call: Call) -> int:
    from engine.service import proposals

    done = proposals.reject(call.context, call.args.id, call.args.reason or "")
    if not call.emit(done):
        call.say(f"{done.proposal.id} rejected by {done.proposal.decided_by}")
    return 0


def cmd_withdraw(call: Call) -> int:
    from engine.service import proposals

    done = proposals.withdraw(call.context, call.args.id)
    if not call.emit(done):
        call.say(f"{done.proposal.id} withdrawn by {done.proposal.decided_by}")
    return 0


# --- arguments -------------------------------------------------------------------------------
def _propose_arguments(p: argparse.ArgumentParser) -> None:
    """`propose`'s parser: one subcommand per verb, its arguments built by the verb's own
    function."""
    prog = p.prog.removesuffix(" propose")  # the program's name, python -m engine or eem
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name in ACTIONS:
        verb = VERBS[name]
        v = command_parser(sub, name, f"propose: {verb.help}",
                           f"Propose, for a person to accept: {verb.help}. Nothing in the "
                           "network changes.", f"{prog} {EXAMPLES[name]}")
        each(DEBUG, JSON)(v)
        verb.add_arguments(v)
        if not any(action.dest == "reason" for action in v._actions):
            v.add_argument("--reason", help="why (required): kept on the proposal")
    f = command_parser(
        sub, "from", "propose: every new belief of a derive or forge proposals file, one add "
        "proposal each", "Queue the beliefs a derive or forge run without --auto wrote to its "
        "proposals file (perhaps edited since) as add proposals, for a person to accept one by "
        "one; each is measured as `propose add` measures it, a forge premise pinned to its "
        "source as read now. Nothing in the network changes.",
        f"{prog} propose from proposed-derivations.md")
    each(arg("file", metavar="FILE", help="the stage's proposals file"),
         arg("--reason", default="",
             help="added to each proposal's reason (which names the run and model)"),
         arg("--root", default=None, metavar="DIR",
             help="where a forge file's sources are read (default: the memory's root)"),
         JSON, DEBUG)(f)


PROPOSAL = arg("id", metavar="PROPOSAL")


COMMANDS: dict[str, Command] = {
    "propose": Command(
        cmd_propose,
        "queue a verb (add, add-justification, retract, assert, supersede, challenge) "
        "for a person to accept; nothing in the network changes",
        EXAMPLES["retract"], _propose_arguments, json=False),
    "proposals": Command(cmd_proposals, "the proposals, oldest first (--pending: those "
                         "waiting)", "proposals --pending",
                         arg("--pending", action="store_true", help="pending proposals only")),
    "proposal": Command(cmd_proposal, "one proposal, with a fresh what-if beside the one "
                        "stored and what changed since", "proposal prop-3", PROPOSAL),
    "accept": Command(cmd_accept,
                      "apply a pending proposal in one transaction, refused when what it "
                      "depends on changed (--force: apply anyway, recorded)",
                      "accept prop-3",
                      (PROPOSAL, arg("--force", action="store_true", help="apply even though "
                                     "what it depends on changed (recorded on it)"))),
    "reject": Command(cmd_reject, "reject a pending proposal, saying why",
                      "reject prop-3 --reason 'the benchmark ran without the cache'",
                      (PROPOSAL, arg("--reason", required=True,
                                     help="why it is rejected (kept on it)"))),
    "withdraw": Command(cmd_withdraw, "withdraw your own pending proposal",
                        "withdraw prop-3", PROPOSAL),
}
