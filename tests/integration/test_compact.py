"""`compact`, `summarize` and impact against the real Neo4j: what each section lists, the
budget, byte-stable output, --write."""
from __future__ import annotations

import json
import re
import sys

import pytest

from adapters.formats import parse_network, read_network_file
from engine import interchange, tms
from engine.memory.summaries import summarize
from engine.reading.compact import CompactOptions, compact
from engine.reading.impact import impacts
from engine.tokens import ESTIMATE
from tests.derive_fakes import derived, load, premise
from tests.in_process import eem

pytestmark = pytest.mark.neo4j

NETWORKS = ["system-design-eem.json", "data-intensive-applications-eem.json"]


def shop(store):
    """p1..p4; a (p1, p2), b (a, p3), c (b); gate: g unless bug (IN); review defeat on d."""
    load(store, [
        premise("p1", "The auth service validates a JWT on every request."),
        premise("p2", "Signing keys are fetched synchronously."),
        premise("p3", "The gateway waits for auth."),
        premise("p4", "A load test measured p99 of 900 ms."),
        premise("bug", "Bug 412 is open."),
        derived("a", ("p1", "p2"), text="Key fetches block validation."),
        derived("b", ("a", "p3"), text="Every request pays the key fetch."),
        derived("c", ("b",), text="Auth latency is user visible."),
        derived("g", ("p1",), text="Auth is ready for peak traffic.", unless=("bug",)),
        derived("d", ("p4",), text="The p99 comes from key fetches."),
        premise("review:d:j1", "missing-bridge: a latency does not name its cause"),
    ])
    store.write(lambda tx: (tx.add_defeater("d", 1, "review:d:j1"), tx.relabel(["d"])))


def test_sections_list_what_they_say(store):
    shop(store)
    tms.retract(store, "p4", "the load test was misconfigured")
    store.write(lambda tx: tms.assert_in(tx, "p4"))  # back IN: d stays defeated
    tms.retract(store, "p3", "the gateway no longer waits")
    out = compact(store, CompactOptions(budget=2000))
    by = {s.section.value: [line.id for line in s.shown] for s in out.sections}
    assert by["changes"] == ["b", "c", "p3", "d"]  # from the change log, newest first
    assert by["gated"] == ["g"]
    assert "closed by bug" in out.text
    assert by["premises"][:2] == ["p1", "p2"]  # p1 carries a, b, c, g; p2 a, b, c
    assert by["deepest"][0] == "a"
    assert by["defeated"] == []  # a belief is listed once: d is under changes
    assert "p1 [IN, depth 0, impact 4]" in out.text
    assert out.tokens <= 2000 and out.tokens == ESTIMATE.count(out.text)


def test_a_challenge_is_listed_beside_review_s_defeats(store):
    from engine.memory import dialectic

    shop(store)
    dialectic.challenge(store, "c", "users never see auth latency: it is hidden by the cache")
    with store._driver.session(database=store._database) as s:  # no recent changes to list
        s.run("MATCH (c:Change) SET c.went_out = []").consume()
    out = compact(store, CompactOptions(budget=2000))
    by = {s.section.value: [line.id for line in s.shown] for s in out.sections}
    assert by["defeated"] == ["c", "d"]
    assert "challenged: users never see auth latency" in out.text
    assert "defeated by review: missing-bridge" in out.text


def test_impact_counts_transitive_dependents_once(store):
    shop(store)
    found = impacts(store, ["p1", "a", "c", "nope"])
    assert found == {"p1": 4, "a": 2, "c": 0}  # p1: a, b, c, g


def test_the_budget_holds_and_the_footer_says_what_was_left_out(store):
    shop(store)
    for budget in (200, 250, 300, 800):
        out = compact(store, CompactOptions(budget=budget))
        assert out.tokens <= budget
        assert ESTIMATE.count(out.text) == out.tokens
        left = out.text.splitlines()[-2]
        assert left.startswith("-- left out: ")
    small = compact(store, CompactOptions(budget=200))
    assert any(s.left_out for s in small.sections)


