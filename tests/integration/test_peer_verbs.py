"""The verbs users of ftl-reasons and reasonsforge miss here (issue 38), against the real Neo4j:
what each writes, what it reports, and its change-log entry."""
from __future__ import annotations

import pytest

from engine import tms
from engine.change_records import LogQuery
from engine.memory import changelog
from engine.memory.summaries import summarize
from engine.model import Truth

pytestmark = pytest.mark.neo4j

J = tms.make_justifications


def last_entry(store):
    return changelog.log(store, LogQuery(limit=1))[0]


def truth(store, *ids):
    found = tms.show_many(store, ids)
    return tuple(found[i].truth if i in found else None for i in ids)


# --- summarize's change-log entry (the defect) ---------------------------------------------
def test_summarize_logs_its_op_and_what_it_summarized(store):
    tms.add(store, "a", "A premise.")
    tms.add(store, "b", "Another premise.")
    summarize(store, "ab", "A and B together.", ["b", "a"])
    entry = last_entry(store)
    assert (entry.op, dict(entry.args)) == ("summarize", {"id": "ab", "over": ["b", "a"]})
    assert entry.created == ("ab",)


# --- default nogood ids ------------------------------------------------------------------
def test_a_nogood_is_named_by_its_sorted_members_and_a_repeat_gets_a_number(store):
    for bid in ("zeta", "alpha", "mid"):
        tms.add(store, bid, f"The {bid} premise.")
    tms.add_nogood(store, ["zeta", "alpha"])
    tms.assert_belief(store, "alpha")
    tms.assert_belief(store, "zeta")
    tms.add_nogood(store, ["alpha", "zeta"])
    tms.add_nogood(store, ["mid", "alpha", "zeta"])
    ids = sorted(n.id for n in store.read(lambda tx: tx.nogoods()))
    assert ids == ["nogood-alpha-mid-zeta", "nogood-alpha-zeta", "nogood-alpha-zeta-2"]
    assert dict(last_entry(store).args) == {"id": "nogood-alpha-mid-zeta",
                                            "members": ["mid", "alpha", "zeta"]}


def test_a_long_default_nogood_id_is_cut_to_fit_an_id(store):
    long_ids = [f"{c * 60}" for c in "abcd"]
    for bid in long_ids:
        tms.add(store, bid, "A premise with a long id.")
    tms.add_nogood(store, long_ids)
    tms.add_nogood(store, long_ids)
    ids = sorted(n.id for n in store.read(lambda tx: tx.nogoods()))
    assert len(ids[0]) <= 190 and ids[1] == ids[0] + "-2"
    assert ids[0].startswith("nogood-" + "a" * 60 + "-" + "b" * 60)
    assert truth(store, *long_ids).count(Truth.OUT) >= 1


# --- retract says what would restore; add says how many one justification rests on ---------
def test_retract_reports_for_each_derived_belief_what_is_still_in(store):
    for bid in ("p", "q", "r", "x"):
        tms.add(store, bid, f"Premise {bid}.")
    tms.add(store, "a", "From p.", J(["p"]))
    tms.add(store, "b", "From a, q and r.", J(["a", "q", "r"]))
    tms.add_justification(store, "b", J(["p", "x"]))
    tms.add(store, "g", "Holds unless p.", J([], unless=["p"]))
    tms.add(store, "c", "From q unless g.", J(["q"], unless=["g"]))
    change, restorations = tms.retract_with_restorations(store, "p", "wrong")
    assert (change.went_in, change.went_out) == (["g"], ["a", "b", "c", "p"])
    shown = {r.id: [j.as_dict() for j in r.justifications] for r in restorations.found}
    assert shown == {
        "a": [{"justification": 1, "still_in": [], "not_in": ["p"], "unless_in": []}],
        "b": [{"justification": 1, "still_in": ["q", "r"], "not_in": ["a"], "unless_in": []},
              {"justification": 2, "still_in": ["x"], "not_in": ["p"], "unless_in": []}],
        "c": [{"justification": 1, "still_in": ["q"], "not_in": [], "unless_in": ["g"]}]}
    entry = last_entry(store)
    assert (entry.op, dict(entry.args), entry.reason) == ("retract", {"id": "p"}, "wrong")
    assert tms.verify(store) == []


