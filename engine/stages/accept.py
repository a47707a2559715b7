"""`accept FILE`, for every stage: read a proposals file (written by a run without --auto,
perhaps edited since) with the stage's parser, validate it and apply the valid items in one
write transaction, recorded as a run of one round, strategy `accept`, whose prompt hash is
the hash of the file's text.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.errors import InvalidInput
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.rounds import apply_round, round_entry
from engine.stages.run import iso_utc, new_run_id, utc_now
from engine.stages.stage import Applied, LoopStage, ParsedReply, RunTxT
from engine.store import Store

# The note a proposals file carries: <!-- eem-<stage> run <id>, model <spec>, <time> -->
_RUN_NOTE = re.compile(r"<!--\s*eem-[a-z]+ run (\S+), model (\S+),")


@dataclass
class AcceptResult:
    run_id: str
    parse: ParsedReply
    applied: Applied

    def lines(self) -> list[str]:
        """What was rejected, skipped and applied, and the counts."""
        applied = self.applied
        return [*(f"rejected (line {d.line}): {d.reason}" if d.line else f"rejected: {d.reason}"
                  for d in self.parse.diagnostics),
                *(f"skipped {s.id}: {s.reason}" for s in applied.checked.skipped),
                *(f"applied {e.id}" + (f" [{e.truth_value}]" if e.truth_value else "")
                  for e in applied.entries),
                f"run {self.run_id}: {len(applied.entries)} applied, "
                f"{len(applied.checked.skipped)} skipped, "
                f"{len(self.parse.diagnostics)} rejected"]

    def as_dict(self) -> dict[str, object]:
        return {"run_id": self.run_id, "parse": self.parse.as_dict(),
                "applied": [dict(e) for e in self.applied.entries],
                "skipped": [s.as_dict() for s in self.applied.checked.skipped],
                "change": self.applied.change.as_dict()}


def read_proposals_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror or e}", field="file",
                           value=str(path)) from e
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{path} is not UTF-8 text: {e}", field="file", value=str(path)) from e


def accept(
    store: Store[RunTxT],
    stage: LoopStage[RunTxT],
    path: Path,
    *,
    params: Mapping[str, object] | None = None,
    now: Callable[[], datetime] = utc_now,
) -> AcceptResult:
    text = read_proposals_file(path)
    parsed = stage.parse(text, None)
    if parsed.needs_retry:
        detail = "; ".join(f"line {d.line}: {d.reason}" if d.line else d.reason
                           for d in list(parsed.diagnostics)[:3])
        raise InvalidInput(f"{path} holds nothing to accept" + (f" ({detail})" if detail else ""),
                           field="file", value=str(path))
    started = now()
    note = _RUN_NOTE.search(text)
    run = RunRecord(
        id=new_run_id(started),
        model=note.group(2) if note else "",
        started_at=iso_utc(started),
        params={"accept": str(path), "proposed_by_run": note.group(1) if note else None,
                **(params or {})},
        stage=stage.name,
    )
    record = RoundRecord(
        run_id=run.id, round=1, strategy="accept", stage=stage.name,
        prompt_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        at=run.started_at,
    )
    applied = store.write(
        lambda tx: apply_round(tx, stage, list(parsed.items), None, run, record),
        round_entry(stage, run, record, accept=str(path)))
    return AcceptResult(run.id, parsed, applied)