def test_a_budget_below_the_headings_is_refused(store):
    shop(store)
    from engine.errors import InvalidInput

    with pytest.raises(InvalidInput, match="too small"):
        compact(store, CompactOptions(budget=20))


def test_two_runs_give_the_same_bytes(store, neo4j_settings, tmp_path, monkeypatch):
    """What a user pastes into a file must not move between runs: two processes with
    different hash seeds (set and dict orders differ) print the same bytes, those of the
    library."""
    shop(store)
    printed = []
    for seed in ("1", "2"):
        monkeypatch.setenv("PYTHONHASHSEED", seed)
        run = _cli(["compact", "--budget", "400"], neo4j_settings, tmp_path)
        assert run.returncode == 0, run.stderr
        printed.append(run.stdout)
    assert printed[0] == printed[1]
    assert printed[0].rstrip("\n") == compact(store, CompactOptions(budget=400)).text.rstrip("\n")
    assert "Auth latency is user visible." in printed[0]


def test_a_summary_stands_for_what_it_covers_while_in(store):
    shop(store)
    summarize(store, "auth-summary", "Auth validates JWTs with keys fetched on the request path",
              ["p1", "p2"])
    out = compact(store, CompactOptions(budget=2000))
    ids = [line.id for s in out.sections for line in s.shown]
    assert "auth-summary" in ids and "p1" not in ids and "p2" not in ids
    assert "summary of 2" in out.text
    tms.retract(store, "p2")
    again = compact(store, CompactOptions(budget=2000))
    assert "summary of 2" not in again.text  # OUT: no longer stands for them
    assert "p1" in [line.id for s in again.sections for line in s.shown]


def test_summarize_refuses_unknown_and_too_few(store):
    from engine.errors import InvalidInput, NotFound

    shop(store)
    with pytest.raises(NotFound):
        summarize(store, "s", "text", ["p1", "nope"])
    with pytest.raises(InvalidInput, match="at least two"):
        summarize(store, "s", "text", ["p1"])
    assert tms.show_many(store, ["s"]) == {}


def test_scope_by_topic_and_around(store):
    shop(store)
    topic = compact(store, CompactOptions(budget=2000, topic=("gateway",)))
    ids = {line.id for s in topic.sections for line in s.shown}
    assert ids == {"p3"}
    around = compact(store, CompactOptions(budget=2000, around="c", steps=1))
    assert {line.id for s in around.sections for line in s.shown} <= {"b", "c"}
    from engine.errors import NotFound

    with pytest.raises(NotFound):
        compact(store, CompactOptions(around="nope"))


def _cli(args, neo4j_settings, cwd):
    import os

    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.password or "",
               NEO4J_DATABASE=neo4j_settings.database)
    from tests.conftest import ROOT

    env["PYTHONPATH"] = str(ROOT)
    return eem(args, env, cwd=cwd)


def test_cli_write_keeps_the_rest_of_the_file(store, neo4j_settings, tmp_path):
    shop(store)
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Rules\n\nBe brief.\n", encoding="utf-8")
    r = _cli(["compact", "--budget", "300", "--write", str(target)], neo4j_settings, tmp_path)
    assert r.returncode == 0, r.stderr
    first = target.read_text(encoding="utf-8")
    assert first.startswith("# Rules\n\nBe brief.\n")
    target.write_text(first + "\nafter the block\n", encoding="utf-8")
    r = _cli(["compact", "--budget", "400", "--write", str(target)], neo4j_settings, tmp_path)
    assert r.returncode == 0, r.stderr
    second = target.read_text(encoding="utf-8")
    assert second.startswith("# Rules\n\nBe brief.\n") and second.endswith("\nafter the block\n")
    assert second.count("<!-- eem:compact -->") == 1 and "/400 tokens" in second
    shown = _cli(["compact", "--budget", "400"], neo4j_settings, tmp_path)
    assert shown.stdout.strip() in second
    bad = _cli(["compact", "--topic", "x", "--around", "p1"], neo4j_settings, tmp_path)
    assert bad.returncode == 2 and "not allowed with" in bad.stderr


