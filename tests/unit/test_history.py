"""engine/memory/history.py without Neo4j: points, the network at a point from before-images,
diff between points, and the refusals of bad points."""
from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.memory import history
from engine.memory.records import LoggedWrite, Release
from engine.model import Belief, Justification, Truth
from engine.tms.records import Network


def image(text: str, *justifications: list, retracted: bool = False) -> dict:
    return {"props": {"text": text, "retracted": retracted},
            "justifications": [list(j) for j in justifications]}


def sl(seq: int, *antecedents: str) -> list:
    return [seq, "SL", "", False, list(antecedents), [], []]


class FakeHistory:
    """The reads resolve_point makes (engine.memory.history.HistoryTx)."""

    def __init__(self, last: int, start: int, releases: dict[str, int]):
        self._last, self._start, self._releases = last, start, releases

    def last_seq(self) -> int:
        return self._last

    def history_start(self) -> int:
        return self._start

    def seq_at_or_before(self, at: str) -> int:
        return 3 if at.startswith("2026-12-03") else 0

    def release(self, name: str) -> Release | None:
        seq = self._releases.get(name)
        return Release(name, seq, "") if seq is not None else None


@pytest.mark.parametrize("point, seq", [("4", 4), ("2026-12-03T10:00", 3), ("v1", 2)])
def test_a_point_is_a_seq_a_time_or_a_release(point, seq):
    assert history.resolve_point(FakeHistory(9, 1, {"v1": 2}), point) == seq


@pytest.mark.parametrize("point, message", [
    ("12", "no change has seq 12"), ("v9", "release name"), ("0", "before history begins"),
    ("2025-01-01", "before history begins"), ("2026-13-40", "ISO 8601"), ("a b", "not a seq"),
])
def test_bad_points_are_refused_by_name(point, message):
    with pytest.raises(InvalidInput, match=message):
        history.resolve_point(FakeHistory(9, 1, {"v1": 2}), point)


WRITES = [
    LoggedWrite(2, "", "add", "", {"belief": {"b": None}}),
    LoggedWrite(3, "", "retract", "", {"belief": {"a": image("A")}}, went_out=("a", "b")),
    LoggedWrite(4, "", "reword", "", {"belief": {"a": image("A", retracted=True),
                                                 "b": image("B", sl(0, "a"))}}),
]


def test_each_unit_takes_its_image_in_the_first_write_after_the_point():
    assert history.images_at(WRITES, 1) == {"belief": {"b": None, "a": image("A")}}
    assert history.images_at(WRITES, 3)["belief"]["a"] == image("A", retracted=True)
    assert history.images_at(WRITES, 4) == {}


def test_the_network_at_a_point_is_labelled_from_scratch():
    now = Network({"a": Belief("a", "A2", retracted=True, truth=Truth.OUT),
                   "b": Belief("b", "B2", (Justification(("a",)),), truth=Truth.OUT)},
                  [], {}, {}, [], [])
    then = history.network_at(now, history.images_at(WRITES, 2))
    assert {b.id: (b.text, b.truth) for b in then.beliefs.values()} == {
        "a": ("A", Truth.IN), "b": ("B", Truth.IN)}
    assert history.network_at(now, history.images_at(WRITES, 1)).beliefs.keys() == {"a"}


def test_the_network_at_a_point_carries_the_access_tags_of_then():
    """A belief's effective tags as of a point are those of its support then: b rests on a,
    tagged hr only after the point, and c rests on d, whose tag came off after it (issue 45:
    today's tags were shown, and a belief's image had none)."""
    tagged = {"props": {"text": "D", "metadata": '{"access_tags": ["hr"]}'},
              "justifications": []}
    writes = [LoggedWrite(2, "", "set-metadata", "", {"belief": {"a": image("A")}}),
              LoggedWrite(3, "", "unset-metadata", "", {"belief": {"d": tagged}})]
    now = Network({
        "a": Belief("a", "A", metadata={"access_tags": ["hr"]}, truth=Truth.IN,
                    effective_tags=("hr",)),
        "b": Belief("b", "B", (Justification(("a",)),), truth=Truth.IN, effective_tags=("hr",)),
        "c": Belief("c", "C", (Justification(("d",)),), truth=Truth.IN),
        "d": Belief("d", "D", truth=Truth.IN)}, [], {}, {}, [], [])
    then = history.network_at(now, history.images_at(writes, 1))
    assert {b.id: b.effective_tags for b in then.beliefs.values()} == {
        "a": (), "b": (), "c": ("hr",), "d": ("hr",)}


def test_diff_names_what_changed_and_the_change_that_did_it():
    now = {"a": image("A2", retracted=True), "b": image("B", sl(0, "a"), sl(1, "c"))}
    d = history.diff_of(WRITES, 1, 4, lambda kind, keys: {k: now[k] for k in keys})
    rows = {r.id: r for r in d.beliefs}
    assert rows["b"].what == ("added",) and rows["b"].then is None
    assert rows["a"].what == ("reworded", "pinned", "relabelled")
    assert (rows["a"].then, rows["a"].now, rows["a"].why) == ("IN", "OUT", 3)


def test_a_change_undone_in_between_leaves_no_row():
    undone = [LoggedWrite(2, "", "retract", "", {"belief": {"a": image("A")}}),
              LoggedWrite(3, "", "assert", "", {"belief": {"a": image("A", retracted=True)}})]
    d = history.diff_of(undone, 1, 3, lambda kind, keys: {"a": image("A")})
    assert d.beliefs == []


def test_the_markdown_diff_says_the_same_facts_in_the_registry_words():
    from engine.cli.history import diff_markdown

    now = {"a": image("A2", retracted=True), "b": image("B", sl(0, "a"))}
    d = history.diff_of(WRITES, 1, 4, lambda kind, keys: {k: now[k] for k in keys})
    text = diff_markdown(d)
    assert text.startswith("## Changes from seq 1 to seq 4\n")
    assert "### Added\n\n- `b` (OUT): B\n" in text
    assert '### Reworded\n\n- `a`: "A" -> "A2"\n' in text
    assert "### Labels changed\n\n- `a`: IN -> OUT (change 3)\n" in text
    assert "Nothing differs." in diff_markdown(history.Diff(4, 4))


def test_a_belief_whose_timestamps_alone_changed_is_updated():
    stamped = {"props": {"text": "A", "updated_at": "2026-12-06"}}
    changed = [LoggedWrite(2, "", "assert", "", {"belief": {"a": image("A")}})]
    d = history.diff_of(changed, 1, 2, lambda kind, keys: {"a": stamped})
    assert [r.what for r in d.beliefs] == [("updated",)]