def test_retract_leaves_out_pinned_and_premise_beliefs(store):
    tms.add(store, "p", "Premise p.")
    tms.add(store, "g", "Gated premise.", J([], unless=["p"]))
    tms.add(store, "a", "From p.", J(["p"]))
    tms.retract(store, "a")
    tms.add(store, "d", "From a or p.", J(["p"]))
    change, restorations = tms.retract_with_restorations(store, "p")
    assert "d" in change.went_out
    assert [r.id for r in restorations.found] == ["d"]  # a is pinned OUT; p is the one retracted
    again, none = tms.retract_with_restorations(store, "p")
    assert (again.went_out, none.found) == ([], ())


def test_retract_examines_a_large_cascade_up_to_a_limit(store):
    from engine.tms.fragility import restorations_in

    tms.add(store, "hub", "The hub.")
    tms.add(store, "side", "Beside it.")
    for i in range(5):
        tms.add(store, f"d{i}", f"Dependent {i}.", J(["hub", "side"]))
    change = tms.retract(store, "hub")
    found = store.read(lambda tx: restorations_in(tx, change.went_out, "hub", limit=3))
    assert [r.id for r in found.found] == ["d0", "d1", "d2"] and found.unexamined == 2



# --- challenge --id ----------------------------------------------------------------------------
def test_challenge_takes_the_callers_id(store):
    from engine.errors import InvalidInput
    from engine.memory import dialectic

    tms.add(store, "p", "Premise p.")
    tms.add(store, "b", "From p.", J(["p"]))
    tms.add(store, "c", "From later.", J(["later"]))
    done = dialectic.challenge(store, "b", "doubtful", challenge_id="doubt-1")
    assert (done.id, truth(store, "b", "doubt-1")) == ("doubt-1", (Truth.OUT, Truth.IN))
    assert tms.show(store, "doubt-1")[0].metadata["challenge_target"] == "b"
    assert dict(last_entry(store).args) == {"id": "b", "challenge": "doubt-1"}
    with pytest.raises(InvalidInput, match="already exists"):
        dialectic.challenge(store, "p", "again", challenge_id="doubt-1")
    with pytest.raises(InvalidInput, match="forward reference"):
        dialectic.challenge(store, "p", "again", challenge_id="later")
    assert truth(store, "p", "later") == (Truth.IN, None)
    dialectic.defend(store, "doubt-1", "answered")
    assert truth(store, "b") == (Truth.IN,)
    assert tms.verify(store) == []


# --- defeat, defeat with scope, migrate-retractions, mark-duplicate ----------------------------
def two_reasons(store):
    for bid in ("p", "q", "r"):
        tms.add(store, bid, f"Premise {bid}.")
    tms.add(store, "b", "B from p and q.", J(["p", "q"]))
    tms.add_justification(store, "b", J(["r"]))
    tms.add(store, "c", "C from b.", J(["b"]))


def test_defeat_one_justification_then_the_other_then_defend(store):
    from engine.memory import defeat, dialectic

    two_reasons(store)
    first = defeat.defeat(store, "b", 1, "over-generalizes", "p and q do not give b")
    assert (first.id, first.change.went_out) == ("defeat:b:j1", [])  # r still holds b
    d = tms.show(store, "defeat:b:j1")[0]
    assert (d.text, d.is_premise, d.truth) == ("p and q do not give b", True, Truth.IN)
    assert {k: d.metadata[k] for k in ("source_type", "defeater_type", "defeats",
                                       "justification")} == {
        "source_type": "defeat", "defeater_type": "over-generalizes", "defeats": "b",
        "justification": 1}
    entry = last_entry(store)
    assert (entry.op, dict(entry.args), entry.reason) == (
        "defeat", {"id": "b", "justification": 1, "type": "over-generalizes"},
        "p and q do not give b")
    b = tms.show(store, "b")[0]
    assert [j.outlist for j in b.justifications] == [("defeat:b:j1",), ()]
    second = defeat.defeat(store, "b", 2, "invalid-inference", "r is unrelated", "r-unrelated")
    assert (second.id, second.change.went_out) == ("r-unrelated", ["b", "c"])
    assert store.read(lambda tx: tx.get_beliefs(["r-unrelated"]))  # the caller's id
    dialectic.defend(store, "defeat:b:j1", "p and q do give b")
    assert truth(store, "b", "c", "defeat:b:j1") == (Truth.IN, Truth.IN, Truth.OUT)
    assert tms.verify(store) == []


