"""Whether an item a model returned only repeats its prompt: the answer format's `<...>`
placeholders, or the prompt's worked example, copied instead of filled in.

Small models do this all the time and large ones under load or with long prompts; an echo
is never a finding, so every stage's validation skips such an item with ECHO_REASON (and
the report counts them). Each stage builds one `PromptEcho` from its own answer format and
examples and asks it about the item's free-text fields.

An item echoes when one of its texts, compared without case, surrounding quotes or
backticks, a final period and extra spaces,
- is wholly one `<...>` placeholder (whether or not the format has that very one: a model
  that writes `<a sentence you can check>` has still filled nothing in),
- contains one of the format's placeholders verbatim, or
- is one of the prompt's worked examples verbatim.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

ECHO_REASON = "echoes the prompt's example"
_PLACEHOLDER = re.compile(r"<[^<>\n]{1,200}>")
_WHOLE_PLACEHOLDER = re.compile(r"<[^<>]{1,200}>")
_WRAPPING = "`'\" \t\n"


def _normal(text: str) -> str:
    text = " ".join(text.split()).strip(_WRAPPING).lower()
    return text[:-1].rstrip(_WRAPPING) if text.endswith(".") else text


@dataclass(frozen=True)
class PromptEcho:
    placeholders: frozenset[str]  # normalized `<...>` markers of the answer format
    examples: frozenset[str]  # normalized worked examples

    @classmethod
    def of(cls, answer_format: str, examples: Iterable[str] = ()) -> PromptEcho:
        markers = {_normal(m) for m in _PLACEHOLDER.findall(answer_format)}
        return cls(frozenset(markers), frozenset(_normal(e) for e in examples if e.strip()))

    def echoed(self, *texts: str) -> bool:
        """Whether any of `texts` (an item's id, claim, comment...) echoes the prompt."""
        for text in texts:
            got = _normal(text)
            if not got:
                continue
            if (got in self.examples or _WHOLE_PLACEHOLDER.fullmatch(got)
                    or any(m in got for m in self.placeholders)):
                return True
        return False
