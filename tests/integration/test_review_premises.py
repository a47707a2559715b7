"""`review --premises` on the real Neo4j: a scripted reviewer (langchain-core fake chat
model) confirms one premise, calls one misread, one partial, and gives one ungrounded quote
that the retry fixes; labels checked after each apply against the from-scratch labelling;
a proposals file accepted; --apply-suggestions rewords the partial premise and rewires what
rested on it."""
from __future__ import annotations

from pathlib import Path

import pytest

from adapters.sources.reader import FileSourceReader
from engine import tms
from engine.change_records import LogQuery
from engine.memory import changelog
from engine.memory.supersede import undo_supersede
from engine.model import Belief
from engine.review_premises.stage import PremiseReviewStage, PremiseSettings
from engine.stages.accept import accept
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained
from engine.stages.run import RunOptions, run_stage
from engine.tms import add_beliefs_in
from tests.derive_fakes import ScriptedChatModel
from tests.premise_review_fakes import (
    CONFIRM,
    DOC,
    GROUNDED,
    MISREAD,
    NARROWER,
    PARTIAL,
    PATH,
    PINS,
    UNGROUNDED,
    load_pinned,
    reply,
    write_source,
)

pytestmark = pytest.mark.neo4j


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_source(tmp_path)


@pytest.fixture
def net(store, root):
    load_pinned(store)
    return store


def stage(root: Path, **settings) -> PremiseReviewStage:
    return PremiseReviewStage(FileSourceReader(root), PremiseSettings(**settings))


def run(store, st, *script, auto=True, output=None):
    chat = ScriptedChatModel(script=list(script))
    result = run_stage(store, st, unconstrained(chat),
                       RunOptions(model="fake", auto=auto, output=output,
                                  calls=CallPolicy(sleep=lambda s: None),
                                  accept_command="python -m engine.review accept"))
    return result, chat


def belief(store, bid):
    return tms.show(store, bid)[0]


@pytest.fixture
def graph(driver, neo4j_settings):
    """Rows of a Cypher statement, read straight from the database."""
    def rows(query: str, **params) -> list[dict]:
        with driver.session(database=neo4j_settings.database) as session:
            return session.run(query, params).data()
    return rows


def reviewed_edges(graph):
    return graph("MATCH (r:Round)-[e:REVIEWED]->(b:Belief) RETURN b.id AS id, "
                 "properties(e) AS e, r.stage AS stage ORDER BY id")


def test_the_prompt_shows_each_claim_with_its_source_lines_most_depended_on_first(net, root):
    shown = stage(root).read_round(net, 1)
    assert shown.shown[0] == "keys-fetched-per-request"  # two beliefs rest on it
    assert set(shown.shown) == set(PINS)
    text = shown.prompt.text
    assert "Claim: Signing keys are fetched synchronously on every request." in text
    assert f"Source: {PATH}, pinned at line 3" in text
    assert "3| Signing keys are fetched from the identity provider" in text
    assert shown.details["due"] == 4 and shown.details["with_source"] == 4


def test_a_round_confirms_retracts_suggests_and_retries_an_ungrounded_quote(net, root, graph):
    before = changelog.log(net, LogQuery(limit=1))[0].seq
    result, chat = run(net, stage(root), reply(CONFIRM, MISREAD, PARTIAL, UNGROUNDED),
                       reply(GROUNDED))
    r1 = result.report.rounds[0]
    assert (r1.error, r1.skipped) == (None, []), (r1.error, r1.skipped)
    assert len(chat.received) == 2  # the ungrounded quote asked for the one retry
    retry = chat.received[1][-1].content
    assert "does not occur in the lines shown" in retry and "gateway-waits-for-auth" in retry

    assert tms.verify(net) == []
    keys = belief(net, "keys-fetched-per-request")
    assert keys.truth.value == "OUT" and keys.retracted
    assert keys.retract_reason.startswith("premise review: misread (misread)")
    assert belief(net, "keys-block").truth.value == "OUT"  # the dependents follow
    assert belief(net, "auth-sound").truth.value == "OUT"
    assert belief(net, "auth-latency-900ms").truth.value == "IN"  # partial: suggested only
    assert belief(net, "latency-matters").truth.value == "IN"

    jwt = belief(net, "jwt-every-request")
    assert jwt.metadata["quote"] == CONFIRM["quote"] and jwt.metadata["lines"] == [2, 2]
    props = graph(
        "MATCH (b:Belief)-[f:FROM]->(:Source) WHERE b.id IN $ids "
        "RETURN b.id AS id, f.lines AS lines, b.verified_at AS verified ORDER BY id",
        ids=["jwt-every-request", "gateway-waits-for-auth", "auth-latency-900ms"])
    by_id = {r["id"]: r for r in props}
    assert by_id["jwt-every-request"]["verified"] and by_id["gateway-waits-for-auth"]["verified"]
    assert by_id["gateway-waits-for-auth"]["lines"] == [7, 7]
    assert by_id["auth-latency-900ms"]["verified"] is None  # partial is not verified

    edges = {r["id"]: r for r in reviewed_edges(graph)}
    assert set(edges) == set(PINS) and {r["stage"] for r in edges.values()} == {"review"}
    assert edges["auth-latency-900ms"]["e"]["suggestion"] == NARROWER
    assert edges["keys-fetched-per-request"]["e"]["action"] == "retracted"
    assert edges["gateway-waits-for-auth"]["e"]["quote_lines"] == [7, 7]

    (entry,) = [e for e in changelog.log(net, LogQuery(limit=5)) if e.seq > before]
    assert entry.op == "review" and entry.actor == result.report.run_id
    assert {"keys-fetched-per-request", "keys-block", "auth-sound"} <= set(entry.went_out)
    # everything judged carries a current review: nothing is due next round
    assert stage(root).read_round(net, 2).empty


