"""The pipeline: stages run in order over one store, then the loop stages repeated pass after
pass until a pass changes nothing (adds, defeats, repairs and merges nothing) or `max_passes`.

A stage plugs in as a `PipelineStage`: a name and a function from the store to a
`StageOutcome` (what it added, defeated, repaired, merged; its report). The entry point
builds the list (engine/cli/pipeline.py), so a new stage joins by being appended there.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from engine.store import Store

TxT = TypeVar("TxT")

COMPLETE, ERROR = "complete", "error"


@dataclass(frozen=True)
class StageOutcome:
    stage: str
    status: str = COMPLETE
    rounds: int = 0
    added: int = 0
    defeated: int = 0
    merged: int = 0
    repaired: int = 0  # repair: justifications linked or claims softened
    seconds: float = 0.0
    report: str | None = None
    error: str | None = None
    note: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.added or self.defeated or self.merged or self.repaired)

    def as_dict(self) -> dict[str, object]:
        return {"stage": self.stage, "status": self.status, "rounds": self.rounds,
                "added": self.added, "defeated": self.defeated, "merged": self.merged,
                "repaired": self.repaired,
                "seconds": round(self.seconds, 3), "report": self.report, "error": self.error,
                "note": self.note}


@dataclass(frozen=True)
class PipelineStage(Generic[TxT]):
    """A stage of the pipeline: how it runs on a store whose transactions are `TxT`."""

    name: str
    run: Callable[[Store[TxT]], StageOutcome]


class Progress(Protocol):
    def stage_finished(self, n_pass: int, outcome: StageOutcome) -> None: ...


@dataclass
class PipelineResult:
    status: str
    stopped: str
    passes: int
    outcomes: list[tuple[int, StageOutcome]] = field(default_factory=list)  # (pass, outcome)

    def as_dict(self) -> dict[str, object]:
        return {"status": self.status, "stopped": self.stopped, "passes": self.passes,
                "stages": [{"pass": p, **o.as_dict()} for p, o in self.outcomes]}


def _timed(stage: PipelineStage[TxT], store: Store[TxT], clock) -> StageOutcome:
    start = clock()
    outcome = stage.run(store)
    if not outcome.seconds:
        from dataclasses import replace

        outcome = replace(outcome, seconds=clock() - start)
    return outcome


def run_pipeline(store: Store[TxT], first: Sequence[PipelineStage[TxT]],
                 loop: Sequence[PipelineStage[TxT]], *,
                 max_passes: int = 5, progress: Progress | None = None,
                 clock: Callable[[], float] = time.monotonic) -> PipelineResult:
    """`first` once (pass 0), then `loop` pass after pass; a stage ending in error stops all."""
    result = PipelineResult(COMPLETE, "", 0)

    def run(n_pass: int, stage: PipelineStage[TxT]) -> StageOutcome:
        outcome = _timed(stage, store, clock)
        result.outcomes.append((n_pass, outcome))
        if progress is not None:
            progress.stage_finished(n_pass, outcome)
        return outcome

    for stage in first:
        if run(0, stage).status == ERROR:
            result.status, result.stopped = ERROR, f"{stage.name} ended in error"
            return result
    if not loop:
        result.stopped = "no loop stages"
        return result
    for n_pass in range(1, max(1, max_passes) + 1):
        result.passes = n_pass
        changed = False
        for stage in loop:
            outcome = run(n_pass, stage)
            if outcome.status == ERROR:
                result.status, result.stopped = ERROR, f"{stage.name} ended in error"
                return result
            changed = changed or outcome.changed
        if not changed:
            result.stopped = f"pass {n_pass} changed nothing"
            return result
    result.stopped = f"max passes ({max_passes})"
    return result
