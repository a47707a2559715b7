"""`eem embed`: every belief's embedding brought up to date (the vectors `--semantic` ranks
by), with a progress bar on stderr; one call of engine/service/meaning.py."""
from __future__ import annotations

from engine.cli.arguments import arg, positive_int
from engine.cli.command import Call, Command
from engine.defaults import EMBED_BATCH


def cmd_embed(call: Call) -> int:
    from engine.cli.meaning import ProgressBar
    from engine.service import meaning

    a = call.args
    if a.check:
        backlog = meaning.backlog(call.context)
        if not call.emit(backlog):
            call.say(f"{backlog.total - backlog.missing} of {backlog.total} beliefs have a "
                     f"current embedding of {backlog.model}"
                     + (f"; {backlog.missing} missing" if backlog.missing else ""))
        return 0 if backlog.current else 1
    update = meaning.embed(call.context, batch=a.batch,
                           progress=None if a.quiet else ProgressBar(call.err))
    if not call.emit(update):
        call.say(f"{update.total} beliefs: {update.missing} lacked a current embedding of "
                 f"{update.model}; {update.computed} computed, {update.reused} from the "
                 f"cache, {update.written} written")
    return 0


COMMANDS: dict[str, Command] = {
    "embed": Command(
        cmd_embed, "compute the embedding of every belief that lacks a current one (what "
        "--semantic ranks by), in batches, with a progress bar", "embed --check",
        (arg("--check", action="store_true",
             help="only say how many beliefs lack a current embedding (exit 1 when some do); "
                  "compute nothing"),
         arg("--batch", type=positive_int, default=EMBED_BATCH, metavar="N",
             help=f"beliefs per embedding call and write (default {EMBED_BATCH})"),
         arg("--quiet", action="store_true", help="no progress bar"))),
}
