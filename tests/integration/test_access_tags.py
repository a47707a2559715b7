"""Access tags against the real Neo4j: a derived belief's effective tags are its own and those
of its current support, kept by the same write transaction that changes the support; verify
checks them, and tags never change a label."""
from __future__ import annotations

import json

import pytest

from adapters.cypher_files import cypher
from engine import tms
from engine.memory import editing
from engine.tms.explain import trace_tags
from engine.tms.semantics import compute_labels

pytestmark = pytest.mark.neo4j

J = tms.make_justifications


def tags(store, bid: str) -> list[str]:
    return list(tms.show(store, bid)[0].effective_tags)


def build(store) -> None:
    tms.add(store, "hr-doc", "salaries rose 4%", metadata={"access_tags": ["hr"]})
    tms.add(store, "budget", "the budget grew", metadata={"access_tags": ["finance"]})
    tms.add(store, "news", "the company did well")
    tms.add(store, "raise", "staff got a raise", J(["hr-doc", "news"], any_mode=True))
    tms.add(store, "morale", "morale is up", J(["raise"]))
    tms.add(store, "plan", "hire more", J(["morale", "budget"]))
    tms.add(store, "from-hr", "only the HR doc says so", J(["hr-doc"]))


def test_derived_beliefs_carry_the_tags_of_their_support(store):
    build(store)
    assert tags(store, "raise") == ["hr"]  # both justifications hold: both are support
    assert tags(store, "morale") == ["hr"]
    assert tags(store, "plan") == ["finance", "hr"]
    assert tags(store, "news") == []
    assert tms.verify(store) == []


def test_retracting_a_tagged_premise_takes_its_tag_from_what_no_longer_rests_on_it(store):
    build(store)
    tms.retract(store, "hr-doc", "withdrawn")
    assert tms.show(store, "raise")[0].truth.value == "IN"  # still holds by news
    assert tags(store, "raise") == [] and tags(store, "morale") == []
    assert tags(store, "plan") == ["finance"]
    # an OUT conclusion still says what the document said: it keeps the tag
    assert tms.show(store, "from-hr")[0].truth.value == "OUT"
    assert tags(store, "from-hr") == ["hr"]
    assert tms.verify(store) == []
    tms.assert_belief(store, "hr-doc")
    assert tags(store, "morale") == ["hr"] and tags(store, "plan") == ["finance", "hr"]
    assert tms.verify(store) == []


def test_set_metadata_tags_reach_everything_resting_on_the_belief(store):
    build(store)
    editing.set_metadata(store, "news", "access_tags", "press, eng")
    assert tms.show(store, "news")[0].metadata["access_tags"] == ["eng", "press"]
    assert tags(store, "plan") == ["eng", "finance", "hr", "press"]
    editing.unset_metadata(store, "budget", "access_tags")
    assert tags(store, "plan") == ["eng", "hr", "press"]
    assert tms.verify(store) == []


def test_bad_tags_are_refused_and_nothing_is_written(store):
    from engine.errors import InvalidInput

    build(store)
    with pytest.raises(InvalidInput, match="access tag 'Bad Tag'"):
        editing.set_metadata(store, "news", "access_tags", ["Bad Tag"])
    assert "access_tags" not in tms.show(store, "news")[0].metadata


def test_tags_do_not_change_labels(store):
    build(store)
    beliefs = {b.id: b for b in tms.list_beliefs(store)}
    stored = {bid: (b.truth, b.depth) for bid, b in beliefs.items()}
    computed = compute_labels(tms.show_many(store, sorted(beliefs)))
    assert stored == {bid: (label.truth, label.depth) for bid, label in computed.items()}


def test_verify_finds_and_repair_fixes_effective_tags_edited_by_hand(store, driver, neo4j_settings):
    build(store)
    with driver.session(database=neo4j_settings.database) as session:
        session.run("MATCH (b:Belief {id: 'plan'}) SET b.effective_tags = ['finance']"
                    ).consume()
    [problem] = tms.verify(store)
    assert (problem.id, problem.stored, problem.computed) == (
        "plan", "tags finance", "tags finance,hr")
    [repaired] = tms.repair(store).repaired
    assert repaired == problem
    assert tms.verify(store) == [] and tags(store, "plan") == ["finance", "hr"]


def test_trace_tags_names_where_each_tag_comes_from(store):
    build(store)
    found = trace_tags(store, "plan")
    assert found["effective_tags"] == ["finance", "hr"]
    assert found["sources"] == [
        {"tag": "finance", "origin": "budget", "via": ["plan", "budget"]},
        {"tag": "hr", "origin": "hr-doc", "via": ["plan", "morale", "raise", "hr-doc"]}]


def test_an_untagged_network_writes_no_tags(store, driver, neo4j_settings):
    tms.add(store, "a", "a")
    tms.add(store, "b", "b", J(["a"]))
    with driver.session(database=neo4j_settings.database) as session:
        [record] = session.run(cypher("tags_exist")).data()
    assert record == {"any": False}


