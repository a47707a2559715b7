"""`python -m engine propose VERB ...`, `proposals`, `proposal`, `accept`, `reject`,
`withdraw`: writes queued for a person (engine/proposals/). A thin skin like
engine/cli/tms.py, whose table takes these COMMANDS. `propose VERB` parses exactly the
arguments of the verb's own command (its parser is built by the verb's own function, from
engine/cli/verbs.py and engine/cli/memory.py), plus --reason where the verb has none."""
from __future__ import annotations

import argparse
from typing import Any

from engine.agents.namespace import placed_in
from engine.cli import memory, sources, verbs
from engine.cli.command import PROG, Command, justifications_of, report_change
from engine.cli.memory import supersede_justifications
from engine.cli.support import print_json, print_listing, shorten
from engine.errors import InvalidInput
from engine.proposals import lifecycle
from engine.proposals.actions import ACTIONS, justification_args, pin_args
from engine.proposals.records import Impact, Proposal
from engine.tms.access import parse_tags

VERBS: dict[str, Command] = {**verbs.COMMANDS, **memory.COMMANDS}  # what propose may queue
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


# --- from the verb's parsed arguments to a proposal's action --------------------------------
def action_args(verb: str, args: argparse.Namespace, store: Any = None) -> dict[str, Any]:
    """The verb's arguments in library form (JSON), as engine/proposals/actions.py reads them."""
    def js(found: tuple | None) -> list[dict[str, Any]] | None:
        return None if found is None else [justification_args(j) for j in found]

    if verb == "add":
        found = {"id": args.id, "text": args.text, "justifications": js(justifications_of(args)),
                 "source": args.source or "", "source_url": args.source_url or ""}
        claim = sources.claim_of(args, store)  # read and grounded now, as `add` does; refused alike
        if claim is not None:
            if args.namespace:
                raise InvalidInput("--namespace and --source do not go together",
                                   field="namespace")
            found.update(source=claim.path, pin=pin_args(claim))
        if args.namespace:  # placed now, as `add` places it: the target is NAME:ID
            ident, placed = placed_in(args.namespace, args.id, justifications_of(args))
            found.update(id=ident, justifications=js(placed), namespace=args.namespace)
        if getattr(args, "access_tags", None):
            found["access_tags"] = list(parse_tags(args.access_tags))
        return found
    if verb == "add-justification":
        return {"id": args.id, "justifications": js(justifications_of(args))}
    if verb == "retract":
        return {"id": args.id, "reason": args.reason or ""}
    if verb == "assert":
        return {"id": args.id}
    if verb == "supersede":
        if args.undo:
            raise InvalidInput("propose supersede takes no --undo: run supersede --undo",
                               field="undo")
        return {"old": args.old, "new": args.new, "text": args.text, "new_id": args.new_id,
                "justifications": js(supersede_justifications(args)), "rewire": args.rewire,
                "reason": args.reason or ""}
    if verb == "challenge":
        return {"id": args.id, "reason": args.reason or "", "justification": args.justification,
                **({"challenge_id": args.challenge_id} if args.challenge_id else {})}
    raise InvalidInput(f"propose takes one of {', '.join(ACTIONS)}, not {verb!r}", field="verb")


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


def _print_proposal(p: Proposal) -> None:
    print(f"{p.id}  [{p.status.value}]  {_what(p)}")
    print(f"  proposed by {p.proposer} at {p.at}: {p.reason}")
    if p.superseded_by:
        print(f"  superseded by {p.superseded_by}")
    if p.decided_by:
        print(f"  {p.status.value} by {p.decided_by} at {p.decided_at}"
              + (f": {p.decision_reason}" if p.decision_reason else "")
              + (f" (change {p.change_seq})" if p.change_seq is not None else ""))
    if p.forced:
        print(f"  forced past: {'; '.join(p.drift)}")
    print("  impact when proposed:")
    for line in _impact_lines(p.impact):
        print(f"    {line}")


# --- handlers --------------------------------------------------------------------------------
def cmd_propose(store, args) -> int:
    done = lifecycle.propose(store, args.verb, action_args(args.verb, args, store),
                             args.reason or "")
    if args.json:
        print_json(done.as_dict())
        return 0
    _print_proposal(done.proposal)
    for older in done.superseded:
        print(f"  supersedes {older}")
    print(f"nothing changed in the network; accept with: {PROG} accept {done.proposal.id}")
    return 0


