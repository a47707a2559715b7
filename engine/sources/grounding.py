"""Is a quote stated in a text, and on which lines?

Both are compared after normalizing: runs of whitespace (line ends included) become one
space, curly quotes and apostrophes become straight ones, dashes become `-`, the ellipsis
character becomes `...`, and case is folded. A model that copies the prompt's line-number
gutter (`12| `) into its quote is forgiven that too. The line range is found in the original
text, so it points at the words as they stand in the file.
"""
from __future__ import annotations

import re

_FOLD = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00a0": " ", "\u2009": " ", "\u202f": " ",
})
_GUTTER = re.compile(r"(?m)^\s*\d{1,6}\s?\|\s?")
_QUOTE_MARKS = "\"' "


def _normalized_with_map(text: str) -> tuple[str, list[int]]:
    """The normalized text and, for each of its characters, the index in `text` it came from."""
    out: list[str] = []
    where: list[int] = []
    pending_space = False
    for i, ch in enumerate(text):
        ch = ch.translate(_FOLD)
        if ch == "\u2026":
            ch = "..."
        if ch.isspace():
            pending_space = bool(out)
            continue
        if pending_space:
            out.append(" ")
            where.append(i)
            pending_space = False
        for c in ch.casefold():
            out.append(c)
            where.append(i)
    return "".join(out), where


def normalize(text: str) -> str:
    return _normalized_with_map(text)[0]


def clean_quote(quote: str) -> str:
    """The quote without a copied line-number gutter and without quote marks around it."""
    return _GUTTER.sub("", quote).strip().strip(_QUOTE_MARKS).strip()


def find_quote(quote: str, text: str, first_line: int = 1) -> tuple[int, int] | None:
    """The (first, last) line of `text` (numbered from `first_line`) where `quote` occurs,
    or None when it does not occur (an empty quote never does)."""
    needle = normalize(clean_quote(quote)).strip(_QUOTE_MARKS)
    if not needle:
        return None
    haystack, where = _normalized_with_map(text)
    at = haystack.find(needle)
    if at < 0:
        return None
    start, end = where[at], where[at + len(needle) - 1]
    return (first_line + text.count("\n", 0, start), first_line + text.count("\n", 0, end))
