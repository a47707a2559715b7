"""One line of `compact` (and of `ask`'s bundle): `id [label, depth d, impact n]: text`, the
text shortened at a word boundary, never mid-word."""
from __future__ import annotations

from engine.reading.records import Row

TEXT_CHARS = 110  # of a belief's text on one line
NOTE_CHARS = 100  # of the note after it (a reason, what closes a gate, a finding)
ELLIPSIS = "..."


def shorten_words(text: str, limit: int) -> str:
    """`text` on one line; when longer than `limit`, cut at the last space that leaves room
    for the ellipsis (a single word longer than the limit is cut inside it)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    room = max(1, limit - len(ELLIPSIS))
    cut = flat.rfind(" ", 0, room + 1)
    head = flat[:cut] if cut > 0 else flat[:room]
    return head.rstrip(" ,;:.") + ELLIPSIS


def depth_text(depth: int | None) -> str:
    return "-" if depth is None else str(depth)


def belief_line(row: Row, impact: int | None, *, summary_of: int = 0) -> str:
    facts = [row.truth, f"depth {depth_text(row.depth)}"]
    if impact is not None:
        facts.append(f"impact {impact}")
    if summary_of:
        facts.append(f"summary of {summary_of}")
    line = f"{row.id} [{', '.join(facts)}]: {shorten_words(row.text, TEXT_CHARS)}"
    if row.note:
        line += f" | {shorten_words(row.note, NOTE_CHARS)}"
    return line


def nogood_line(row: Row) -> str:
    line = f"{row.id} [nogood, {row.truth}]: {shorten_words(row.text, TEXT_CHARS)}"
    if row.note:
        line += f" | {shorten_words(row.note, NOTE_CHARS)}"
    return line
