"""The queue: every open proposal in one list, from agents (engine/proposals, through the
service) and from the stages' proposals files (stage_files.py), each a `Row` a person reads
and decides; what a row needs only when it is looked at (what-if, nearest beliefs, source
lines) is a `Detail`; a decision goes to the service verb that makes it.

A row's key says where it comes from: `agent:prop-3`, or `file:<file id>:<item key>` (the
file id is a short hash of its path). Rows decided since the page was drawn (a seq of the
change log) come back marked decided, so a page shows a decision made elsewhere.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.desk import stage_files
from engine.desk.stage_files import EditField, StageFile, StageTools, Unreadable
from engine.errors import InvalidInput
from engine.model import Belief
from engine.proposals.records import Proposal, Status
from engine.service import proposals as proposing
from engine.service import reading, staged
from engine.service.context import Context

AGENT = "agent"
FILE = "file"
OPEN = "open"
REASONS_SHOWN = 6  # at most this many ids of a what-if's cascade are listed by name


@dataclass(frozen=True)
class Ref:
    """A belief a proposal names: its label now ("new" for one the proposal adds, "missing"
    for an id nothing holds) and its text."""

    id: str
    truth: str
    text: str


@dataclass
class Row:
    key: str
    origin: str  # "agent" or the stage's name
    where: str  # the proposal's id and proposer, or the file and its run
    kind: str  # the verb (add, retract, ...) or the stage's item kind (DERIVE, GATE, ...)
    subject: str  # the belief it is about
    text: str
    antecedents: list[Ref] = field(default_factory=list)
    outlist: list[Ref] = field(default_factory=list)
    fields: list[tuple[str, str]] = field(default_factory=list)  # what else it says
    reason: str = ""  # the proposer's reason, or the item's label
    valid: bool = True
    verdict: str = ""  # the validation's notes
    impact_in: tuple[str, ...] = ()  # the what-if stored with an agent's proposal
    impact_out: tuple[str, ...] = ()
    status: str = OPEN
    decided: str = ""  # who decided it, when, why
    editable: list[EditField] = field(default_factory=list)

    @property
    def open(self) -> bool:
        return self.status == OPEN


@dataclass(frozen=True)
class Queue:
    rows: tuple[Row, ...]
    unreadable: tuple[Unreadable, ...]
    seq: int  # the change log's last seq when it was read

    @property
    def open_count(self) -> int:
        return sum(1 for r in self.rows if r.open)


def file_id(path: Path) -> str:
    return hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:10]


def file_key(f: StageFile, item_key: str) -> str:
    return f"{FILE}:{file_id(f.path)}:{item_key}"


def agent_key(proposal_id: str) -> str:
    return f"{AGENT}:{proposal_id}"


@dataclass(frozen=True)
class Sources:
    """Where the queue looks: the folders (or files) holding stages' proposals files."""

    folders: tuple[Path, ...]
    tools: StageTools

    def files(self) -> list[StageFile | Unreadable]:
        return stage_files.read_all(self.folders, self.tools)

    def file(self, fid: str) -> StageFile:
        for f in self.files():
            if isinstance(f, StageFile) and file_id(f.path) == fid:
                return f
        raise InvalidInput(f"no proposals file {fid} in the desk's folders (moved, or "
                           "written anew by another run)", field="key", value=fid)


# --- reading the queue ----------------------------------------------------------------------
def read_queue(ctx: Context, sources: Sources, since: int | None = None) -> Queue:
    """Every open proposal; with `since` (a seq), those decided after it too, as decided."""
    seq = last_seq(ctx)
    rows: list[Row] = []
    agents = proposing.list_proposals(ctx, pending=since is None).proposals
    decided_now = _agent_decisions(ctx, since) if since is not None else {}
    for p in agents:
        if p.status == Status.PENDING or p.id in decided_now:
            rows.append(_agent_row(p, decided_now.get(p.id, "")))
    unreadable: list[Unreadable] = []
    for f in sources.files():
        if isinstance(f, Unreadable):
            unreadable.append(f)
        else:
            rows += _file_rows(ctx, f, since)
    _fill_refs(ctx, rows)
    return Queue(tuple(rows), tuple(unreadable), seq)


def last_seq(ctx: Context) -> int:
    from engine.service import history

    found = history.log(ctx, history.LogOptions(limit=1)).entries
    return found[0].seq if found else 0


def _agent_decisions(ctx: Context, since: int) -> dict[str, str]:
    """Agents' proposals decided after `since`: id -> how."""
    from engine.service import history

    found = {}
    for e in history.changes_since(ctx, since).entries:
        pid = e.args.get("proposal")
        if isinstance(pid, str) and pid:
            how = {"proposal-reject": "rejected", "proposal-withdraw": "withdrawn"}.get(
                e.op, "accepted")
            found[pid] = f"{how} by {e.actor} (seq {e.seq})" + (
                f": {e.reason}" if how == "rejected" and e.reason else "")
    return found


