"""Counting tokens for a budget: the model's own tokenizer where the back-end has one,
otherwise a stated estimate that errs on the high side, so a budget it keeps also holds for
the usual subword tokenizers.

Every counter names itself; `compact` and `ask` print that name, so a reader knows what the
budget was measured in.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

_PIECES = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_")
LETTERS_PER_TOKEN = 4
DIGITS_PER_TOKEN = 3


class TokenCounter(Protocol):
    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


class PieceEstimate:
    """A word of letters counts one token per 4 letters (rounded up), a run of digits one per
    3, every other mark one. Subword tokenizers give common words one token, so this counts
    more than they do for English prose and code identifiers alike."""

    name = "estimate (a token per 4 letters, per 3 digits, per mark; high for BPE)"

    def count(self, text: str) -> int:
        total = 0
        for piece in _PIECES.findall(text):
            if piece[0].isdigit():
                total += -(-len(piece) // DIGITS_PER_TOKEN)
            elif piece[0].isalpha():
                total += -(-len(piece) // LETTERS_PER_TOKEN)
            else:
                total += 1
        return total


@dataclass(frozen=True)
class ModelTokenizer:
    """A back-end's tokenizer, as a function from text to a token count."""

    name: str
    counter: Callable[[str], int]

    def count(self, text: str) -> int:
        return int(self.counter(text))


ESTIMATE = PieceEstimate()
