"""`accept FILE`: validate and apply a proposals file (proposed-premises.md, perhaps edited)
in one write transaction, recorded as a forge run of one round, strategy `accept`. Each quote
is grounded again in the source as it is now, so an edit since the proposal is caught.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.errors import InvalidInput
from engine.forge.run import iso_utc, new_run_id, utc_now
from engine.forge.stage import ForgeStage
from engine.provenance import RoundRecord, RunRecord
from engine.stages.stage import Applied, Parsed
from engine.store import Store

_RUN_NOTE = re.compile(r"<!--\s*eem-forge run (\S+), model (\S+),")


@dataclass
class AcceptResult:
    run_id: str
    parsed: Parsed
    applied: Applied


def accept(store: Store, stage: ForgeStage, path: Path, *,
           now: Callable[[], datetime] = utc_now) -> AcceptResult:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror or e}", field="file",
                           value=str(path)) from e
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{path} is not UTF-8 text: {e}", field="file", value=str(path)) from e
    parsed = stage.parse(text, None)
    if not parsed.items and not parsed.nothing_to_say:
        detail = "; ".join(d.reason for d in parsed.diagnostics[:3])
        raise InvalidInput(f"{path} holds no premise to accept ({detail})", field="file",
                           value=str(path))
    started = now()
    note = _RUN_NOTE.search(text)
    run = RunRecord(new_run_id(started), note.group(2) if note else "", iso_utc(started),
                    {"accept": str(path), "proposed_by_run": note.group(1) if note else None},
                    stage="forge")
    record = RoundRecord(run.id, 1, hashlib.sha256(text.encode("utf-8")).hexdigest(),
                         strategy="accept", stage="forge")

    def write(tx) -> Applied:
        applied = stage.apply(tx, parsed.items, None, run, record)
        tx.record_stage_round(run, record, [e["id"] for e in applied.entries])
        return applied

    return AcceptResult(run.id, parsed, store.write(write))