def test_show_and_list_carry_impact(store, neo4j_settings, tmp_path):
    shop(store)
    r = _cli(["show", "p1", "--json"], neo4j_settings, tmp_path)
    assert json.loads(r.stdout)["impact"] == 4
    r = _cli(["list", "--sort", "impact", "--json"], neo4j_settings, tmp_path)
    rows = json.loads(r.stdout)["beliefs"]
    assert rows[0]["id"] == "p1" and rows[0]["impact"] == 4


@pytest.mark.slow
@pytest.mark.network_data
@pytest.mark.parametrize("name", NETWORKS)
def test_the_budget_holds_on_the_real_networks(store, shared_networks, name):
    network, stored = read_network_file(shared_networks / name)
    interchange.import_network(store, network, stored)
    for budget in (300, 800, 2000):
        out = compact(store, CompactOptions(budget=budget))
        assert out.tokens <= budget
        assert sum(len(s.shown) for s in out.sections) > 0
    assert compact(store).text == compact(store).text


@pytest.mark.slow
def test_the_budget_holds_on_a_large_generated_network(store):
    from tests.conftest import ROOT

    sys.path.insert(0, str(ROOT / "scripts" / "bench"))
    import synthetic

    network, stored = parse_network(synthetic.generate(5000))
    interchange.import_network(store, network, stored)
    out = compact(store, CompactOptions(budget=800))
    assert out.tokens <= 800
    premises = next(s for s in out.sections if s.section.value == "premises")
    assert premises.shown[0].id == synthetic.HUB  # the hub carries the most
    assert compact(store, CompactOptions(budget=800)).text == out.text


def test_recent_changes_come_from_the_change_log_when_there_is_one(store):
    shop(store)
    tms.retract(store, "p3", "the gateway no longer waits")
    out = compact(store, CompactOptions(budget=2000))
    changes = next(s for s in out.sections if s.section.value == "changes")
    assert changes.source == "change log"
    assert [line.id for line in changes.shown] == ["b", "c", "p3", "d"]
    assert re.search(r"p3 \[OUT[^\n]*\| retract \d{4}-\d\d-\d\d( by [^:]+)?: the gateway "
                     r"no longer waits", out.text)


def test_a_small_budget_on_a_topic_goes_to_its_beliefs_not_to_empty_headings(store):
    shop(store)
    load(store, [
        premise("enc-utf8", "The encoder writes every string as UTF-8 without a byte order mark."),
        premise("enc-batch", "The encoder flushes its buffer every 64 records or every second."),
        derived("enc-delay", ("enc-batch",),
                text="An encoder flush can hold a record back for up to one second."),
        derived("enc-portable", ("enc-utf8",),
                text="Files the encoder writes read back the same on every platform."),
    ])
    small = compact(store, CompactOptions(budget=200, topic=("encoder",)))
    assert len([line for s in small.sections for line in s.shown]) >= 2
    assert small.tokens <= 200
    assert "(none)" not in small.text
    assert "## 1. Nogoods" not in small.text  # empty here: named once, not given a heading
    assert "(none in scope: nogoods, changes, gated, defeated)" in small.text
    assert small.text.count("\n## ") == sum(1 for s in small.sections if s.shown)
    out = compact(store, CompactOptions(budget=300, topic=("encoder",)))
    assert {line.id for s in out.sections for line in s.shown} == {
        "enc-utf8", "enc-batch", "enc-delay", "enc-portable"}
    assert "-- left out: nothing" in out.text and out.tokens <= 300