def _agent_row(p: Proposal, decided: str) -> Row:
    a = p.args
    text = str(a.get("text") or "")
    antecedents: list[str] = []
    outlist: list[str] = []
    for j in a.get("justifications") or ():
        antecedents += [str(x) for x in j.get("antecedents") or ()]
        outlist += [str(x) for x in j.get("outlist") or ()]
    fields = [(k, _shown(v)) for k, v in sorted(a.items())
              if k not in ("text", "justifications", "id", "old", "pin") and v not in (None, "")]
    if a.get("pin"):
        pin = a["pin"]
        fields.append(("source", f"{pin.get('path')}:{pin['lines'][0]}-{pin['lines'][1]}"))
    status = OPEN if p.status == Status.PENDING else p.status.value
    return Row(
        key=agent_key(p.id), origin=AGENT, where=f"{p.id} by {p.proposer}, {p.at}",
        kind=p.action, subject=p.target, text=text,
        antecedents=[Ref(i, "", "") for i in dict.fromkeys(antecedents)],
        outlist=[Ref(i, "", "") for i in dict.fromkeys(outlist)], fields=fields,
        reason=p.reason, valid=not p.impact.error, verdict=p.impact.error,
        impact_in=p.impact.went_in, impact_out=p.impact.went_out, status=status,
        decided=decided or (f"{p.status.value} by {p.decided_by or p.superseded_by}"
                            if status != OPEN else ""),
        editable=_agent_editable(p))


AGENT_EDITABLE = {"add": ("text",), "supersede": ("text",), "retract": ("reason",),
                  "challenge": ("reason",)}


def _agent_editable(p: Proposal) -> list[EditField]:
    names = AGENT_EDITABLE.get(p.action, ())
    return [EditField(n, "text", str(p.args.get(n) or (p.reason if n == "reason" else "")))
            for n in names]


def _file_rows(ctx: Context, f: StageFile, since: int | None) -> list[Row]:
    decided = staged.decisions(ctx, f)
    checks = staged.check(ctx, f)
    rows = []
    for item in f.items:
        k = f.key(item)
        d = decided.get(k)
        if d is not None and (since is None or d.seq <= since):
            continue  # decided before the page was drawn (`accept FILE`): not in the queue
        rows.append(_item_row(f, item, checks, d))
    shown = {f.key(i) for i in f.items}
    if since is not None:  # decided since, and taken out of the file
        for k, d in decided.items():
            if k not in shown and d.seq > since:
                rows.append(Row(key=file_key(f, k), origin=f.stage.name,
                                where=_file_where(f), kind="", subject=k, text="",
                                status=d.status, decided=said(d)))
    return rows


def _file_where(f: StageFile) -> str:
    model = f", model {f.run.model}" if f.run.model else ""
    return f"{f.path.name}, run {f.run.id}{model}"


def said(d: staged.StagedDecision) -> str:
    if d.whole_file:
        return f"accepted with the whole file by `accept FILE` (run {d.by}, seq {d.seq})"
    return f"{d.status} by {d.by} (seq {d.seq})" + (f": {d.reason}" if d.reason else "")


def _item_row(f: StageFile, item: object, checks: staged.StagedChecks,
              decided: staged.StagedDecision | None) -> Row:
    d = f.as_dict(item)
    k = f.key(item)
    subject = str(d.get("id") or d.get("belief") or d.get("target") or k)
    text = str(d.get("text") or d.get("claim") or d.get("narrower") or "")
    antecedents = _strs(d.get("antecedents"))
    outlist = _strs(d.get("unless") or d.get("outlist"))
    members = _strs(d.get("members"))
    skip = ("id", "belief", "text", "claim", "antecedents", "unless", "outlist", "label",
            "line", "members", "chunk", "source_hash", "shown_sha256")
    kind = str(d.get("kind") or d.get("verdict") or d.get("action") or f.stage.name)
    fields = [(name, _shown(v)) for name, v in d.items()
              if name not in skip and v not in (None, "", [], ()) and _shown(v) != kind
              and not (name == "mode" and v == "ALL")]
    return Row(
        key=file_key(f, k), origin=f.stage.name, where=_file_where(f), kind=kind,
        subject=subject, text=text,
        antecedents=[Ref(i, "", "") for i in dict.fromkeys(antecedents + members)],
        outlist=[Ref(i, "", "") for i in dict.fromkeys(outlist)], fields=fields,
        reason=str(d.get("label") or d.get("comment") or ""),
        valid=k in checks.valid, verdict="valid now" if k in checks.valid
        else checks.skipped.get(k, "not valid now"),
        status=decided.status if decided else OPEN,
        decided=said(decided) if decided else "",
        editable=stage_files.edit_fields(item))


def _strs(v: object) -> list[str]:
    return [str(x) for x in v] if v and isinstance(v, Iterable) else []


def _shown(v: object) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(_shown(x) for x in v)
    if isinstance(v, Mapping):
        return ", ".join(f"{k}: {_shown(x)}" for k, x in v.items())
    return str(v)


def _fill_refs(ctx: Context, rows: Sequence[Row]) -> None:
    """Each named belief's label and text, all rows in one read."""
    ids = {r.id for row in rows for r in (*row.antecedents, *row.outlist)}
    ids |= {row.subject for row in rows}
    found = reading.beliefs(ctx, sorted(ids)).found if ids else {}
    for row in rows:
        row.antecedents = [_ref(found, r.id) for r in row.antecedents]
        row.outlist = [_ref(found, r.id) for r in row.outlist]
        b = found.get(row.subject)
        if b is not None and not row.text:
            row.text = b.text


def _ref(found: Mapping[str, Belief], ident: str) -> Ref:
    b = found.get(ident)
    if b is None:
        return Ref(ident, "missing", "")
    return Ref(ident, b.truth.value if b.truth else "", b.text)