def cmd_proposals(store, args) -> int:
    found = lifecycle.list_proposals(store, pending=args.pending)
    print_listing(found, as_json=args.json,
                  empty="no proposals" + (" pending" if args.pending else ""),
                  row=lambda p: (p.id, p.status.value, p.action, p.target, p.proposer,
                                 p.at[:19], shorten(p.reason, 40)),
                  headers=["id", "status", "action", "target", "proposer", "at (UTC)", "reason"])
    return 0


def cmd_proposal(store, args) -> int:
    shown = lifecycle.show_proposal(store, args.id)
    if args.json:
        print_json(shown.as_dict())
        return 0
    _print_proposal(shown.proposal)
    if shown.fresh is not None:
        print("  impact now (what-if, nothing written):")
        for line in _impact_lines(shown.fresh):
            print(f"    {line}")
        print("  changed since proposed: " + ("; ".join(shown.drift) or "nothing"))
    return 0


def cmd_accept(store, args) -> int:
    done = lifecycle.accept(store, args.id, force=args.force)
    if args.json:
        print_json(done.as_dict())
        return 0
    p = done.proposal
    print(f"{p.id} accepted by {p.decided_by}: {_what(p)} (change {done.seq})")
    if p.forced:
        print(f"forced past: {'; '.join(p.drift)}")
    return report_change(done.change, args)


def cmd_reject(store, args) -> int:
    p = lifecycle.reject(store, args.id, args.reason or "")
    print_json(p.as_dict()) if args.json else print(f"{p.id} rejected by {p.decided_by}")
    return 0


def cmd_withdraw(store, args) -> int:
    p = lifecycle.withdraw(store, args.id)
    print_json(p.as_dict()) if args.json else print(f"{p.id} withdrawn by {p.decided_by}")
    return 0


# --- arguments -------------------------------------------------------------------------------
def _propose_arguments(p: argparse.ArgumentParser) -> None:
    """`propose`'s parser: one subcommand per verb, its arguments built by the verb's own
    function (`VERBS[name].arguments`)."""
    prog = p.prog.removesuffix(" propose")  # the program's name, python -m engine or eem
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name in ACTIONS:
        verb = VERBS[name]
        v = sub.add_parser(name, help=f"propose: {verb.help}",
                           description=f"Propose, for a person to accept: {verb.help}. "
                                       "Nothing in the network changes.",
                           epilog=f"example: {prog} {EXAMPLES[name]}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        v.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show tracebacks")
        v.add_argument("--json", action="store_true", help="print JSON")
        verb.arguments(v)
        if not any(a.dest == "reason" for a in v._actions):
            v.add_argument("--reason", help="why (required): kept on the proposal")


def _id_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="PROPOSAL")


def _proposals_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pending", action="store_true", help="pending proposals only")


def _accept_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="PROPOSAL")
    p.add_argument("--force", action="store_true",
                   help="apply even though what it depends on changed (recorded on it)")


def _reject_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="PROPOSAL")
    p.add_argument("--reason", required=True, help="why it is rejected (kept on it)")


COMMANDS: dict[str, Command] = {
    "propose": Command(
        cmd_propose,
        "queue a verb (add, add-justification, retract, assert, supersede, challenge) "
        "for a person to accept; nothing in the network changes",
        EXAMPLES["retract"], _propose_arguments, json=False),
    "proposals": Command(cmd_proposals, "the proposals, oldest first (--pending: those "
                         "waiting)", "proposals --pending", _proposals_arguments),
    "proposal": Command(cmd_proposal, "one proposal, with a fresh what-if beside the one "
                        "stored and what changed since", "proposal prop-3", _id_arguments),
    "accept": Command(cmd_accept,
                      "apply a pending proposal in one transaction, refused when what it "
                      "depends on changed (--force: apply anyway, recorded)",
                      "accept prop-3", _accept_arguments),
    "reject": Command(cmd_reject, "reject a pending proposal, saying why",
                      "reject prop-3 --reason 'the benchmark ran without the cache'",
                      _reject_arguments),
    "withdraw": Command(cmd_withdraw, "withdraw your own pending proposal",
                        "withdraw prop-3", _id_arguments),
}
