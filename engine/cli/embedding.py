"""`eem embed`: every belief's embedding brought up to date (the vectors `--semantic` ranks
by), with a progress bar on stderr. The work is in engine/embedding/upkeep.py; what the other
commands share to rank by meaning is in engine/cli/meaning.py."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.cli.command import Command
from engine.cli.meaning import ProgressBar
from engine.cli.support import print_json


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