def test_defeat_refuses_bad_input_and_writes_nothing(store):
    from engine.errors import InvalidInput, NotFound
    from engine.memory import defeat

    two_reasons(store)
    entries = len(changelog.log(store, LogQuery()))
    for call, error, match in [
        (lambda: defeat.defeat(store, "b", 3, "invalid-inference", "x"), InvalidInput,
         "2 justification"),
        (lambda: defeat.defeat(store, "p", 1, "invalid-inference", "x"), InvalidInput,
         "premise"),
        (lambda: defeat.defeat(store, "b", 1, "wrong", "x"), InvalidInput, "--type"),
        (lambda: defeat.defeat(store, "b", 0, "invalid-inference", "x"), InvalidInput,
         "from 1"),
        (lambda: defeat.defeat(store, "b", 1, "invalid-inference", " "), InvalidInput,
         "reason"),
        (lambda: defeat.defeat(store, "nope", 1, "invalid-inference", "x"), NotFound, "nope"),
        (lambda: defeat.defeat(store, "b", 1, "invalid-inference", "x", "q"), InvalidInput,
         "already exists"),
        (lambda: defeat.defeat(store, "b", 1, "invalid-inference", "x",
                               scopes=[defeat.Scope("r", "r says")]), InvalidInput,
         "not an antecedent"),
    ]:
        with pytest.raises(error, match=match):
            call()
    assert len(changelog.log(store, LogQuery())) == entries
    assert truth(store, "b") == (Truth.IN,)


def test_a_defeat_with_scope_comes_undone_when_a_scope_is_challenged(store):
    from engine.memory import defeat, dialectic

    two_reasons(store)
    tms.retract(store, "r")
    done = defeat.defeat(store, "b", 1, "over-generalizes", "b claims speed, which p and q lack",
                         scopes=[defeat.Scope("p", "p shows caching, not speed"),
                                 defeat.Scope("q", "q shows load, not speed")])
    assert done.scopes == ("scope:b:j1:p", "scope:b:j1:q")
    assert sorted(done.change.went_out) == ["b", "c"]
    d = tms.show(store, done.id)[0]
    assert [j.antecedents for j in d.justifications] == [("scope:b:j1:p", "scope:b:j1:q")]
    assert (d.truth, d.depth) == (Truth.IN, 1)
    scope = tms.show(store, "scope:b:j1:p")[0]
    assert (scope.text, scope.metadata["scope_of"], scope.metadata["for_defeater"]) == (
        "p shows caching, not speed", "p", done.id)
    dialectic.challenge(store, "scope:b:j1:q", "q does show speed")
    assert truth(store, done.id, "b", "c") == (Truth.OUT, Truth.IN, Truth.IN)
    assert tms.verify(store) == []


def test_scopes_from_a_peer_scope_file():
    from engine.errors import InvalidInput
    from engine.memory import defeat

    scopes, reason = defeat.scopes_from_findings({
        "scope_findings": [{"antecedent": "p", "establishes": "caching",
                            "does_not_establish": "speed"},
                           {"antecedent": "q", "establishes": "load"}],
        "missing_property": "speed"}, "b")
    assert scopes == [defeat.Scope("p", "What p establishes: caching. What it does not: speed."),
                      defeat.Scope("q", "What q establishes: load.")]
    assert reason == "b claims speed, which none of its antecedents establishes"
    for bad in ({}, {"scope_findings": []}, {"scope_findings": [{"antecedent": "p"}]}, []):
        with pytest.raises(InvalidInput, match="scope"):
            defeat.scopes_from_findings(bad, "b")


