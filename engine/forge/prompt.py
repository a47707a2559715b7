"""The forge prompt and the reply schema for one chunk.

The prompt shows the chunk with its path and line numbers, the beliefs already drawn from the
same source and the nearest existing beliefs (by embedding, where embeddings are available),
so the model does not repeat them, and asks for premises each grounded in a quote.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.sources.reader import Chunk
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
    extra: Mapping[str, object] = field(default_factory=dict)


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
    return Prompt.of(text)


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
                 quotes: Sequence[str] = ()) -> dict[str, object]:
    """The JSON schema of a reply: `bounded` for grammars (counts and lengths capped, so a
    constrained reply is finite, and with `quotes` the quote one of the chunk's lines, so a
    constrained decoder can only quote the file), else the strict form (every property
    required, no others; the quote free text, checked by validation)."""
    string: dict[str, object] = {"type": "string"}
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
    premises: dict[str, object] = {"type": "array", "items": item}
    if bounded:
        premises["maxItems"] = max_premises
    return {"type": "object", "properties": {"premises": premises}, "required": ["premises"],
            "additionalProperties": False}


def _quote_schema(bounded: bool, quotes: Sequence[str]) -> dict[str, object]:
    if not bounded:
        return {"type": "string"}
    if quotes:
        return {"type": "string", "enum": list(quotes)}
    return {"type": "string", "minLength": 1, "maxLength": MAX_QUOTE_CHARS}


# --- the local model's extractive reply ---------------------------------------------------
MIN_CLAIM_WORDS = 5
CLAIM_ID_WORDS = 6  # at most, of the claim's own words
_LINE_MARK = re.compile(r'^\s*(?:#+|//+|--|[-*+>]|"""|\'\'\'|\d+[.)])\s*')
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_ID_STOPWORDS = frozenset({"a", "an", "the", "is", "are", "was", "be", "it", "its", "of", "to",
                           "and", "or", "on", "in", "at", "by", "for", "as", "with", "when"})


def chunk_sentences(chunk: Chunk) -> list[str]:
    """The sentences the chunk states, each words of the file: lines are joined into
    paragraphs (a line opened by a heading, comment, bullet or docstring mark stands alone,
    without the mark), paragraphs cut after `.`, `!` or `?`. A sentence is kept when it
    starts with a capital, ends with a period, has at least MIN_CLAIM_WORDS words and no
    double quote or backslash (llama.cpp's schema converter does not escape them); without
    repeats, in order."""
    paragraphs: list[list[str]] = [[]]
    for line in chunk.text.split("\n"):
        marked = _LINE_MARK.match(line)
        text = line[marked.end():] if marked else line.strip()
        text = text.strip().removesuffix('"""').removesuffix("'''").strip()
        if marked or not text:
            paragraphs.append([])
        if text:
            paragraphs[-1].append(text)
        if marked:
            paragraphs.append([])
    out = []
    for words in paragraphs:
        for sentence in _SENTENCE_END.split(" ".join(" ".join(words).split())):
            if (sentence[:1].isupper() and sentence.endswith(".")
                    and len(sentence.split()) >= MIN_CLAIM_WORDS
                    and len(sentence) <= MAX_CLAIM_CHARS and not re.search(r'["\\]', sentence)):
                out.append(sentence)
    return list(dict.fromkeys(out))


def claim_id(claim: str) -> str:
    """An id of the claim's own words: up to CLAIM_ID_WORDS of them, lower case, function
    words left out, joined by hyphens, starting with a letter (ID_PATTERN)."""
    words = [w[:19] for w in re.split(r"[^a-z0-9]+", claim.lower())
             if w and w not in _ID_STOPWORDS]
    while words and not words[0][0].isalpha():
        words.pop(0)
    words = words[:CLAIM_ID_WORDS]
    return "-".join(words) if len(words) >= 2 else "-".join([*words, "claim"] if words
                                                              else ["source", "claim"])


def extractive_schema(chunk: Chunk, max_premises: int) -> dict[str, object] | None:
    """The reply schema for a grammar-bound local model, which cannot be trusted to write a
    claim in its own words: each premise is one sentence of the chunk, quoted as it stands,
    with the id built from its words (`chunk_sentences`, `claim_id`); the model only
    chooses which. The reply has min(max_premises, sentences) premises, premise k chosen
    among the k-th share of the sentences (dealt round robin), so no sentence can come twice.
    None when the chunk has no such sentence (the usual schema applies)."""
    sentences = chunk_sentences(chunk)
    if not sentences:
        return None
    ids: dict[str, int] = {}
    choices = []
    for sentence in sentences:
        base = claim_id(sentence)
        ids[base] = ids.get(base, 0) + 1
        pid = base if ids[base] == 1 else f"{base}-{ids[base]}"
        choices.append({
            "type": "object",
            "properties": {"id": {"const": pid}, "claim": {"const": sentence},
                           "quote": {"const": sentence}},
            "required": ["id", "claim", "quote"], "additionalProperties": False})
    slots = min(max_premises, len(sentences))
    premises = {"type": "array", "prefixItems": [{"anyOf": choices[k::slots]}
                                                 for k in range(slots)],
                "items": False, "minItems": slots, "maxItems": slots}
    return {"type": "object", "properties": {"premises": premises}, "required": ["premises"],
            "additionalProperties": False}
