"""`accept FILE`: validate and apply a proposals file (written by a run without --auto, maybe
edited since) in one write transaction, recorded as a derive run of one round, strategy
`accept`, whose prompt hash is the hash of the file's text.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.derive.apply import RoundWrite, write_round
from engine.derive.parser import ParseResult, parse_reply
from engine.derive.run import iso_utc, new_run_id, utc_now
from engine.derive.validate import ValidationRules
from engine.errors import InvalidInput
from engine.store import DeriveRoundRecord, DeriveRunRecord, Store

_RUN_NOTE = re.compile(r"<!--\s*eem-derive run (\S+), model (\S+),")


@dataclass
class AcceptResult:
    run_id: str
    parse: ParseResult
    write: RoundWrite


def accept(
    store: Store,
    path: Path,
    rules: ValidationRules = ValidationRules(),
    *,
    now: Callable[[], datetime] = utc_now,
) -> AcceptResult:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror or e}", field="file",
                           value=str(path)) from e
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{path} is not UTF-8 text: {e}", field="file", value=str(path)) from e
    parsed = parse_reply(text)
    if not parsed.proposals and not parsed.no_proposals:
        problems = parsed.rejected + parsed.notes
        detail = "; ".join(f"line {d.line}: {d.reason}" if d.line else d.reason
                           for d in problems[:3])
        raise InvalidInput(f"{path} holds no proposal to accept ({detail})", field="file",
                           value=str(path))
    started = now()
    note = _RUN_NOTE.search(text)
    run = DeriveRunRecord(
        id=new_run_id(started),
        model=note.group(2) if note else "",
        started_at=iso_utc(started),
        params={"accept": str(path), "proposed_by_run": note.group(1) if note else None,
                "min_antecedents": rules.min_antecedents,
                "out_similarity": rules.out_similarity, "max_depth": rules.max_depth},
    )
    record = DeriveRoundRecord(
        run_id=run.id, round=1, strategy="accept", cluster=None,
        prompt_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        tokens_in=0, tokens_out=0, seconds=0.0,
    )
    stamp = iso_utc(started)
    write = store.write(
        lambda tx: write_round(tx, parsed.proposals, rules, run, record, at=stamp))
    return AcceptResult(run.id, parsed, write)
