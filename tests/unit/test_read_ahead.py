"""engine/bulk.read_ahead: the next item made on a thread while the caller works on this one,
in order, its errors raised to the caller, stopped when the caller stops."""
from __future__ import annotations

import threading
import time

import pytest

from engine.bulk import read_ahead


def test_items_come_in_order_and_the_next_is_made_meanwhile():
    made: list[int] = []

    def items():
        for k in range(5):
            made.append(k)
            yield k

    got = []
    for item in read_ahead(items()):
        deadline = time.monotonic() + 5
        while len(made) < min(item + 2, 5) and time.monotonic() < deadline:
            time.sleep(0.01)  # the thread makes the next one while this one is held
        assert len(made) == min(item + 2, 5)
        got.append(item)
    assert got == [0, 1, 2, 3, 4]


def test_an_error_making_an_item_is_raised_to_the_caller_in_its_place():
    def items():
        yield 1
        raise ValueError("the file changed")

    got = []
    with pytest.raises(ValueError, match="the file changed"):
        for item in read_ahead(items()):
            got.append(item)
    assert got == [1]


def test_a_caller_that_stops_early_stops_the_thread():
    def items():
        k = 0
        while True:
            yield k
            k += 1

    ahead = read_ahead(items())
    assert next(ahead) == 0
    ahead.close()
    assert not any(t.name == "read-ahead" and t.is_alive() for t in threading.enumerate())