def test_migrate_retractions_turns_a_reason_into_a_defeater(store):
    from engine.memory import defeat, dialectic
    from engine.tms import explain

    two_reasons(store)
    tms.add(store, "lone", "Lone from p.", J(["p"]))
    tms.add(store, "dead", "Dead from gone.", J(["gone"]))
    tms.retract(store, "b", "the benchmark was wrong")
    tms.retract(store, "dead", "no support anyway")
    tms.retract(store, "q", "a premise")
    tms.retract(store, "lone")
    before = {b.id: (b.truth, b.retracted) for b in tms.list_beliefs(store)}
    dry = defeat.migrate_retractions(store, dry_run=True)
    assert [m.id for m in dry.migrated] == ["b"] and dry.dry_run
    assert {b.id: (b.truth, b.retracted) for b in tms.list_beliefs(store)} == before
    done = defeat.migrate_retractions(store)
    assert [m.as_dict() for m in done.migrated] == [{
        "id": "b", "reason": "the benchmark was wrong",
        "defeaters": [{"justification": 2, "id": "defeat:b:j2"}]}]
    assert dict(done.skipped) == {"dead": "no justification of it holds",
                                  "lone": "retracted without a reason",
                                  "q": "a premise: no justification to defeat"}
    b = tms.show(store, "b")[0]
    assert (b.truth, b.retracted, b.retract_reason) == (Truth.OUT, False, "")
    assert tms.show(store, "defeat:b:j2")[0].metadata["defeater_type"] == "migrated-retraction"
    assert "defeat:b:j2" in " ".join(explain.render_explanation(explain.explain(store, "b")))
    assert last_entry(store).op == "migrate-retractions"
    tms.assert_belief(store, "q")  # justification 1 holds again: b comes back by it
    assert truth(store, "b", "c") == (Truth.IN, Truth.IN)
    tms.retract(store, "q")
    dialectic.defend(store, "defeat:b:j2", "the benchmark was right")
    assert truth(store, "b") == (Truth.IN,)
    assert defeat.migrate_retractions(store).migrated == ()
    assert tms.verify(store) == []


def test_migrate_retractions_reads_a_peer_files_reason_and_skips_engine_retractions(store):
    from engine import interchange
    from engine.errors import NotFound
    from engine.memory import defeat
    from engine.model import Belief, Justification
    from engine.tms.records import Network

    network = Network({
        "p": Belief(id="p", text="Premise p."),
        "a": Belief(id="a", text="A from p.", justifications=(Justification(("p",)),),
                    metadata={"retract_reason": "superseded by the v2 design"}),
    }, [])
    interchange.import_network(store, network, {"p": Truth.IN, "a": Truth.OUT})
    tms.add(store, "n", "N from what is not there yet.", J(["later"]))
    tms.assert_belief(store, "n")  # a user-asserted fact: the assumption a nogood retracts
    tms.add(store, "m", "M contradicts n.")
    tms.add_nogood(store, ["m", "n"])
    assert {b.id for b in tms.list_beliefs(store) if b.retracted} == {"a", "n"}
    done = defeat.migrate_retractions(store, ["a", "n", "p"])
    assert [(m.id, m.reason) for m in done.migrated] == [("a", "superseded by the v2 design")]
    assert dict(done.skipped) == {"p": "not retracted", "n": "retracted by nogood resolution"}
    with pytest.raises(NotFound):
        defeat.migrate_retractions(store, ["nope"])


def test_mark_duplicate_retracts_and_records_the_canonical(store):
    from engine.errors import InvalidInput
    from engine.memory.duplicates import mark_duplicate

    two_reasons(store)
    tms.add(store, "b2", "B again, in other words.", J(["p"]))
    tms.add(store, "d", "D from b2.", J(["b2"]))
    change = mark_duplicate(store, "b2", "b")
    assert change.went_out == ["b2", "d"]
    dup = tms.show(store, "b2")[0]
    assert (dup.retracted, dup.retract_reason, dup.metadata["duplicate_of"]) == (
        True, "duplicate of b", "b")
    entry = last_entry(store)
    assert (entry.op, dict(entry.args)) == ("mark-duplicate", {"id": "b2", "canonical": "b"})
    with pytest.raises(InvalidInput, match="already"):
        mark_duplicate(store, "b2", "b")
    with pytest.raises(InvalidInput, match="rests on"):
        mark_duplicate(store, "p", "b")
    with pytest.raises(InvalidInput, match="itself"):
        mark_duplicate(store, "b", "b")
    assert truth(store, "p", "b") == (Truth.IN, Truth.IN)
    assert tms.verify(store) == []


