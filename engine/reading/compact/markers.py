"""`compact --write FILE`: put the summary between `<!-- eem:compact -->` and
`<!-- /eem:compact -->` in a CLAUDE.md or AGENTS.md, leaving every other byte of the file as
it was; the markers are appended at the end when the file has none. The file is replaced
atomically (engine/files.py), so an agent reading it never sees half of it."""
from __future__ import annotations

from pathlib import Path

from engine.errors import InvalidInput
from engine.files import write_text_atomically

START = "<!-- eem:compact -->"
END = "<!-- /eem:compact -->"


def replace_between_markers(document: str, summary: str) -> str:
    """`document` with the text between the markers replaced by `summary`."""
    block = f"{START}\n{summary.rstrip(chr(10))}\n{END}"
    starts, ends = document.count(START), document.count(END)
    if starts == 0 and ends == 0:
        glue = "" if not document or document.endswith("\n\n") else (
            "\n" if document.endswith("\n") else "\n\n")
        return f"{document}{glue}{block}\n"
    if starts != 1 or ends != 1:
        raise InvalidInput(f"the file has {starts} {START} and {ends} {END} markers; "
                           "it needs one of each (or none)", field="write")
    head, _, rest = document.partition(START)
    _, _, tail = rest.partition(END)
    if END in head:
        raise InvalidInput(f"{END} comes before {START} in the file", field="write")
    return f"{head}{block}{tail}"


def write_compact(path: str | Path, summary: str, *, umask: int | None = None) -> Path:
    target = Path(path)
    try:
        document = target.read_text(encoding="utf-8") if target.exists() else ""
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"cannot read {target}: {getattr(e, 'strerror', None) or e}",
                           field="write") from e
    updated = replace_between_markers(document, summary)
    try:
        return write_text_atomically(target, updated, umask=umask)
    except OSError as e:
        raise InvalidInput(f"cannot write {target}: {e.strerror or e}", field="write") from e
