"""`python -m engine.derive accept FILE`: the machinery's accept (engine/stages/accept.py)
with the derive stage: validate and apply a proposals file in one write transaction,
recorded as a derive run of one round, strategy `accept`."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from engine.derive.options import DeriveOptions
from engine.derive.stage import DeriveStage, DeriveStageTx
from engine.derive.validate import ValidationRules
from engine.stages.accept import AcceptResult
from engine.stages.accept import accept as accept_file
from engine.stages.run import utc_now
from engine.stages.stage import LoopStage
from engine.store import Store


def accept(
    store: Store[DeriveStageTx],
    path: Path,
    rules: ValidationRules = ValidationRules(),
    *,
    now: Callable[[], datetime] = utc_now,
) -> AcceptResult:
    # a file is the round: no sample
    stage: LoopStage[DeriveStageTx] = DeriveStage(None, DeriveOptions(rules=rules))
    params = {"min_antecedents": rules.min_antecedents, "out_similarity": rules.out_similarity,
              "max_depth": rules.max_depth}
    return accept_file(store, stage, path, params=params, now=now)