def test_a_proposed_challenge_keeps_its_chosen_id(store):
    from engine.proposals import lifecycle

    tms.add(store, "p", "Premise p.")
    tms.add(store, "b", "From p.", J(["p"]))
    proposed = lifecycle.propose(store, "challenge", {"id": "b", "reason": "doubtful",
                                                      "challenge_id": "doubt-b"}, "doubtful")
    assert proposed.proposal.impact.went_in == ("doubt-b",)
    lifecycle.accept(store, proposed.proposal.id)
    assert truth(store, "b", "doubt-b") == (Truth.OUT, Truth.IN)


# --- add --namespace, import-agent --only-in ----------------------------------------------
def agent_network(**extra):
    from adapters.formats import parse_network

    def node(text, *antecedents, unless=(), truth="IN"):
        return {"text": text, "truth_value": truth, "justifications": [
            {"type": "SL", "antecedents": list(antecedents), "outlist": list(unless),
             "label": ""}] if antecedents or unless else []}

    nodes = {"region": node("One region."), "ops": node("Ops owns it."),
             "fast": node("Failover is fast.", "region"),
             "bug": node("A failover bug.", truth="OUT"),
             "safe": node("Failover is safe.", "fast", unless=["bug"]),
             "stale": node("Needs the bug.", "bug", truth="OUT")}
    nodes.update(extra)
    return parse_network({"meta": {}, "nodes": nodes, "nogoods": [
        {"id": "ng-1", "nodes": ["ops", "bug"]}, {"id": "ng-2", "nodes": ["ops", "fast"]}],
        "repos": {}})


def test_add_in_a_namespace_follows_its_switch_and_survives_a_sync(store):
    from engine.agents import import_agent as agents
    from engine.agents import sync_agent as agent_sync
    from engine.agents.adding import add_in_namespace
    from engine.errors import InvalidInput

    network, stored = agent_network()
    agents.import_agent(store, "ag", network, stored)
    ident, change = add_in_namespace(store, "ag", "note", "Our note on their failover.",
                                     J(["ag:fast"]))
    assert (ident, change.went_in) == ("ag:note", ["ag:note"])
    ident, _ = add_in_namespace(store, "ag", "ag:seen", "We saw it.")
    note, seen = (tms.show(store, i)[0] for i in ("ag:note", "ag:seen"))
    assert [j.antecedents for j in note.justifications] == [("ag:fast", "ag:active")]
    assert [j.antecedents for j in seen.justifications] == [("ag:active",)]
    assert seen.metadata["namespace"] == "ag" and seen.depth == 1
    assert dict(last_entry(store).args) == {"id": "ag:seen", "namespace": "ag"}
    tms.retract(store, "ag:active")
    assert truth(store, "ag:note", "ag:seen") == (Truth.OUT, Truth.OUT)
    tms.assert_belief(store, "ag:active")
    report = agent_sync.sync_agent(store, "ag", network, stored)
    assert report.diff.gone == []  # ours, not the file's: left alone
    assert truth(store, "ag:note", "ag:seen") == (Truth.IN, Truth.IN)
    with pytest.raises(InvalidInput, match="no namespace 'nope'"):
        add_in_namespace(store, "nope", "x", "X.")
    assert tms.verify(store) == []


