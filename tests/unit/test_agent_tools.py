"""engine/mcp/tools.py on the in-memory store: the JSON each tool returns, and bad input
raised as the CLI raises it."""
from __future__ import annotations

import os

import pytest

from engine import tms
from engine.mcp.declaration import bound_tools, declared_tools
from engine.mcp.tools import AgentTools, report_files
from engine.errors import InvalidInput, NotAddedYet, NotFound
from engine.service.context import Context
from engine.stages.provenance import RunRecord
from tests.fakes import FakeStore


@pytest.fixture
def ctx():
    store = FakeStore()
    tms.add(store, "p", "a premise about caches")
    tms.add(store, "a", "from p", tms.make_justifications(["p"]))
    return Context(store, "test")


@pytest.fixture
def tools(tmp_path):
    return AgentTools(report_dir=tmp_path)


def test_every_tool_is_a_method_with_a_description_and_an_example(tools):
    methods = bound_tools(tools)
    assert list(methods) == [spec.name for spec in declared_tools(AgentTools)]
    assert {"status", "show", "add", "retract", "set_metadata"} <= set(methods)
    for name, method in methods.items():
        assert "Example: " + name + "(" in " ".join(method.__doc__.split()), name


def test_list_beliefs_filters_and_cuts(tools, ctx):
    assert [b["id"] for b in tools.list_beliefs(ctx, kind="derived")["beliefs"]] == ["a"]
    cut = tools.list_beliefs(ctx, limit=1)
    assert cut["total"] == 2 and cut["truncated"] and len(cut["beliefs"]) == 1
    with pytest.raises(InvalidInput, match="truth takes any, in or out"):
        tools.list_beliefs(ctx, truth="maybe")
    with pytest.raises(InvalidInput, match="kind takes any, premises or derived"):
        tools.list_beliefs(ctx, kind="both")


def test_writes_return_the_change_and_bad_input_raises(tools, ctx):
    assert tools.add(ctx, id="b", text="from a", antecedents=["a"]) == {"went_in": ["b"],
                                                                    "went_out": []}
    assert tools.retract(ctx, id="p")["went_out"] == ["a", "b", "p"]
    assert tools.what_if(ctx, operation="assert", id="p")["went_in"] == ["a", "b", "p"]
    with pytest.raises(NotFound):
        tools.show(ctx, id="nope")
    with pytest.raises(InvalidInput, match="kind takes 'SL' or 'CP'"):
        tools.add(ctx, id="c", text="x", antecedents=["a"], kind="XX")


def test_stage_runs_newest_first_with_the_report_files(tools, ctx, tmp_path):
    ctx.store.state.runs.update(r1=RunRecord("r1", "local", "2026-01-01", stage="derive"),
                                   r2=RunRecord("r2", "local", "2026-02-01", stage="review"))
    older, newer = tmp_path / "derive-1.json", tmp_path / "review-2.json"
    older.write_text("{}")
    newer.write_text("{}")
    os.utime(older, (1, 1))
    (tmp_path / "notes.txt").write_text("not a report")
    runs = tools.stage_runs(ctx, limit=1)
    assert [r["id"] for r in runs["runs"]] == ["r2"]
    assert runs["reports"] == [{"path": str(newer), "stage": "review"}]
    assert report_files(tmp_path / "absent", 5) == []
    with pytest.raises(InvalidInput):
        tools.stage_runs(ctx, limit=0)


def test_semantic_search_without_an_embedder_is_bad_input(tools, ctx):
    with pytest.raises(InvalidInput, match="semantic search is not available"):
        tools.search(ctx, words="cache", semantic=True)
    assert [h["id"] for h in tools.search(ctx, words="cache")["hits"]] == ["p"]


def test_blockers_tool_names_what_closes_the_gate(tools, ctx):
    tools.add(ctx, id="bug", text="a bug is open")
    tools.add(ctx, id="ready", text="ready unless the bug", antecedents=["p"], unless=["bug"])
    found = tools.blockers(ctx, limit=5)
    assert [(g["closers"], g["conclusions"]) for g in found["blockers"]] == [(["bug"], 1)]


def test_show_of_a_forward_reference_says_what_names_it(tmp_path):
    store = FakeStore()
    tms.add(store, "p", "a premise")
    tms.add(store, "a", "from p and later", tms.make_justifications(["p", "later"]))
    tools, ctx = AgentTools(report_dir=tmp_path), Context(store, "test")
    with pytest.raises(NotAddedYet, match="'later' is not added yet: a forward reference, "
                                          "named by a's justification$"):
        tools.show(ctx, id="later")
    with pytest.raises(NotFound, match="no belief with id 'nope'"):
        tools.show(ctx, id="nope")


def test_a_forward_reference_a_nogood_lists_is_said_too():
    said = NotAddedYet("x", ["a", "b"], ["ng-1"])
    assert str(said) == ("'x' is not added yet: a forward reference, named by the "
                         "justifications of a, b and listed by nogood ng-1")
    assert isinstance(said, NotFound) and said.exit_code == 2
    assert str(NotAddedYet("x", [], ["n1", "n2"])).endswith("listed by nogoods n1, n2")


def test_nogood_answers_the_id_it_made(tmp_path):
    store = FakeStore()
    tms.add(store, "p", "a premise")
    tms.add(store, "q", "another premise")
    tools, ctx = AgentTools(report_dir=tmp_path), Context(store, "test")
    made = tools.nogood(ctx, ids=["q", "p"])
    assert made["id"] == "nogood-p-q" and set(made) == {"id", "went_in", "went_out",
                                                        "retracted_by_nogood"}
    assert [n.id for n in store.read(lambda tx: tx.nogoods())] == ["nogood-p-q"]
    assert tools.nogood(ctx, ids=["p", "q"], name="ng-2")["id"] == "ng-2"


def test_show_counts_the_cone_and_reads_none_for_a_belief_nothing_names(tools, ctx,
                                                                        monkeypatch):
    from engine.reading import impact

    tms.add(ctx.store, "b", "from a", tms.make_justifications(["a"]))
    asked: list[list[str]] = []
    counted = impact.impacts_in
    monkeypatch.setattr(impact, "impacts_in",
                        lambda tx, ids: asked.append(list(ids)) or counted(tx, ids))
    assert tools.show(ctx, id="p")["impact"] == 2
    assert tools.show(ctx, id="b")["impact"] == 0  # nothing names b: no cone to read
    assert asked == [["p"]]
