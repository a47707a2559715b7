"""A person's decisions at the desk, each passed to the service verb that makes it: an
agent's proposal accepted or rejected (engine/service/proposals.py: the write `eem accept` /
`eem reject` makes), a stage file's items accepted or rejected (engine/service/staged.py:
the write `<stage> accept FILE` makes, over the chosen items), an edited one accepted. The
context's actor is the person. A proposal decided elsewhere meanwhile is refused by the
verb (a proposal no longer pending; an item a decision already names) and reported as
decided, never applied twice.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.desk import stage_files
from engine.desk.queue import AGENT, FILE, Sources, said
from engine.errors import EngineError, InvalidInput
from engine.service import proposals as proposing
from engine.service import staged
from engine.service.context import Context

ACCEPT, REJECT = "accept", "reject"


@dataclass(frozen=True)
class Outcome:
    """What became of one row: its status now (accepted, rejected, open when refused), what
    the write changed, and the message a person reads."""

    key: str
    status: str
    message: str
    seq: int | None = None
    went_in: tuple[str, ...] = ()
    went_out: tuple[str, ...] = ()

    @property
    def done(self) -> bool:
        return self.status in (ACCEPT + "ed", REJECT + "ed")


def _split(keys: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Agents' proposal ids, and each file's item keys (by file id), in the order given."""
    agents: list[str] = []
    files: dict[str, list[str]] = {}
    for key in dict.fromkeys(keys):
        origin, _, rest = key.partition(":")
        if origin == AGENT and rest:
            agents.append(rest)
        elif origin == FILE and ":" in rest:
            fid, _, item = rest.partition(":")
            files.setdefault(fid, []).append(item)
        else:
            raise InvalidInput(f"no proposal {key!r}", field="key", value=key)
    return agents, files


def decide(ctx: Context, source: Sources, what: str, keys: Sequence[str], reason: str = ""
           ) -> list[Outcome]:
    """Accept or reject every row of `keys`: each agent's proposal on its own (one write
    each), each file's items together (one write per file)."""
    if what not in (ACCEPT, REJECT):
        raise InvalidInput(f"decide takes accept or reject, not {what!r}", field="decision")
    if what == REJECT and not reason.strip():
        raise InvalidInput("reject needs a reason: why", field="reason")
    agents, files = _split(keys)
    out = [_agent(ctx, what, pid, reason) for pid in agents]
    for fid, items in files.items():
        out += _file(ctx, source, what, fid, items, reason)
    return out


def _agent(ctx: Context, what: str, pid: str, reason: str) -> Outcome:
    key = f"{AGENT}:{pid}"
    try:
        if what == ACCEPT:
            done = proposing.accept(ctx, pid)
            return Outcome(key, "accepted", f"accepted {pid} (seq {done.seq})", done.seq,
                           tuple(done.change.went_in), tuple(done.change.went_out))
        proposing.reject(ctx, pid, reason)
        return Outcome(key, "rejected", f"rejected {pid}: {reason.strip()}")
    except EngineError as e:
        return _refused(ctx, key, pid, e)


def _refused(ctx: Context, key: str, pid: str, e: EngineError) -> Outcome:
    """An agent's proposal the verb refused: decided already (its status, by whom), or
    open still (drift, a verb error)."""
    try:
        p = proposing.show_proposal(ctx, pid).proposal
    except EngineError:
        return Outcome(key, "open", str(e))
    status = p.status.value
    if status == "pending":
        return Outcome(key, "open", str(e))
    by = p.decided_by or p.superseded_by
    return Outcome(key, status, f"{pid} was {status} by {by} meanwhile: not applied again")


def _file(ctx: Context, source: Sources, what: str, fid: str, items: list[str], reason: str
          ) -> list[Outcome]:
    try:
        f = source.file(fid)
    except EngineError as e:
        return [Outcome(f"{FILE}:{fid}:{k}", "open", str(e)) for k in items]
    decided = staged.decisions(ctx, f)
    held = set(f.keys())
    out = []
    for k in items:
        d = decided.get(k)
        if d is not None:
            out.append(Outcome(f"{FILE}:{fid}:{k}", d.status,
                               f"{k}: {said(d)} meanwhile; not applied again", d.seq))
        elif k not in held:
            out.append(Outcome(f"{FILE}:{fid}:{k}", "gone",
                               f"{k} is no longer in {f.path.name}"))
    todo = [k for k in items if k not in decided and k in held]
    if not todo:
        return out
    return out + _file_write(ctx, f, what, fid, todo, reason, {})


