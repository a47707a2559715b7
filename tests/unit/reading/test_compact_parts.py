"""The parts of compact that need no graph: the token estimate, word-boundary shortening,
and the marker block of --write."""
from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.reading.compact.lines import shorten_words
from engine.reading.compact.markers import END, START, replace_between_markers
from engine.tokens import ESTIMATE


def test_estimate_counts_letters_digits_and_marks():
    assert ESTIMATE.count("") == 0
    assert ESTIMATE.count("the") == 1
    assert ESTIMATE.count("validates") == 3  # 9 letters: 3 tokens of up to 4
    assert ESTIMATE.count("p99, 2026") == 1 + 1 + 1 + 2  # p, 99, comma, 2026
    assert ESTIMATE.count("auth-uses-jwt") == 5


def test_shorten_cuts_at_a_word_boundary():
    text = "The auth service validates the signature of every token it receives"
    short = shorten_words(text, 30)
    assert short == "The auth service validates..."
    assert len(short) <= 30
    assert shorten_words("  short   text ", 30) == "short text"
    assert shorten_words("x" * 50, 10) == "x" * 7 + "..."


def test_markers_are_appended_when_absent_and_the_rest_is_kept():
    doc = "# Project\n\nsome notes\n"
    once = replace_between_markers(doc, "summary one\n")
    assert once.startswith(doc)
    assert once.endswith(f"{START}\nsummary one\n{END}\n")
    twice = replace_between_markers(once + "tail after\n", "summary two")
    assert twice == f"{doc}\n{START}\nsummary two\n{END}\ntail after\n"


def test_markers_twice_or_reversed_are_refused():
    with pytest.raises(InvalidInput, match="one of each"):
        replace_between_markers(f"{START}\n{END}\n{START}\n", "x")
    with pytest.raises(InvalidInput, match="comes before"):
        replace_between_markers(f"{END} a {START}", "x")
