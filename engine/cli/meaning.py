"""What the command line shows while embeddings are computed (eem embed, search / ask /
compact --semantic, import): a progress bar on the call's stderr. The work is the service's
(engine/service/meaning.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.cli.command import Writer

BAR_WIDTH = 30


class ProgressBar:
    """`embeddings [######......] 512/1296` on a terminal, redrawn in place; elsewhere (a
    pipe, a log) one line per batch."""

    def __init__(self, stream: Writer, label: str = "embeddings") -> None:
        self.stream = stream
        self.label = label
        self.tty = bool(getattr(stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        if not self.tty:
            self.stream.write(f"{self.label}: {done}/{total} computed\n")
        else:
            filled = BAR_WIDTH * done // max(total, 1)
            end = "\n" if done >= total else ""
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] "
                              f"{done}/{total}{end}")
        self.stream.flush()
