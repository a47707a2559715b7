"""A stage run's report: typed records of every round and of the run, written as JSON to
`<stage>-<UTC timestamp>.json`, and the summary table printed at the end.

The file is rewritten atomically after each round, so a reader never sees half a report:
`status` is `partial` while the run goes on, then `complete` or `error`. Each round holds
everything the replay back-end and an auditor need, `responses` (the raw text of every call,
in order) included.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine.files import write_text_atomically
from engine.model import Change, Truth
from engine.stages.echo import ECHO_REASON
from engine.stages.stage import Action, AppliedEntry, ParsedReply, Skip
from engine.stages.turns import HELD_BACK, RELEASED, WAITING_ON

REPORT_VERSION = 2


class Outcome(StrEnum):
    PROPOSED = "proposed"  # at least one valid item
    DRY = "dry"  # an explicit "nothing", or nothing valid
    FORMAT_FAILURE = "format_failure"  # still unreadable after the retry: not saturation
    EMPTY = "empty"  # nothing to show; the model was not called
    ERROR = "error"  # the model or the store failed; nothing of the round applied


class RunStatus(StrEnum):
    PARTIAL = "partial"
    COMPLETE = "complete"
    ERROR = "error"


class StopReason(StrEnum):
    ONE_ROUND = "one round"
    DRY_ROUNDS = "dry rounds"
    NOTHING_LEFT = "nothing left"  # an exhaust run's round found nothing to show
    MAX_ROUNDS = "max rounds"
    ERROR = "error"
    CRASHED = "crashed"


def stop_description(reason: StopReason, *, dry_streak: int = 0, max_rounds: int = 0) -> str:
    if reason is StopReason.DRY_ROUNDS:
        return f"{dry_streak} consecutive dry round(s)"
    if reason is StopReason.MAX_ROUNDS:
        return f"max rounds ({max_rounds})"
    if reason is StopReason.NOTHING_LEFT:
        return "nothing left to show"
    return reason.value


@dataclass
class RoundResult:
    """One round, as it happened: what it showed, what came back, what was applied."""

    n: int  # 1-based
    stage: str = ""
    strategy: str = ""
    cluster: int | None = None
    shown: tuple[str, ...] = ()
    first_shown: int | None = None  # of `shown`, first shown in this run (stages with turns)
    details: dict[str, object] = field(default_factory=dict)  # the stage's own (JSON values)
    prompt: str = ""
    prompt_sha256: str = ""
    responses: list[str] = field(default_factory=list)
    parse: ParsedReply | None = None
    first_parse: ParsedReply | None = None  # the reply that was retried, when it was
    proposals: list[object] = field(default_factory=list)
    proposal_dicts: list[dict[str, object]] = field(default_factory=list)  # as the report shows
    proposal_keys: list[str] = field(default_factory=list)  # stage.item_key of each proposal
    valid: list[Any] = field(default_factory=list)  # the stage's items, of its own type
    valid_keys: list[str] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    applied: list[AppliedEntry] = field(default_factory=list)
    change: Change = field(default_factory=Change)
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0  # model invocations, failed tries included
    rate_limited: int = 0  # of the calls, those refused for the rate (429) and tried again
    seconds: float = 0.0
    outcome: Outcome | None = None
    error: str | None = None
    call_errors: list[str] = field(default_factory=list)

    @property
    def is_dry(self) -> bool:
        return self.outcome in (Outcome.DRY, Outcome.EMPTY)

    @property
    def applied_in(self) -> int:
        """Applied entries whose belief is IN after the round."""
        return sum(1 for a in self.applied if a.get("truth_value") == Truth.IN.value)

    def count(self, action: Action) -> int:
        """Applied entries with this action."""
        return sum(1 for a in self.applied if a.get("action", Action.ADDED.value) == action.value)

    def valid_flags(self) -> list[bool]:
        """Per proposal, whether it passed validation: matched to the valid items by key, in
        order, so of two proposals with one key only as many count as were kept."""
        left: dict[str, int] = {}
        for k in self.valid_keys:
            left[k] = left.get(k, 0) + 1
        flags = []
        for k in self.proposal_keys:
            flags.append(left.get(k, 0) > 0)
            if flags[-1]:
                left[k] -= 1
        return flags

    def to_json(self) -> dict[str, object]:
        return {
            "round": self.n,
            "stage": self.stage,
            "outcome": self.outcome.value if self.outcome else None,
            "strategy": self.strategy,
            "cluster": self.cluster,
            "shown": list(self.shown),
            **({} if self.first_shown is None else {"first_shown": self.first_shown}),
            **self.details,
            "prompt": self.prompt,
            "prompt_sha256": self.prompt_sha256,
            "response": self.responses[-1] if self.responses else "",
            "responses": list(self.responses),
            "parse": self.parse.as_dict() if self.parse else None,
            "format_retry": self.first_parse.as_dict() if self.first_parse else None,
            "proposals_found": len(self.proposals),
            "valid": len(self.valid),
            "proposals": [dict(d, valid=ok)
                          for d, ok in zip(self.proposal_dicts, self.valid_flags())],
            "skipped": [s.as_dict() for s in self.skipped],
            "applied": [dict(a) for a in self.applied],
            "change": self.change.as_dict(),
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
            "calls": self.calls,
            "rate_limited": self.rate_limited,
            "call_errors": list(self.call_errors),
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


@dataclass(frozen=True)
class Totals:
    rounds: int
    calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    seconds: float
    proposals_found: int
    valid: int
    skipped: int
    applied: int
    applied_in: int
    went_in: int
    went_out: int
    dry_rounds: int
    format_failures: int
    echoes: int = 0  # items skipped for echoing the prompt (engine/stages/echo.py)
    rate_limited: int = 0  # model calls refused for the rate (429), waited on and retried

    @classmethod
    def of(cls, rounds: list[RoundResult], cost: Callable[[int, int], float | None] | None
           ) -> "Totals":
        tokens_in = sum(r.tokens_in for r in rounds)
        tokens_out = sum(r.tokens_out for r in rounds)
        return cls(
            rounds=len(rounds),
            calls=sum(r.calls for r in rounds),
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=cost(tokens_in, tokens_out) if cost else None,
            seconds=round(sum(r.seconds for r in rounds), 3),
            proposals_found=sum(len(r.proposals) for r in rounds),
            valid=sum(len(r.valid) for r in rounds),
            skipped=sum(len(r.skipped) for r in rounds),
            applied=sum(len(r.applied) for r in rounds),
            applied_in=sum(r.applied_in for r in rounds),
            went_in=sum(len(r.change.went_in) for r in rounds),
            went_out=sum(len(r.change.went_out) for r in rounds),
            dry_rounds=sum(1 for r in rounds if r.is_dry),
            format_failures=sum(1 for r in rounds if r.outcome is Outcome.FORMAT_FAILURE),
            echoes=sum(1 for r in rounds for s in r.skipped if s.reason == ECHO_REASON),
            rate_limited=sum(r.rate_limited for r in rounds),
        )

    def to_json(self) -> dict[str, object]:
        return {
            "rounds": self.rounds, "calls": self.calls,
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
            "cost_usd": self.cost_usd, "seconds": self.seconds,
            "proposals_found": self.proposals_found, "valid": self.valid,
            "skipped": self.skipped, "applied": self.applied, "applied_in": self.applied_in,
            "went_in": self.went_in, "went_out": self.went_out,
            "dry_rounds": self.dry_rounds, "format_failures": self.format_failures,
            "echoes": self.echoes, "rate_limited": self.rate_limited,
        }


@dataclass
class Discarded:
    """Rounds asked in parallel but not applied because the run stopped before them."""

    rounds: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    rate_limited: int = 0

    def add(self, result: RoundResult) -> None:
        self.rounds += 1
        self.calls += result.calls
        self.tokens_in += result.tokens_in
        self.tokens_out += result.tokens_out
        self.rate_limited += result.rate_limited

    def to_json(self) -> dict[str, object]:
        return {"rounds": self.rounds, "calls": self.calls, "rate_limited": self.rate_limited,
                "tokens": {"input": self.tokens_in, "output": self.tokens_out}}


@dataclass
class RunReport:
    stage: str
    run_id: str
    model: str
    started_at: str
    params: dict[str, object]
    status: RunStatus = RunStatus.PARTIAL
    rounds: list[RoundResult] = field(default_factory=list)
    finished_at: str | None = None
    stop_reason: StopReason | None = None
    stopped: str | None = None  # the stop reason in words ("2 consecutive dry round(s)")
    error: str | None = None
    proposals_file: Path | None = None
    cost: Callable[[int, int], float | None] | None = None
    parallel: int = 1  # model calls in flight at once (--parallel)
    discarded: Discarded | None = None  # rounds asked in parallel, not applied (the run stopped)
    # a stage with turns: the items shown and never judged in the run, with their showings
    unanswered: dict[str, int] | None = None

    @property
    def totals(self) -> Totals:
        return Totals.of(self.rounds, self.cost)

    def to_json(self) -> dict[str, object]:
        return {
            "version": REPORT_VERSION,
            "stage": self.stage,
            "run_id": self.run_id,
            "status": self.status.value,
            "model": self.model,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "params": self.params,
            "parallel": self.parallel,
            "discarded": self.discarded.to_json() if self.discarded is not None else None,
            **({} if self.unanswered is None else {"unanswered": dict(self.unanswered)}),
            "rounds": [r.to_json() for r in self.rounds],
            "totals": self.totals.to_json(),
            "stop_reason": self.stop_reason.value if self.stop_reason else None,
            "stopped": self.stopped,
            "error": self.error,
            "proposals_file": str(self.proposals_file) if self.proposals_file else None,
        }


NAMED = 8  # ids a console line names before it says how many more
GROUPS_NAMED = 5  # the beliefs held back, grouped by what they wait on: groups named per round


def _some(ids: Sequence[str]) -> str:
    more = len(ids) - NAMED
    return ", ".join(ids[:NAMED]) + (f" (+{more} more)" if more > 0 else "")


def round_notes(r: RoundResult) -> list[str]:
    """What a round of a stage with turns (engine/stages/turns.py) says beside its counts:
    what the model passed over, what was shown anyway, and what is held back and waits on
    which unreviewed belief (grouped by that belief, marked when it is held back itself)."""
    lines = []
    passed = list(getattr(r.parse, "passed_over", ()) or ())
    if passed:
        lines.append(f"passed over (no answer; shown again after the rest): {_some(passed)}")
    released = r.details.get(RELEASED)
    if isinstance(released, list) and released:
        lines.append("held back only by unanswered beliefs, shown once anyway: "
                     f"{_some([str(i) for i in released])}")
    held = r.details.get(WAITING_ON)
    waiting_on: dict[str, list[str]] = held if isinstance(held, dict) else {}
    if waiting_on:
        by_target: dict[str, list[str]] = {}
        for held, targets in waiting_on.items():
            for target in targets:
                by_target.setdefault(target, []).append(held)
        groups = sorted(by_target.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        shown = "; ".join(f"on {target}{' (held back)' if target in waiting_on else ''}: "
                          f"{_some(held)}" for target, held in groups[:GROUPS_NAMED])
        rest = len(groups) - GROUPS_NAMED
        lines.append(f"{r.details.get(HELD_BACK, len(waiting_on))} held back until what they "
                     f"rest on is reviewed, waiting {shown}"
                     + (f"; and on {rest} more (the report lists them)" if rest > 0 else ""))
    return [f"round {r.n}: {line}" for line in lines]


def round_progress(r: RoundResult) -> list[str]:
    """A round's lines as it ends, for a face's progress: its counts, then its notes."""
    if r.error:
        return [f"round {r.n}: error: {r.error}"]
    return [f"round {r.n}: {r.outcome}: {len(r.shown)} shown, {len(r.proposals)} proposed, "
            f"{len(r.valid)} valid, {len(r.applied)} applied ({r.applied_in} IN), "
            f"{len(r.skipped)} skipped; {r.calls} call(s), {r.tokens_in}+{r.tokens_out} "
            f"tokens, {r.seconds:.1f} s", *round_notes(r)]


def run_summary(report: RunReport, path: Path | None, apply_with: str = "") -> list[str]:
    """A run as a face shows it: the table of rounds, how it stopped, what was never
    judged, where the report is, and the proposals file with `apply_with` (the command
    that applies it)."""
    unanswered = unanswered_line(report)
    return [summary_table(report),
            f"run {report.run_id}: {report.status.value}, stopped: {report.stopped}",
            *([unanswered] if unanswered else []), *([f"report: {path}"] if path else []),
            *([f"proposals: {report.proposals_file} (apply with: {apply_with})"]
              if report.proposals_file else [])]


def unanswered_line(report: RunReport) -> str | None:
    """The run's items shown and never judged, with their showings; None when there are none."""
    if not report.unanswered:
        return None
    items = [f"{k} ({n}x)" for k, n in report.unanswered.items()]
    return f"shown and never judged: {len(items)}: {_some(items)}"


