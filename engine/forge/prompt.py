"""The forge prompt and the reply schema for one chunk.

The prompt shows the chunk with its path and line numbers, the beliefs already drawn from the
same source and the nearest existing beliefs (by embedding, where embeddings are available),
so the model does not repeat them, and asks for premises each grounded in a quote.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.forge.sources import Chunk
from engine.stages.stage import Prompt

MAX_CLAIM_CHARS = 300
MAX_QUOTE_CHARS = 300
ID_PATTERN = "^[a-z][a-z0-9]{0,19}(-[a-z0-9]{1,19}){1,9}$"  # kebab-case, bounded for grammars
MAX_LISTED = 40  # beliefs listed per section
EXAMPLE_ID = "auth-tokens-expire-after-15-minutes"
CLAIM_RULE = "one sentence a reader could check against the file, in your own words"


@dataclass(frozen=True)
class PromptOptions:
    max_premises: int = 6
    domain: str | None = None


@dataclass(frozen=True)
class ChunkView:
    """What a forge round shows: the chunk, and what the network already holds near it."""

    chunk: Chunk
    kind: str  # the source's kind
    drawn: Sequence[tuple[str, str]] = ()  # (id, text) of beliefs already from this source
    nearest: Sequence[tuple[str, str, float]] = ()  # (id, text, score) nearest the chunk
    embeddings: bool = False  # whether `nearest` could be looked up at all
    extra: Mapping[str, Any] = field(default_factory=dict)


def numbered(chunk: Chunk) -> str:
    width = len(str(chunk.end))
    return "\n".join(f"{n:>{width}}| {line}" for n, line in
                     enumerate(chunk.text.split("\n"), chunk.start))


def reply_format(max_premises: int) -> str:
    return "\n".join([
        'Reply with one JSON object and nothing else:',
        '{"premises": [{"id": "<kebab-case id>", "claim": "<one testable statement>", '
        '"quote": "<words copied from the lines above>"}]}',
        "- id: a new id of lower-case words joined by hyphens, topic first "
        f"(e.g. `{EXAMPLE_ID}`).",
        f"- claim: {CLAIM_RULE}.",
        f"- quote: the words of the file that state the claim, copied exactly, without the "
        f"line numbers; at most {MAX_QUOTE_CHARS} characters.",
        f"- At most {max_premises} premises; only what the text states, not what you infer.",
        '- If the text states nothing checkable, reply {"premises": []}.',
    ])


def build_prompt(view: ChunkView, options: PromptOptions = PromptOptions()) -> Prompt:
    c = view.chunk
    where = f"File: {c.path} ({view.kind}), lines {c.start}-{c.end}"
    if c.title:
        where += f", under: {c.title[:120]}"
    parts = [
        "You read one piece of a source file and write down the premises it states: facts a "
        "reader could check against the file, each in one sentence, each with the exact words "
        "of the file that state it.",
    ]
    if options.domain:
        parts.append(f"The files are about: {options.domain}")
    parts += ["", "## Source", where, "", numbered(c), ""]
    parts.append("## Already drawn from this file (do not propose these again)")
    parts += ([f"- `{i}`: {_line(t)}" for i, t in view.drawn[:MAX_LISTED]] or ["(none)"])
    if len(view.drawn) > MAX_LISTED:
        parts.append(f"- ... and {len(view.drawn) - MAX_LISTED} more")
    if view.embeddings:
        parts += ["", "## Nearest existing beliefs (do not restate them)"]
        parts += ([f"- `{i}`: {_line(t)}" for i, t, _ in view.nearest[:MAX_LISTED]]
                  or ["(none)"])
    parts += ["", "## What to reply", reply_format(options.max_premises), ""]
    text = "\n".join(parts)
    return Prompt(text, hashlib.sha256(text.encode("utf-8")).hexdigest())


def _line(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


MIN_QUOTE_CHARS = 12  # a shorter prefix states nothing


def quotable_lines(chunk: Chunk) -> list[str]:
    """The chunk's lines a grammar may offer as quotes: each line, stripped and cut before
    its first double quote or backslash (llama.cpp's schema converter does not escape them
    in enum values) and at MAX_QUOTE_CHARS, when at least MIN_QUOTE_CHARS remain; a prefix of
    a line is still words of the file. Without repeats, in order."""
    out = []
    for line in chunk.text.split("\n"):
        cut = re.split(r'["\\]', line.strip(), maxsplit=1)[0][:MAX_QUOTE_CHARS].strip()
        if len(cut) >= MIN_QUOTE_CHARS:
            out.append(cut)
    return list(dict.fromkeys(out))


def reply_schema(max_premises: int, *, bounded: bool,
                 quotes: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON schema of a reply: `bounded` for grammars (counts and lengths capped, so a
    constrained reply is finite, and with `quotes` the quote one of the chunk's lines, so a
    constrained decoder can only quote the file), else the strict form (every property
    required, no others; the quote free text, checked by validation)."""
    string: dict[str, Any] = {"type": "string"}
    item = {
        "type": "object",
        "properties": {
            "id": {**string, "pattern": ID_PATTERN} if bounded else string,
            "claim": {**string, "minLength": 1, "maxLength": MAX_CLAIM_CHARS} if bounded
            else string,
            "quote": _quote_schema(bounded, quotes),
        },
        "required": ["id", "claim", "quote"],
        "additionalProperties": False,
    }
    premises: dict[str, Any] = {"type": "array", "items": item}
    if bounded:
        premises["maxItems"] = max_premises
    return {"type": "object", "properties": {"premises": premises}, "required": ["premises"],
            "additionalProperties": False}


def _quote_schema(bounded: bool, quotes: Sequence[str]) -> dict[str, Any]:
    if not bounded:
        return {"type": "string"}
    if quotes:
        return {"type": "string", "enum": list(quotes)}
    return {"type": "string", "minLength": 1, "maxLength": MAX_QUOTE_CHARS}