def test_import_agent_only_in_leaves_out_what_the_file_holds_out(store):
    from engine.agents import import_agent as agents
    from engine.agents import sync_agent as agent_sync

    network, stored = agent_network()
    report = agents.import_agent(store, "ag", network, stored, only_in=True)
    assert report.left_out == ["ag:bug", "ag:stale"]
    assert report.beliefs == 4 and report.nogoods == 1  # ng-1 names the bug: left out
    assert truth(store, "ag:safe", "ag:bug") == (Truth.IN, None)
    assert last_entry(store).args["only_in"] is True
    now_out, stored_out = agent_network(fast={"text": "Failover is fast.",
                                               "truth_value": "OUT",
                                               "justifications": []})
    synced = agent_sync.sync_agent(store, "ag", now_out, stored_out, only_in=True)
    assert synced.diff.gone == ["ag:fast", "ag:safe"]  # OUT in the file now: gone
    assert truth(store, "ag:fast", "ag:safe") == (Truth.OUT, Truth.OUT)
    assert tms.verify(store) == []


# --- export --visible-to ---------------------------------------------------------------------
def tagged(store):
    tms.add(store, "hr-doc", "salaries rose 4%", metadata={"access_tags": ["hr"]})
    tms.add(store, "news", "the company did well")
    tms.add(store, "raise", "staff got a raise", J(["hr-doc", "news"]))
    tms.add(store, "cheer", "people cheer", J(["news"], unless=["hr-doc"]))
    tms.add(store, "gone", "a retracted secret", metadata={"access_tags": ["hr"]})
    tms.retract(store, "gone")
    tms.add(store, "hope", "hope, unless the secret", J(["news"], unless=["gone"]))
    tms.add(store, "doubt", "a doubt about the raise",
            metadata={"access_tags": ["hr"], "challenge_target": "raise"})
    tms.add(store, "fine", "all is fine", J(["news"]), metadata={"defeats": "hr-doc"})
    tms.add_nogood(store, ["cheer", "hr-doc"], "ng-hidden")
    tms.add_nogood(store, ["cheer", "news"], "ng-seen")


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_export_visible_to_leaves_out_what_the_client_may_not_see(store, driver, neo4j_settings,
                                                                  fmt, capsys, tmp_path):
    from engine import interchange
    from engine.cli.main import main
    from tests.conftest import empty_graph

    tagged(store)
    seen = {b.id: b.truth for b in tms.list_beliefs(store)}
    code = main(["export", "--visible-to", "", "--format", fmt])
    text = capsys.readouterr().out
    assert code == 0
    for secret in ("hr-doc", "salaries", "raise", "gone", "a retracted secret", "doubt",
                   "ng-hidden"):
        assert secret not in text, secret
    assert "hidden-1" in text and "hidden-2" in text
    path = tmp_path / ("beliefs.md" if fmt == "markdown" else "network.json")
    path.write_text(text, encoding="utf-8")
    empty_graph(driver, neo4j_settings.database)
    store.init_schema()
    from engine.service.registry import NetworkFile, read_network

    got = read_network(NetworkFile(str(path)))
    interchange.import_network(store, got.network, got.stored)
    again = {b.id: b.truth for b in tms.list_beliefs(store)}
    visible = {i: t for i, t in seen.items() if i in ("news", "cheer", "hope", "fine")}
    assert {i: t for i, t in again.items() if not i.startswith("hidden-")} == visible
    assert tms.show(store, "fine")[0].metadata["defeats"].startswith("hidden-")
    assert [n.id for n in store.read(lambda tx: tx.nogoods())] == ["ng-seen"]
    assert tms.verify(store) == []


def test_a_defeater_from_a_peer_file_can_be_defended(store):
    from engine.memory import dialectic

    tms.add(store, "p", "Premise p.")
    tms.add(store, "d", "p does not give b.", metadata={"defeats_node": "b",
                                                       "defeater_type": "invalid-inference"})
    tms.add(store, "b", "From p.", J(["p"], unless=["d"]))
    assert truth(store, "b") == (Truth.OUT,)
    dialectic.defend(store, "d", "it does")
    assert truth(store, "b", "d") == (Truth.IN, Truth.OUT)


