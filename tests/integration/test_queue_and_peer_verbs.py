"""The review queue and the peers' remaining verbs (issue 46), on the real Neo4j through the
command line: `list --never-reviewed | --not-reviewed-since DAYS|POINT [--sort impact]`,
`search --sort relevance|impact|recent`, `status --namespace NS [--all]`, and `supersede
--transitive` (the what-if first; the older versions gated; what rested on OLD moved to NEW
where NEW can carry it; undo restoring all of it)."""
from __future__ import annotations

import json
import time

import pytest

from engine import tms
from engine.cli.main import main
from engine.review.records import ReviewStamp

pytestmark = pytest.mark.neo4j


@pytest.fixture
def engine(store, tmp_path, monkeypatch, neo4j_settings, capsys):
    for key, value in (("NEO4J_URI", neo4j_settings.uri), ("NEO4J_USER", neo4j_settings.user),
                       ("NEO4J_PASSWORD", neo4j_settings.password or ""),
                       ("NEO4J_DATABASE", neo4j_settings.database)):
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)

    def run(*argv: str, code: int = 0):
        got = main(list(argv))
        out = capsys.readouterr()
        assert got == code, (argv, out.out, out.err)
        return out

    return run


def as_json(engine, *argv: str, code: int = 0):
    return json.loads(engine(*argv, "--json", code=code).out)


def chain(store) -> None:
    """p -> a -> b -> c, p -> d; q -> e."""
    for bid in ("p", "q"):
        tms.add(store, bid, f"premise {bid}")
    for bid, on in (("a", "p"), ("b", "a"), ("c", "b"), ("d", "p"), ("e", "q")):
        tms.add(store, bid, f"{bid} from {on}", tms.make_justifications([on]))


def stamp(store, ids, at: str) -> None:
    store.write(lambda tx: tx.stamp_reviews([ReviewStamp(i, at, "x", "run") for i in ids]))


# --- the review queue -----------------------------------------------------------------------
def test_never_reviewed_lists_derived_beliefs_no_review_judged_by_impact(engine, store):
    chain(store)
    stamp(store, ["b"], "2000-01-01T00:00:00+00:00")
    listed = as_json(engine, "list", "--never-reviewed", "--sort", "impact")
    assert [(r["id"], r["impact"], r["reviewed_at"]) for r in listed["beliefs"]] == [
        ("a", 2, ""), ("c", 0, ""), ("d", 0, ""), ("e", 0, "")]
    text = engine("list", "--never-reviewed", "--sort", "impact").out.splitlines()
    assert text[0].split() == ["id", "truth", "depth", "impact", "reviewed", "text"]
    assert text[2].split()[:5] == ["a", "IN", "1", "2", "never"]


def test_not_reviewed_since_days_or_a_point_lists_the_older_and_the_never(engine, store):
    chain(store)
    stamp(store, ["a"], "2000-01-01T00:00:00+00:00")  # long ago
    engine("release", "v1")
    time.sleep(1.1)
    stamp(store, ["b"], time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()))
    ids = [r["id"] for r in as_json(engine, "list", "--not-reviewed-since", "30")["beliefs"]]
    assert ids == ["a", "c", "d", "e"]
    ids = [r["id"] for r in as_json(engine, "list", "--not-reviewed-since", "v1")["beliefs"]]
    assert ids == ["a", "c", "d", "e"]
    ids = [r["id"] for r in as_json(engine, "list", "--not-reviewed-since",
                                    "1999-01-01T00:00:00Z")["beliefs"]]
    assert ids == ["c", "d", "e"]
    err = engine("list", "--never-reviewed", "--as-of", "v1", code=2).err
    assert err.startswith("Error: --never-reviewed and --not-reviewed-since read the reviews")
    err = engine("list", "--not-reviewed-since", "last-week", code=2).err
    assert err.startswith("Error: no release named 'last-week'")
    err = engine("list", "--not-reviewed-since", "Last Week", code=2).err
    assert "--not-reviewed-since takes DAYS" in err


def test_an_imported_files_reviewed_at_counts_as_a_review(engine, store, tmp_path):
    net = {"nodes": {
        "p": {"text": "P", "truth_value": "IN", "justifications": []},
        "a": {"text": "A", "truth_value": "IN", "reviewed_at": "2026-01-01T00:00:00+00:00",
              "justifications": [{"type": "SL", "antecedents": ["p"], "outlist": []}]},
        "b": {"text": "B", "truth_value": "IN", "reviewed_at": "",
              "justifications": [{"type": "SL", "antecedents": ["p"], "outlist": []}]}}}
    (tmp_path / "net.json").write_text(json.dumps(net), encoding="utf-8")
    engine("import", "net.json")
    assert [r["id"] for r in as_json(engine, "list", "--never-reviewed")["beliefs"]] == ["b"]


# --- search --sort ---------------------------------------------------------------------------
def test_search_sorts_by_relevance_impact_or_recency(engine, store):
    tms.add(store, "cache-hub", "The cache holds sessions")
    tms.add(store, "cache-note", "The cache holds the cache of the cache")  # most relevant
    time.sleep(1.1)
    tms.add(store, "cache-new", "The cache holds tokens now")
    for k in range(3):
        tms.add(store, f"uses-{k}", f"user {k}", tms.make_justifications(["cache-hub"]))
    by_relevance = [h["id"] for h in as_json(engine, "search", "cache")["hits"]]
    assert by_relevance[0] == "cache-note"
    hits = as_json(engine, "search", "cache", "--sort", "impact")["hits"]
    assert [(h["id"], h["impact"]) for h in hits][0] == ("cache-hub", 3)
    hits = as_json(engine, "search", "cache", "--sort", "recent", "--limit", "1")["hits"]
    assert [h["id"] for h in hits] == ["cache-new"] and hits[0]["updated_at"]
    text = engine("search", "cache", "--sort", "impact").out.splitlines()
    assert text[0].split() == ["id", "truth", "depth", "dependents", "impact", "text"]
    with pytest.raises(SystemExit) as usage:
        main(["search", "cache", "--sort", "size"])
    assert usage.value.code == 2