def report_path(report_dir: Path, started: datetime, stage: str = "derive") -> Path:
    """A new file name in `report_dir` for a `stage` run started at `started` (UTC)."""
    stem = f"{stage}-" + started.strftime("%Y%m%dT%H%M%SZ")
    path = report_dir / f"{stem}.json"
    n = 2
    while path.exists():
        path = report_dir / f"{stem}-{n}.json"
        n += 1
    return path


class ReportFile:
    """Where the report goes; `path` None (`--no-report`) writes nothing."""

    def __init__(self, path: Path | None, *, umask: int | None = None):
        self.path = path
        self.umask = umask  # the caller's, for the file (None: this process's)

    def write(self, report: RunReport) -> None:
        if self.path is None:
            return
        text = json.dumps(report.to_json(), indent=2, ensure_ascii=False, default=str) + "\n"
        write_text_atomically(self.path, text, umask=self.umask)


def summary_table(report: RunReport) -> str:
    """One line per round and a totals line, as a plain-text table."""
    header = ("round", "outcome", "strategy", "shown", "found", "valid", "applied", "in",
              "skipped", "tokens in", "tokens out", "calls", "seconds")
    rows = []
    for r in report.rounds:
        strategy = r.strategy + (f" #{r.cluster}" if r.cluster is not None else "")
        rows.append((
            str(r.n), r.outcome.value if r.outcome else "", strategy, str(len(r.shown)),
            str(len(r.proposals)), str(len(r.valid)), str(len(r.applied)), str(r.applied_in),
            str(len(r.skipped)), str(r.tokens_in), str(r.tokens_out), str(r.calls),
            f"{r.seconds:.1f}",
        ))
    t = report.totals
    rows.append((
        "total", report.status.value, "", "", str(t.proposals_found), str(t.valid),
        str(t.applied), str(t.applied_in), str(t.skipped), str(t.tokens_in),
        str(t.tokens_out), str(t.calls), f"{t.seconds:.1f}",
    ))
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) for i in range(len(header))]

    def fmt(row: Sequence[str]) -> str:
        return "  ".join(cell.ljust(widths[i]) if i < 3 else cell.rjust(widths[i])
                         for i, cell in enumerate(row)).rstrip()

    lines = [fmt(header), fmt(tuple("-" * w for w in widths))]
    lines += [fmt(row) for row in rows]
    return "\n".join(lines)