# --- the CLI: --access-tags, trace-tags, --visible-to -------------------------------------
def cli(capsys, *args: str) -> tuple[int, str, str]:
    from engine.cli.main import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_adds_tags_traces_them_and_filters_by_them(store, capsys):
    assert cli(capsys, "add", "hr-doc", "salaries rose", "--access-tags", "hr")[0] == 0
    assert cli(capsys, "add", "news", "the company did well")[0] == 0
    assert cli(capsys, "add", "raise", "staff got a raise", "--sl", "hr-doc")[0] == 0
    assert cli(capsys, "add", "cheer", "people cheer", "--sl", "news",
               "--unless", "hr-doc")[0] == 0
    code, out, _ = cli(capsys, "trace-tags", "raise")
    assert code == 0 and out.startswith("raise: hr") and "hr-doc" in out
    code, out, _ = cli(capsys, "list", "--visible-to", "", "--json")
    assert code == 0 and [b["id"] for b in json.loads(out)["beliefs"]] == ["cheer", "news"]
    assert "hr-doc" in cli(capsys, "list", "--visible-to", "hr", "--json")[1]
    code, _, err = cli(capsys, "show", "raise", "--visible-to", "")
    assert code == 2 and err.strip() == "Error: no belief with id 'raise'"
    code, out, _ = cli(capsys, "show", "cheer", "--visible-to", "", "--json")
    assert json.loads(out)["justifications"][0]["outlist"] == ["(hidden-1)"]
    code, out, _ = cli(capsys, "search", "salaries", "raise", "--all", "--visible-to", "")
    assert "hr-doc" not in out and "raise" not in out
    code, _, err = cli(capsys, "add", "x", "y", "--access-tags", "Bad Tag")
    assert code == 2 and err.startswith("Error: access tag 'Bad Tag'")
    assert "x" not in tms.show_many(store, ["x"])


def test_forge_tags_give_every_premise_of_its_sources_their_access_tags(store, tmp_path):
    from adapters.sources.reader import FileSourceReader
    from engine.forge.prompt import PromptOptions
    from engine.forge.run import ForgeRunOptions, forge
    from engine.forge.stage import ForgeSettings, ForgeStage
    from engine.forge.validate import ForgeRules
    from engine.stages.calls import CallPolicy
    from engine.stages.contract import unconstrained
    from engine.stages.run import iso_utc, utc_now
    from tests.forge_fakes import QuotingChatModel, write_tree

    root = write_tree(tmp_path / "hr", {"pay.md": "# Pay\n\nSalaries rose four percent.\n"})
    reader = FileSourceReader(root)
    settings = ForgeSettings(PromptOptions(), ForgeRules(), ("hr",))
    result = forge(store, reader.scan([str(root)]),
                   lambda plan: ForgeStage(plan, reader, lambda: iso_utc(utc_now()), settings),
                   unconstrained(QuotingChatModel()),
                   ForgeRunOptions(model="fake", auto=True,
                                   calls=CallPolicy(sleep=lambda s: None)))
    assert result.status == "complete"
    [premise] = tms.list_beliefs(store)
    assert premise.metadata["access_tags"] == ["hr"] and premise.effective_tags == ("hr",)
    tms.add(store, "pay-up", "pay went up", J([premise.id]))
    assert tags(store, "pay-up") == ["hr"]
    assert tms.verify(store) == []


def test_compact_blockers_and_impact_count_only_what_the_client_sees(store, capsys):
    build(store)
    tms.add(store, "calm", "people are calm", J(["news"], unless=["hr-doc"]))  # a hidden gate
    tms.retract(store, "budget", "cut")  # a hidden retracted premise; plan goes OUT
    code, out, _ = cli(capsys, "compact", "--visible-to", "", "--json")
    summary = json.loads(out)["text"]
    assert code == 0 and summary.startswith("# Memory: 2 beliefs (1 IN, 1 OUT), 0 nogoods")
    assert "closed by (hidden-1)" in summary
    for hidden in ("hr-doc", "salaries", "budget", "raise", "morale", "plan", "from-hr"):
        assert hidden not in summary, hidden
    assert cli(capsys, "compact", "--json")[1].count('"id"') > 2  # all of it without the set
    code, out, _ = cli(capsys, "blockers", "--visible-to", "", "--json")
    found = json.loads(out)
    assert [g["closers"] for g in found["blockers"]] == [["(hidden-1)"]]
    assert found["retracted_premises"] == []
    assert json.loads(cli(capsys, "blockers", "--json")[1])["retracted_premises"][0]["id"] == (
        "budget")
    # impact: what rests on news that the client sees (calm), not raise, morale, plan
    assert json.loads(cli(capsys, "show", "news", "--visible-to", "", "--json")[1])[
        "impact"] == 1
    assert json.loads(cli(capsys, "show", "news", "--json")[1])["impact"] == 4
