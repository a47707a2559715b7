"""Pinning a belief to its file (engine/sources/pinning.py): the PATH[:A-B] form, the lines, and the
quote grounded with forge's grounding inside them, or refused with the reason."""
from __future__ import annotations

import re

import pytest

from engine.errors import InvalidInput
from engine.sources.pinning import SourcedClaim, SourceSpec, ground_claim, parse_source_spec
from engine.sources.reader import SourceText

TEXT = "first line\nThe cache\nexpires hourly.\nlast line\n"
SOURCE = SourceText("docs/cache.md", "ab" * 32, len(TEXT), "markdown", TEXT)


@pytest.mark.parametrize("given, spec", [
    ("docs/cache.md", SourceSpec("docs/cache.md")),
    ("docs/cache.md:2-3", SourceSpec("docs/cache.md", (2, 3))),
    ("docs/cache.md:4", SourceSpec("docs/cache.md", (4, 4))),
    ("C:notes.md", SourceSpec("C:notes.md")),
])
def test_a_source_is_a_path_and_perhaps_lines(given, spec):
    assert parse_source_spec(given) == spec


@pytest.mark.parametrize("given", ["a.md:3-2", "a.md:0-1", "  "])
def test_a_backward_range_or_an_empty_source_is_refused(given):
    with pytest.raises(InvalidInput):
        parse_source_spec(given)


def test_the_quote_across_lines_pins_its_own_lines():
    claim = ground_claim(SOURCE, (1, 4), "\"the CACHE   expires hourly\"")
    assert claim == SourcedClaim("docs/cache.md", "ab" * 32, len(TEXT), (2, 3),
                                 "the CACHE   expires hourly")
    assert claim.metadata() == {"source_type": "add", "lines": [2, 3],
                                "quote": "the CACHE   expires hourly"}


def test_without_a_quote_the_lines_given_or_the_whole_file_are_pinned():
    assert ground_claim(SOURCE, (2, 2), "").lines == (2, 2)
    assert ground_claim(SOURCE, None, "").lines == (1, 4)


@pytest.mark.parametrize("lines, quote, message", [
    ((3, 4), "The cache expires", "quote does not occur in lines 3-4 of docs/cache.md"),
    (None, "never expires", "quote does not occur in docs/cache.md"),
    ((2, 9), "", "lines 2-9 are not in docs/cache.md (4 lines)"),
])
def test_a_quote_outside_the_lines_or_lines_past_the_end_are_refused(lines, quote, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        ground_claim(SOURCE, lines, quote)
