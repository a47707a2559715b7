"""The parts every command that ranks by meaning shares (search, ask, compact --topic, import,
embed), and the long-lived processes (the MCP server, the resident engine): the packaged
embedder for --semantic, a read that never ranks by meaning over missing embeddings (a few
computed first, with a progress bar on stderr; more refused in one line naming `embed`), the
upkeep after an import, and the keeper that keeps them after writes. The work is in
engine/embedding/upkeep.py and keeper.py."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

T = TypeVar("T")
BAR_WIDTH = 30


class ProgressBar:
    """`embeddings [######......] 512/1296` on a terminal, redrawn in place; elsewhere (a
    pipe, a log) one line per batch."""

    def __init__(self, stream: TextIO, label: str = "embeddings") -> None:
        self.stream = stream
        self.label = label
        self.tty = bool(getattr(stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        if not self.tty:
            print(f"{self.label}: {done}/{total} computed", file=self.stream, flush=True)
            return
        filled = BAR_WIDTH * done // max(total, 1)
        end = "\n" if done >= total else ""
        print(f"\r{self.label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}",
              end=end, file=self.stream, flush=True)


def program(args: argparse.Namespace) -> str:
    """`eem` or `python -m engine`, as the command was called (`eem ask` is `eem`)."""
    called = getattr(args, "prog", None) or ""
    return "eem" if called.split()[:1] == ["eem"] else "python -m engine"


def embed_hint(args: argparse.Namespace) -> str:
    """What computes the missing embeddings, as the program was called."""
    return f"compute them with `{program(args)} embed`, or leave out --semantic"


def embedder_for(args: argparse.Namespace) -> Any:
    """The packaged model when --semantic is given (nothing is loaded yet), else None."""
    if not getattr(args, "semantic", False):
        return None
    from engine.cli.stage_parts import sentence_embedder

    return sentence_embedder()


def by_meaning(store: Any, embedder: Any, args: argparse.Namespace, run: Callable[[], T],
               stream: TextIO | None = None) -> T:
    """`run()`, a read that may rank by meaning: when `embedder` is given and embeddings are
    missing, a few are computed first (a progress bar on stderr), more are refused with the
    command that computes them. `store`: the memory's own (not a client's filtered view)."""
    if embedder is None:
        return run()
    from engine.cli.stage_parts import vector_cache
    from engine.embedding.upkeep import with_current_embeddings

    return with_current_embeddings(store, embedder, run, hint=embed_hint(args),
                                   cache=vector_cache(),
                                   progress=ProgressBar(stream or sys.stderr))


def keep_after_import(store: Any, args: argparse.Namespace) -> None:
    """After an import: the embeddings computed when --embed says so, or by default when the
    memory keeps embeddings (it has recorded a model); else one line on stderr saying how
    many beliefs have none and what computes them."""
    if getattr(args, "embed", None) is False:
        return
    from engine.cli.stage_parts import sentence_embedder, vector_cache
    from engine.embedding.upkeep import embedding_backlog, update_embeddings

    embedder = sentence_embedder()
    backlog = embedding_backlog(store, embedder.model_name)
    if backlog.current:
        return
    if args.embed or backlog.kept:
        update_embeddings(store, embedder, cache=vector_cache(),
                          progress=ProgressBar(sys.stderr))
        return
    print(f"{backlog.missing} of {backlog.total} beliefs have no embedding yet (search and "
          f"ask --semantic rank by them): `{program(args)} embed` computes them, as "
          "`import --embed` does", file=sys.stderr)


def embedding_keeper(store: Any) -> Any:
    """An EmbeddingKeeper (engine/embedding/keeper.py) for a process that serves many
    commands or calls over `store`: one packaged model shared by all of them, the embeddings
    kept current after each write on a thread of its own (a failure is logged; the next
    write tries again). The MCP server holds one; the resident engine's hook is the same:
    call its `note_write()` after each command that may add or reword beliefs."""
    import logging

    from engine.cli.stage_parts import sentence_embedder, vector_cache
    from engine.embedding.keeper import EmbeddingKeeper
    from engine.embedding.shared import SharedEmbedder

    log = logging.getLogger("eem.embeddings")
    return EmbeddingKeeper(store, SharedEmbedder(sentence_embedder).get, cache=vector_cache(),
                           on_error=lambda e: log.warning("embedding upkeep failed: %s", e))
