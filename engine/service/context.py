"""What a verb needs from whoever calls it, in one explicit record.

A face builds one Context per call (engine/wiring/ builds it from the settings a process or
a request carries) and hands it to the verbs of engine/service/. Nothing below the faces
reads the environment, the current folder or the standard streams: what they would give is
here, or in the verb's options.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from engine.visibility import VisibleStore
from engine.embedding.cache import Embedder
from engine.memory.as_of import AsOfStore
from engine.graph import GraphTx
from engine.store import Store

if TYPE_CHECKING:
    from engine.embedding.keeper import EmbeddingKeeper

DEFAULT_PROG = "eem"
DEFAULT_UMASK = 0o022


@dataclass(frozen=True)
class Context:
    """`store`: the memory, its writes by `actor`; `visible_to`: the access tags a client
    may see (None: everything); `prog`: the name the program was called by, for the hints a
    verb returns; `umask`: the caller's, for the files a verb writes; `embedder`: how to
    build the embedding model when a verb needs one (None: none is available); `keeper`: a
long-lived process's, which keeps the embeddings current after writes and ranks by meaning
through them (engine/embedding/keeper.py; None: a command computes what it needs)."""

    store: Store[GraphTx]
    actor: str = ""
    visible_to: frozenset[str] | None = None
    prog: str = DEFAULT_PROG
    folder: Path | None = None
    umask: int = DEFAULT_UMASK
    embedder: Callable[[], Embedder] | None = None
    cache_folder: Path | None = None
    keeper: EmbeddingKeeper | None = None

    def seen(self) -> Store[GraphTx]:
        """The store as this caller may read it: filtered by `visible_to` when set, every
        write refused then."""
        if self.visible_to is None:
            return self.store
        return VisibleStore(self.store, self.visible_to)

    def seen_as_of(self, as_of: str | None) -> Store[GraphTx]:
        """The store as it was at `as_of` (a seq, an ISO time or a release name), else as
        `seen` gives it."""
        if as_of is None:
            return self.seen()
        if self.visible_to is not None:
            from engine.errors import InvalidInput

            raise InvalidInput("--as-of and --visible-to do not go together yet",
                               field="as_of")
        return AsOfStore(self.store, as_of)

    def acting_as(self, actor: str) -> Context:
        """This context for a caller whose writes are by `actor` (a server's client)."""
        from engine.memory.changelog import ActingStore

        return dataclasses.replace(self, store=ActingStore(self.store, actor), actor=actor)

    def seeing(self, visible_to: frozenset[str] | None) -> Context:
        """This context for a client that sees only `visible_to` (None: unchanged)."""
        if visible_to is None:
            return self
        return dataclasses.replace(self, visible_to=visible_to)

    def command(self, words: str) -> str:
        """A command line to suggest: `words` after the program's name."""
        return f"{self.prog} {words}"

    def stage_command(self, stage: str, words: str) -> str:
        """A stage program's command line to suggest (`eem repair gaps`, or `python -m
        engine.repair gaps` under that name)."""
        if self.prog.startswith("python -m engine"):
            return f"python -m engine.{stage} {words}"
        return f"{self.prog} {stage} {words}"
