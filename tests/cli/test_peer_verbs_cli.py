"""The verbs of issue 38 on the command line against the real Neo4j: what they print, their
--json, and one `Error:` line with exit 2 for bad input."""
from __future__ import annotations

import pytest

from engine import tms
from tests.cli.test_tms_cli import cli, cli_json, env  # noqa: F401  (the fixtures)

pytestmark = pytest.mark.neo4j


def test_add_says_how_many_one_justification_rests_on(cli, store):  # noqa: F811
    for bid in ("p", "q", "r"):
        tms.add(store, bid, f"premise {bid}")
    assert cli("add", "b", "from all three", "--sl", "p,q,r").stdout.splitlines() == [
        "IN  b", "note: b rests on all 3 of p, q, r: retracting any one takes it OUT "
        "(if each is enough alone, add it with --any)"]
    assert cli_json(cli, "add-justification", "b", "--sl", "q,r,p") == {
        "went_in": [], "went_out": [],
        "fragile": [{"justification": 1, "rests_on": 3, "antecedents": ["q", "r", "p"]}]}
    assert cli("add", "c", "from two", "--sl", "p,q").stdout.splitlines() == ["IN  c"]
    assert cli("add", "d", "from any", "--sl", "p,q,r", "--any").stdout.splitlines() == ["IN  d"]


def test_retract_says_what_would_bring_back_what_went_out(cli, store):  # noqa: F811
    for bid in ("p", "q", "r"):
        tms.add(store, bid, f"premise {bid}")
    tms.add(store, "a", "from p", tms.make_justifications(["p"]))
    tms.add(store, "b", "from a, q, r", tms.make_justifications(["a", "q", "r"]))
    assert cli("retract", "p").stdout.splitlines() == [
        "OUT a", "OUT b", "OUT p",
        "what would bring them back (antecedents still IN, and what each needs):",
        "  b (justification 1): still IN q, r; needs a"]
    assert cli_json(cli, "retract", "q")["restore"] == []


def reasons(store):
    for bid in ("p", "q", "r"):
        tms.add(store, bid, f"premise {bid}")
    tms.add(store, "b", "from p and q", tms.make_justifications(["p", "q"]))


def test_defeat_defend_and_a_scope_file(cli, store, tmp_path):  # noqa: F811
    import json

    reasons(store)
    assert cli("defeat", "b", "--justification", "1", "--type", "over-generalizes",
               "--reason", "p and q do not give b").stdout.splitlines() == [
        "defeat:b:j1 defeats justification 1 of b (over-generalizes)", "IN  defeat:b:j1",
        "OUT b"]
    assert cli("defend", "defeat:b:j1", "--reason", "they do").stdout.splitlines()[0] == (
        "defence:defeat:b:j1 defends defeat:b:j1")
    scope = tmp_path / "scope.json"
    scope.write_text(json.dumps({"scope_findings": [
        {"antecedent": "p", "establishes": "caching", "does_not_establish": "speed"}],
        "missing_property": "speed"}))
    done = cli_json(cli, "defeat", "b", "--justification", "1", "--scope-file", str(scope),
                    "--scope", "q=q shows load, not speed", "--id", "b-is-not-fast")
    assert (done["id"], done["scopes"], done["went_out"]) == (
        "b-is-not-fast", ["scope:b:j1:q", "scope:b:j1:p"], ["b"])
    shown = cli_json(cli, "show", "b-is-not-fast")
    assert shown["text"] == "b claims speed, which none of its antecedents establishes"
    assert cli_json(cli, "show", "scope:b:j1:p")["text"] == (
        "What p establishes: caching. What it does not: speed.")


def test_challenge_with_an_id_and_mark_duplicate(cli, store):  # noqa: F811
    reasons(store)
    assert cli("challenge", "b", "--reason", "doubt", "--id", "doubt-b").stdout.splitlines() == [
        "doubt-b challenges b", "IN  doubt-b", "OUT b"]
    tms.add(store, "p2", "premise p, again")
    assert cli("mark-duplicate", "p2", "p").stdout.splitlines() == [
        "p2 marked a duplicate of p (retracted)", "OUT p2"]
    assert cli_json(cli, "get-metadata", "p2", "duplicate_of")["value"] == "p"


def test_migrate_retractions_dry_run_first(cli, store):  # noqa: F811
    reasons(store)
    tms.retract(store, "b", "measured wrong")
    assert cli("migrate-retractions", "--dry-run").stdout.splitlines() == [
        "dry run: nothing written", "b: justification 1 defeated by defeat:b:j1: measured wrong",
        "IN  defeat:b:j1"]
    assert tms.show(store, "b")[0].retracted
    done = cli_json(cli, "migrate-retractions", "b")
    assert (done["dry_run"], done["migrated"][0]["defeaters"]) == (
        False, [{"justification": 1, "id": "defeat:b:j1"}])
    assert not tms.show(store, "b")[0].retracted
    assert cli("migrate-retractions").stdout.splitlines() == [
        "no retracted belief to migrate", "no label changed"]