def test_a_quote_still_ungrounded_after_the_retry_leaves_the_premise_unreviewed(net, root, graph):
    run(net, stage(root), reply(CONFIRM, MISREAD, PARTIAL, UNGROUNDED), reply(UNGROUNDED))
    gateway = belief(net, "gateway-waits-for-auth")
    assert gateway.truth.value == "IN" and "gateway-waits-for-auth" not in {
        r["id"] for r in reviewed_edges(graph)}
    assert stage(root).read_round(net, 2).shown == ("gateway-waits-for-auth",)


def test_a_proposals_file_changes_nothing_until_accepted(net, root, graph, tmp_path):
    out = tmp_path / "proposed-review.md"
    run(net, stage(root), reply(CONFIRM, MISREAD, PARTIAL, GROUNDED), auto=False, output=out)
    assert belief(net, "keys-fetched-per-request").truth.value == "IN"
    assert reviewed_edges(graph) == []
    text = out.read_text()
    assert '"mode": "premises"' in text and "keys-fetched-per-request: misread" in text

    result = accept(net, stage(root), out)
    assert sorted(e.id for e in result.applied.entries) == sorted(PINS)
    assert belief(net, "keys-fetched-per-request").truth.value == "OUT"
    assert belief(net, "keys-block").truth.value == "OUT"
    assert tms.verify(net) == []
    # the file is about the lines as they were: once the source changes, nothing applies
    (root / PATH).write_text(DOC.replace("900 ms", "800 ms"), encoding="utf-8")
    again = accept(net, stage(root), out)
    assert again.applied.entries == []
    assert all("changed" in s.reason or "not an IN premise" in s.reason
               for s in again.applied.checked.skipped)


def test_apply_suggestions_rewords_the_partial_premise_and_rewires_its_dependents(net, root, graph):
    run(net, stage(root, apply_suggestions=True), reply(CONFIRM, MISREAD, PARTIAL, GROUNDED))
    assert tms.verify(net) == []
    old = belief(net, "auth-latency-900ms")
    new = belief(net, "auth-latency-900ms-v2")
    assert old.truth.value == "OUT" and new.truth.value == "IN" and new.text == NARROWER
    assert new.source == PATH and new.is_premise
    matters = belief(net, "latency-matters")
    assert matters.truth.value == "IN"
    assert "auth-latency-900ms-v2" in matters.justifications[0].antecedents
    assert "auth-latency-900ms" not in matters.justifications[0].antecedents
    (edge,) = [r for r in reviewed_edges(graph) if r["id"] == "auth-latency-900ms"]
    assert edge["e"]["action"] == "suggestion applied"
    assert edge["e"]["successor"] == "auth-latency-900ms-v2"
    # the reworded claim has not been checked against its source yet: it is due
    assert stage(root).read_round(net, 2).shown == ("auth-latency-900ms-v2",)
    # and a person who disagrees undoes the reword: the old claim and its dependents' edges
    undo_supersede(net, "auth-latency-900ms")
    assert belief(net, "auth-latency-900ms").truth.value == "IN"
    assert "auth-latency-900ms" in belief(net, "latency-matters").justifications[0].antecedents
    assert tms.verify(net) == []


def test_a_premise_without_a_hash_or_with_a_changed_source_is_not_due(net, root, store):
    store.write(lambda tx: add_beliefs_in(tx, [Belief("imported", "Imported claim.",
                                                      source=PATH)]))
    (root / PATH).write_text(DOC + "\nMore.\n", encoding="utf-8")
    shown = stage(root).read_round(net, 1)
    assert shown.empty
    assert shown.details["unpinned"] == 1 and shown.details["changed"] == 4


@pytest.mark.slow
@pytest.mark.network_data
def test_a_real_network_names_sources_without_pins_so_nothing_is_due(store, shared_networks,
                                                                     tmp_path):
    import json

    from adapters.formats import parse_network
    from engine import interchange

    data = json.loads((shared_networks / "system-design-eem.json").read_text(encoding="utf-8"))
    interchange.import_network(store, *parse_network(data))
    named = sum(1 for b in data["nodes"].values()
                if b.get("source") and not b.get("justifications") and b["truth_value"] == "IN")
    shown = stage(tmp_path).read_round(store, 1)
    assert shown.empty and named > 900
    assert shown.details["with_source"] == shown.details["unpinned"] == named
