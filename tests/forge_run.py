"""Running forge in tests: a tree, a reader, a model, the real run loop."""
from __future__ import annotations

from pathlib import Path

from adapters.sources.reader import FileSourceReader
from engine.forge.prompt import PromptOptions
from engine.forge.run import ForgeRunOptions, forge
from engine.stages.run import iso_utc, utc_now
from engine.forge.stage import ForgeSettings, ForgeStage
from engine.forge.validate import ForgeRules
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained


def stage_factory(reader, embedder=None, similar: float = 0.92):
    settings = ForgeSettings(PromptOptions(), ForgeRules(similar=similar))
    return lambda plan: ForgeStage(plan, reader, lambda: iso_utc(utc_now()), settings, embedder)


def run_forge(store, root: Path, chat, *, auto: bool = True, embedder=None, output=None,
              similar: float = 0.92, chunk_tokens: int = 600, paths=None):
    reader = FileSourceReader(root, chunk_tokens=chunk_tokens)
    scan = reader.scan([str(root / p) for p in (paths or ["."])])
    return forge(store, scan, stage_factory(reader, embedder, similar), unconstrained(chat),
                 ForgeRunOptions(model="fake", auto=auto, calls=CallPolicy(sleep=lambda s: None),
                                 output=output,
                                 accept_command=f"python -m engine.forge accept {output}"))