# --- list --label ------------------------------------------------------------------------------
def test_list_by_a_justification_label(store):
    from engine.tms.records import BeliefFilter

    tms.add(store, "p", "Premise p.")
    tms.add(store, "q", "Premise q.")
    tms.add(store, "a", "From p.", J(["p"], label="Measured in the load test"))
    tms.add(store, "b", "From q.", J(["q"], label="from the design doc"))
    tms.add_justification(store, "b", J(["p"], label="load test again"))
    tms.add(store, "c", "From p, no label.", J(["p"]))
    summarize(store, "s", "P and q.", ["p", "q"])

    def listed(label, **more):
        return [b.id for b in tms.list_beliefs(store, BeliefFilter(label=label, **more))]

    assert listed("load test") == ["a", "b"]
    assert listed("LOAD TEST") == ["a", "b"]
    assert listed("summary") == ["s"]
    assert listed("nothing like it") == []
    tms.retract(store, "p")
    assert listed("load test", truth=Truth.IN) == ["b"]


# --- search: stemming, the index upgrade, --depth ----------------------------------------------
def test_search_stems(store):
    from engine.reading import search as searching

    tms.add(store, "switch-off", "Deploys are auto-deactivated at night.")
    tms.add(store, "caching", "The service caches tokens.")
    tms.add(store, "other", "Nothing to do with it.")

    def found(*words):
        return [h.belief.id for h in searching.search(store, list(words))]

    assert found("deactivation") == ["switch-off"]
    assert found("deactivates") == ["switch-off"]
    assert found("cached") == ["caching"]
    assert found("switch") == ["switch-off"]  # the id is indexed too
    assert found("deact") == ["switch-off"]  # a prefix still matches


def test_init_rebuilds_an_index_without_stemming(store, driver, neo4j_settings):
    from engine.reading import search as searching

    with driver.session(database=neo4j_settings.database) as session:
        session.run("DROP INDEX belief_text").consume()
        session.run("CREATE FULLTEXT INDEX belief_text FOR (b:Belief) ON EACH [b.text, b.id] "
                    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}"
                    ).consume()
        session.run("CALL db.awaitIndex('belief_text', 60)").consume()
    tms.add(store, "switch-off", "Deploys are auto-deactivated at night.")
    assert searching.search(store, ["deactivation"]) == []  # an older graph's index
    assert store.init_schema()["belief_text_stemming"] == 1
    assert [h.belief.id for h in searching.search(store, ["deactivation"])] == ["switch-off"]
    assert store.init_schema()["belief_text_stemming"] == 0


def neighbourhood(store):
    tms.add(store, "p", "The cache is warm.")
    tms.add(store, "q", "Keys rotate hourly.")
    tms.add(store, "x", "A known outage.")
    tms.add(store, "a", "Reads are fast.", J(["p"]))
    tms.add(store, "b", "Login is fast.", J(["a", "q"], unless=["x"]))
    tms.add(store, "c", "Users are happy.", J(["b"]))
    tms.add(store, "far", "Unrelated.", J(["q"]))


def test_search_depth_adds_the_neighbours_of_the_hits(store):
    from engine.errors import InvalidInput
    from engine.reading import search as searching

    neighbourhood(store)
    hits = [h.belief.id for h in searching.search(store, ["reads"])]
    assert hits == ["a"]

    def near(depth, include_out=False):
        return [(n.belief.id, n.distance)
                for n in searching.neighbours(store, hits, depth, include_out)]

    assert near(0) == []
    assert near(1) == [("p", 1)]  # b is OUT (x is IN)
    assert near(1, include_out=True) == [("b", 1), ("p", 1)]
    assert near(2, include_out=True) == [("b", 1), ("p", 1), ("c", 2), ("q", 2), ("x", 2)]
    with pytest.raises(InvalidInput, match="--depth"):
        searching.neighbours(store, hits, 6)


def test_search_depth_walks_through_visible_beliefs_only(store):
    from engine.visibility import VisibleStore
    from engine.memory import editing
    from engine.reading import search as searching

    neighbourhood(store)
    tms.retract(store, "x")
    editing.set_metadata(store, "b", "access_tags", ["hr"])
    seen = VisibleStore(store, frozenset())
    assert [(n.belief.id, n.distance) for n in searching.neighbours(seen, ["a"], 3)] == [
        ("p", 1)]  # b is hidden: neither listed nor walked through to c, q
    assert [n.belief.id for n in searching.neighbours(store, ["a"], 3)] == [
        "b", "p", "c", "q", "far"]
