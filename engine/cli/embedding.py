"""`eem embed`: every belief's embedding brought up to date (the vectors `--semantic` ranks
by), with a progress bar on stderr; and the few lines the other commands use to rank by
meaning without ever doing it over missing embeddings: they compute a few themselves, or
stop with one line saying how many are missing and this command. The work is in
engine/embedding/upkeep.py."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

from engine.cli.command import Command
from engine.cli.support import print_json

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


def embed_hint(args: argparse.Namespace) -> str:
    """What computes the missing embeddings, as the program was called."""
    prog = getattr(args, "prog", None) or "python -m engine"
    return f"compute them with `{prog} embed`, or leave out --semantic"


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
    prog = getattr(args, "prog", None) or "python -m engine"
    print(f"{backlog.missing} of {backlog.total} beliefs have no embedding yet (search and "
          f"ask --semantic rank by them): `{prog} embed` computes them, as `import --embed` "
          "does", file=sys.stderr)


def cmd_embed(store: Any, args: argparse.Namespace) -> int:
    from engine.cli.stage_parts import sentence_embedder, vector_cache
    from engine.embedding.upkeep import embedding_backlog, update_embeddings

    embedder = sentence_embedder()
    if args.check:
        backlog = embedding_backlog(store, embedder.model_name)
        if args.json:
            print_json(backlog.as_dict())
        else:
            print(f"{backlog.total - backlog.missing} of {backlog.total} beliefs have a current "
                  f"embedding of {backlog.model}" + (f"; {backlog.missing} missing"
                                                      if backlog.missing else ""))
        return 0 if backlog.current else 1
    update = update_embeddings(store, embedder, cache=vector_cache(), batch=args.batch,
                               progress=None if args.quiet else ProgressBar(sys.stderr))
    if args.json:
        print_json(update.as_dict())
    else:
        print(f"{update.total} beliefs: {update.missing} lacked a current embedding of "
              f"{update.model}; {update.computed} computed, {update.reused} from the cache, "
              f"{update.written} written")
    return 0


def _embed_arguments(p: argparse.ArgumentParser) -> None:
    from engine.embedding.upkeep import UPKEEP_BATCH

    p.add_argument("--check", action="store_true",
                   help="only say how many beliefs lack a current embedding (exit 1 when some "
                        "do); compute nothing")
    p.add_argument("--batch", type=_positive, default=UPKEEP_BATCH, metavar="N",
                   help=f"beliefs per embedding call and write (default {UPKEEP_BATCH})")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _positive(text: str) -> int:
    from engine.cli.stage_cli import positive_int

    return positive_int(text)


COMMANDS: dict[str, Command] = {
    "embed": Command(
        cmd_embed, "compute the embedding of every belief that lacks a current one (what "
        "--semantic ranks by), in batches, with a progress bar", "embed --check",
        _embed_arguments),
}