# --- status --namespace, --all ---------------------------------------------------------------
def test_status_of_a_namespace_and_with_every_belief(engine, store, tmp_path):
    chain(store)
    agent = {"nodes": {
        "x": {"text": "X", "truth_value": "IN", "justifications": []},
        "y": {"text": "Y", "truth_value": "IN",
              "justifications": [{"type": "SL", "antecedents": ["x"], "outlist": []}]}}}
    (tmp_path / "bob.json").write_text(json.dumps(agent), encoding="utf-8")
    engine("import-agent", "bob", "bob.json")
    engine("retract", "bob:x")
    counted = as_json(engine, "status", "--namespace", "bob")
    assert {k: counted[k] for k in ("beliefs", "in", "out", "namespace")} == {
        "beliefs": 3, "in": 1, "out": 2, "namespace": "bob"}  # bob:active, bob:x, bob:y
    every = as_json(engine, "status", "--namespace", "bob", "--all")
    assert [(r["id"], r["truth"]) for r in every["listed"]] == [
        ("bob:active", "IN"), ("bob:x", "OUT"), ("bob:y", "OUT")]
    whole = as_json(engine, "status", "--all")
    assert whole["beliefs"] == len(whole["listed"]) == 10
    assert "3 beliefs in namespace bob: 1 IN, 2 OUT" in engine("status", "--namespace",
                                                              "bob").out
    assert "namespace 'nobody'" in engine("status", "--namespace", "nobody", code=2).err


# --- supersede --transitive ------------------------------------------------------------------
def versions(store) -> None:
    """v1 superseded by v2 (below); d1 rests on v1, d2 and n on v2; the newest version v3
    rests on k."""
    for bid, text in (("v1", "The limit is 10"), ("v2", "The limit is 20"),
                      ("k", "Load doubled")):
        tms.add(store, bid, text)
    tms.add(store, "d1", "Ten is enough", tms.make_justifications(["v1"]))
    tms.add(store, "d2", "Twenty is enough", tms.make_justifications(["v2"]))
    tms.add(store, "n", "Needs the limit", tms.make_justifications(["v2"]))
    tms.add(store, "v3", "The limit is 30", tms.make_justifications(["k"]))


def labels(store) -> dict[str, str]:
    return {b: tms.show(store, b)[0].truth.value for b in ("v1", "v2", "v3", "d1", "d2", "n")}


def rests_on(store, bid: str) -> list[tuple[str, ...]]:
    return [j.antecedents for j in tms.show(store, bid)[0].justifications if not j.gate]


def test_supersede_transitive_shows_the_what_if_then_moves_what_new_can_carry(engine, store):
    versions(store)
    engine("supersede", "v1", "v2")
    before = labels(store)
    assert before == {"v1": "OUT", "v2": "IN", "v3": "IN", "d1": "OUT", "d2": "IN", "n": "IN"}
    preview = as_json(engine, "supersede", "v2", "v3", "--transitive")
    assert (preview["written"], preview["chain"], preview["carried"],
            preview["not_carried"], preview["went_out"]) == (
        False, ["v1"], ["d2", "n"], [], ["v2"])
    assert labels(store) == before and rests_on(store, "d2") == [("v2",)]  # nothing written
    text = engine("supersede", "v2", "v3", "--transitive").out.splitlines()
    assert text[0] == "what-if (nothing written):"
    assert text[-1] == "the same command with --yes writes it"
    done = as_json(engine, "supersede", "v2", "v3", "--transitive", "--yes")
    assert (done["written"], done["chain"], done["carried"], done["went_out"]) == (
        True, ["v1"], ["d2", "n"], ["v2"])
    assert labels(store) == {**before, "v2": "OUT"}
    assert rests_on(store, "d2") == [("v3",)] and rests_on(store, "d1") == [("v1",)]
    engine("retract", "v3")  # with v3 gone, v2 is back; v1 is not: v2 still gates it
    assert labels(store)["v1"] == "OUT" and labels(store)["v2"] == "IN"
    engine("assert", "v3")
    engine("supersede", "v2", "--undo")
    assert labels(store) == before
    assert rests_on(store, "d2") == [("v2",)] and rests_on(store, "n") == [("v2",)]
    assert tms.show(store, "v1")[0].justifications[0].outlist == ("v2",)  # v3's gate gone


def test_supersede_transitive_moves_nothing_when_new_is_out(engine, store):
    versions(store)
    engine("supersede", "v1", "v2")
    engine("retract", "k")
    done = as_json(engine, "supersede", "v2", "v3", "--transitive", "--yes")
    assert done["carried"] == [] and done["not_carried"] == ["d2", "n"]
    assert rests_on(store, "d2") == [("v2",)]
    err = engine("supersede", "v1", "v3", "--transitive", "--no-rewire", code=2).err
    assert "--transitive moves what rests on OLD" in err
    assert "--yes goes with --transitive" in engine("supersede", "k", "v3", "--yes",
                                                    code=2).err
