"""Following a pinned range through a zero-context diff by its arithmetic alone
(engine/sources/revisions.follow): lines added or removed above shift it, a change inside it
or an insertion between two of its lines ends it, what happens below leaves it."""
from __future__ import annotations

import pytest

from engine.sources.revisions import Hunk, follow


@pytest.mark.parametrize("hunks, expected", [
    ([], (10, 12)),
    ([Hunk(3, 0, 4, 2)], (12, 14)),  # two lines inserted after line 3
    ([Hunk(9, 0, 10, 1)], (11, 13)),  # one inserted right above the range
    ([Hunk(12, 0, 13, 4)], (10, 12)),  # inserted right below it
    ([Hunk(2, 3, 2, 0)], (7, 9)),  # three deleted above
    ([Hunk(2, 2, 2, 5)], (13, 15)),  # two replaced by five above
    ([Hunk(13, 1, 13, 1)], (10, 12)),  # the line after it changed
    ([Hunk(1, 0, 2, 1), Hunk(20, 2, 21, 0)], (11, 13)),
])
def test_a_range_moves_by_what_changed_above_it(hunks, expected):
    assert follow((10, 12), hunks) == expected


@pytest.mark.parametrize("hunks", [
    [Hunk(11, 1, 11, 1)],  # its middle line changed
    [Hunk(10, 0, 11, 1)],  # a line inserted between its first two
    [Hunk(8, 3, 8, 3)],  # a change reaching into it from above
    [Hunk(12, 2, 12, 0)],  # its last line deleted
    [Hunk(1, 0, 2, 1), Hunk(10, 1, 11, 2)],
])
def test_a_change_inside_the_range_ends_it(hunks):
    assert follow((10, 12), hunks) is None


def test_a_one_line_range_survives_an_insertion_right_after_it():
    assert follow((5, 5), [Hunk(5, 0, 6, 3)]) == (5, 5)
    assert follow((5, 5), [Hunk(4, 0, 5, 3)]) == (8, 8)