def _file_write(ctx: Context, f: stage_files.StageFile, what: str, fid: str,
                todo: list[str], reason: str, edited: Mapping[str, object]) -> list[Outcome]:
    keys = {k: f"{FILE}:{fid}:{k}" for k in todo}
    try:
        if what == REJECT:
            r = staged.reject(ctx, f, todo, reason)
            return [Outcome(keys[k], "rejected", f"rejected {k}: {r.reason}", r.seq)
                    for k in todo]
        a = staged.accept(ctx, f, todo, edited)
    except EngineError as e:
        return [Outcome(keys[k], "open", str(e)) for k in todo]
    return [Outcome(keys[k], "accepted", f"accepted {k} (seq {a.seq})", a.seq,
                    tuple(a.change.went_in), tuple(a.change.went_out))
            if k in a.applied else
            Outcome(keys[k], "open", f"not applied: {a.skipped.get(k, 'not valid now')}")
            for k in todo]


def accept_edited(ctx: Context, source: Sources, key: str, form: Mapping[str, str]
                  ) -> Outcome:
    """Accept a row as the person edited it. A file's item: the edited item in the file's
    place, in the one accept write. An agent's proposal: the edit proposed by the person
    (it supersedes the agent's, which stays on record), then accepted."""
    agents, files = _split([key])
    if agents:
        return _agent_edited(ctx, agents[0], form)
    fid, items = next(iter(files.items()))
    try:
        f = source.file(fid)
        item = stage_files.edited(f.item(items[0]), form)
    except EngineError as e:
        return Outcome(key, "open", str(e))
    if items[0] in staged.decisions(ctx, f):
        d = staged.decisions(ctx, f)[items[0]]
        return Outcome(key, d.status, f"{items[0]}: {said(d)} meanwhile; not applied again",
                       d.seq)
    return _file_write(ctx, f, ACCEPT, fid, items, "", {items[0]: item})[0]


def _agent_edited(ctx: Context, pid: str, form: Mapping[str, str]) -> Outcome:
    from engine.proposals.actions import justification_from_args
    from engine.service.keeping import Replacement
    from engine.service.network import NewBelief

    key = f"{AGENT}:{pid}"
    try:
        p = proposing.show_proposal(ctx, pid).proposal
        if p.status.value != "pending":
            return Outcome(key, p.status.value, f"{pid} was {p.status.value} by "
                                                f"{p.decided_by or p.superseded_by} meanwhile")
        a = p.args
        text = " ".join(str(form.get("text", a.get("text") or "")).split())
        why = " ".join(str(form.get("reason", "")).split()) or p.reason
        given = tuple(justification_from_args(j) for j in a.get("justifications") or ())
        note = f"{p.reason} (edited at the desk from {pid})"
        if p.action == "add":
            pin = a.get("pin") or {}
            source = (f"{pin['path']}:{pin['lines'][0]}-{pin['lines'][1]}" if pin else "")
            new = proposing.propose_add(ctx, NewBelief(
                str(a["id"]), text, given, source=source, quote=pin.get("quote") or None
                if pin else None, source_url=str(a.get("source_url") or ""),
                access_tags=a.get("access_tags") or ()), note)
        elif p.action == "supersede":
            new = proposing.propose_supersede(ctx, str(a["old"]), Replacement(
                a.get("new"), text or None, a.get("new_id"),
                given if a.get("justifications") is not None else None, a.get("rewire")),
                note)
        elif p.action == "retract":
            new = proposing.propose_retract(ctx, str(a["id"]), why)
        elif p.action == "challenge":
            new = proposing.propose_challenge(ctx, str(a["id"]), why, a.get("justification"),
                                              a.get("challenge_id"))
        else:
            raise InvalidInput(f"a proposed {p.action} has nothing to edit: accept or reject "
                               "it", field="key", value=pid)
        done = proposing.accept(ctx, new.proposal.id)
    except EngineError as e:
        return _refused(ctx, key, pid, e)
    return Outcome(key, "accepted", f"accepted {new.proposal.id}, {pid} as edited (seq "
                                    f"{done.seq})", done.seq, tuple(done.change.went_in),
                   tuple(done.change.went_out))