@pytest.mark.parametrize("args, fragment", [
    (["defeat", "b", "--justification", "2", "--reason", "x"], "1 justification(s), not 2"),
    (["defeat", "b", "--justification", "1"], "give a --reason"),
    (["defeat", "b", "--justification", "1", "--reason", "x", "--scope", "p"],
     "--scope takes ANTECEDENT=TEXT"),
    (["defeat", "b", "--justification", "1", "--reason", "x", "--scope-file", "/nonexistent"],
     "cannot read /nonexistent"),
    (["defeat", "b", "--justification", "1", "--reason", "x", "--type", "wrong"],
     "invalid choice"),
    (["challenge", "b", "--reason", "x", "--id", "p"], "already exists"),
    (["mark-duplicate", "p", "b"], "rests on"),
    (["mark-duplicate", "p", "nope"], "nope"),
    (["migrate-retractions", "nope"], "nope"),
])
def test_bad_input_is_one_error_line_and_nothing_written(cli, store, args, fragment):  # noqa: F811
    from tests.cli.test_tms_cli import assert_one_error_line, exported

    reasons(store)
    before = exported(store)
    result = cli(*args, code=2)
    if fragment == "invalid choice":
        assert fragment in result.stderr
    else:
        assert_one_error_line(result, fragment)
    assert exported(store) == before


def test_add_in_a_namespace_and_import_agent_only_in(cli, store, tmp_path):  # noqa: F811
    import json

    from tests.cli.test_tms_cli import assert_one_error_line

    network = {"meta": {}, "repos": {}, "nogoods": [], "nodes": {
        "up": {"text": "The service is up.", "truth_value": "IN", "justifications": []},
        "bug": {"text": "A bug.", "truth_value": "OUT", "justifications": []}}}
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(network))
    out = cli("import-agent", "ag", str(path), "--only-in").stdout
    assert "left out (not IN in the file; --only-in): 1: ag:bug" in out
    assert cli("add", "note", "our note", "--namespace", "ag", "--sl", "ag:up"
               ).stdout.splitlines() == ["IN  ag:note"]
    shown = cli_json(cli, "show", "ag:note")
    assert shown["justifications"][0]["antecedents"] == ["ag:up", "ag:active"]
    assert cli("retract", "ag:active").stdout.splitlines()[:3] == [
        "OUT ag:active", "OUT ag:note", "OUT ag:up"]
    proposed = cli_json(cli, "propose", "add", "later", "a later note", "--namespace", "ag",
                        "--reason", "seen")
    assert (proposed["target"], proposed["args"]["namespace"]) == ("ag:later", "ag")
    assert_one_error_line(cli("add", "x", "X", "--namespace", "nope", code=2),
                          "no namespace 'nope'")


def test_list_label(cli, store):  # noqa: F811
    reasons(store)
    tms.add(store, "c", "from r", tms.make_justifications(["r"], label="Seen in prod"))
    assert [b["id"] for b in cli_json(cli, "list", "--label", "seen in")["beliefs"]] == ["c"]
    assert "c " in cli("list", "--label", "prod").stdout


def test_search_depth(cli, store):  # noqa: F811
    tms.add(store, "p", "deploys are auto-deactivated at night")
    tms.add(store, "a", "nothing runs late", tms.make_justifications(["p"]))
    out = cli("search", "deactivation", "--depth", "1").stdout.splitlines()
    assert out[2].startswith("p ") and "within 1 justification step(s) of them:" in out
    assert out[-1].split()[:3] == ["a", "1", "IN"]
    found = cli_json(cli, "search", "deactivation", "--depth", "2")
    assert [h["id"] for h in found["hits"]] == ["p"]
    assert [(n["id"], n["distance"]) for n in found["neighbours"]] == [("a", 1)]
    assert [h["id"] for h in cli_json(cli, "search", "deactivation")["hits"]] == ["p"]
    assert "--depth takes a number from 0 to 5" in cli("search", "x", "--depth", "9",
                                                        code=2).stderr


def test_list_label_as_of_a_release_and_negative_refuses_as_of(cli, store):  # noqa: F811
    from tests.cli.test_tms_cli import assert_one_error_line

    reasons(store)
    tms.add(store, "c", "from r", tms.make_justifications(["r"], label="seen in prod"))
    tms.add(store, "e", "from p", tms.make_justifications(["p"], label="read in a doc"))
    cli("release", "v1")
    tms.add(store, "d", "from q", tms.make_justifications(["q"], label="seen in prod too"))
    assert [b["id"] for b in cli_json(cli, "list", "--label", "prod", "--as-of", "v1")["beliefs"]] == ["c"]
    assert [b["id"] for b in cli_json(cli, "list", "--label", "prod")["beliefs"]] == ["c", "d"]
    assert_one_error_line(cli("list", "--negative", "--as-of", "v1", code=2), "--negative")
