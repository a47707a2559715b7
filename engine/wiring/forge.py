"""Forge's files and stages as the programs make them (forge, its accept, status and stale,
and the pipeline's forge pass): the root engine/forge/roots.py chooses, the source reader
over it less what forge itself writes there, and the ForgeStage of a plan's chunks."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.forge import roots
from engine.sources.reader import SourceOptions

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.embedding.cache import Embedder
    from engine.forge.stage import ForgeSettings, ForgeStage, PlannedChunk
    from engine.sources.reader import SourceReader
    from engine.store import Store
    from engine.wiring.parts import StageParts

FORGE_OUTPUT = "proposed-premises.md"  # forge's proposals file, unless another is named


@dataclass(frozen=True)
class ForgeFiles:
    """Where forge reads: its root, and the reader of the files under it."""

    root: Path
    reader: SourceReader


def forge_files(store: Store[GraphTx], parts: StageParts, folder: Path, *, root: str | None,
                paths: Sequence[str] = (), run: bool = False,
                sources: SourceOptions = SourceOptions(), output: str | None = None,
                report_dir: str = "reports") -> ForgeFiles:
    """The root (`run`: a run's over `paths`, else accept's, status's and stale's) and its
    reader, which leaves out what forge writes under it (the proposals file `output`, the
    reports folder), so a later run does not read them. Paths as typed in `folder`."""
    base = (roots.run_root(store, root, paths, folder) if run
            else roots.read_root(store, root, folder, paths))
    own = roots.own_files(base, folder, (output or FORGE_OUTPUT, False), (report_dir, True))
    return ForgeFiles(base, parts.reader(base, SourceOptions(
        sources.include, sources.exclude + own, sources.gitignore, sources.max_bytes,
        sources.chunk_tokens)))


def forge_stages(reader: SourceReader, settings: ForgeSettings, embedder: Embedder | None
                 ) -> Callable[[list[PlannedChunk]], ForgeStage]:
    """The ForgeStage of a plan's pending chunks (none: accept's, which checks a file)."""
    from engine.clock import now_iso
    from engine.forge.stage import ForgeStage

    return lambda plan: ForgeStage(plan, reader, now_iso, settings, embedder)
