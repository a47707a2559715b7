"""`python -m engine search` and `python -m engine batch` as a user runs them, against the
real Neo4j: outputs, --json shapes, exit codes, and nothing written by a failing line."""
from __future__ import annotations

import json
import subprocess

import pytest

from engine import tms
from tests.cli.test_tms_cli import ROOT, assert_one_error_line, build, cli, cli_json, env  # noqa: F401
from tests.in_process import eem

pytestmark = pytest.mark.neo4j


def batch(env, *args, stdin: str = "") -> subprocess.CompletedProcess:  # noqa: F811
    return eem(["batch", *args], env, input=stdin)


def labels(store) -> dict[str, str]:
    return {b.id: b.truth.value for b in tms.list_beliefs(store)}


# --- search -----------------------------------------------------------------------------
def test_search_finds_by_text_and_id_with_label_depth_and_dependents(cli, store):
    build(store)
    tms.add(store, "cache-stale", "The cache serves stale reads")
    hits = cli_json(cli, "search", "premise")["hits"]
    assert [h["id"] for h in hits] == ["p", "q"]  # q's text: "another premise"
    assert hits[0] | {"score": 0} == {"id": "p", "text": "a premise", "truth": "IN", "depth": 0,
                                      "dependents": 1, "score": 0, "text_rank": 1,
                                      "semantic_rank": None}
    assert [h["id"] for h in cli_json(cli, "search", "cache-stale")["hits"]] == ["cache-stale"]
    assert [h["id"] for h in cli_json(cli, "search", "stal")["hits"]] == ["cache-stale"]  # a prefix
    text = cli("search", "premise").stdout
    assert "dependents" in text.splitlines()[0] and "p " in text


def test_search_leaves_out_out_beliefs_unless_all(cli, store):
    build(store)
    tms.retract(store, "p")
    assert [h["id"] for h in cli_json(cli, "search", "premise")["hits"]] == ["q"]
    assert [h["id"] for h in cli_json(cli, "search", "premise", "--in")["hits"]] == ["q"]
    found = {h["id"]: h["truth"] for h in cli_json(cli, "search", "premise", "--all")["hits"]}
    assert found == {"p": "OUT", "q": "IN"}
    assert "--all for OUT" in cli("search", "nothing-like-this").stdout


def test_search_escapes_query_syntax(cli, store):
    """Words that are query syntax to the full-text index are words to a user: they find the
    beliefs that say them, and a query of syntax alone finds nothing (no error)."""
    build(store)
    tms.add(store, "quoted", 'The log says "unbalanced quote and AND in capitals')
    tms.add(store, "colon", "The key a:b maps to (x values")
    # AND is a word (a stop word: alone it finds nothing), never the operator that would
    # make `capitals AND nowhere` need both
    for words, found in ((['"unbalanced'], ["quoted"]), (["AND"], []),
                         (["capitals", "AND", "nowhere"], ["quoted"]),
                         (["a:b", "(x"], ["colon"]), (["*"], []), (['"'], [])):
        assert [h["id"] for h in cli_json(cli, "search", *words)["hits"]] == found, words


def test_search_bad_input(cli, store):
    assert_one_error_line(cli("search", " ", code=2), "at least one word")
    assert_one_error_line(cli("search", "x", "--limit", "0", code=2), "--limit takes")


def test_semantic_search_ranks_by_meaning_too(cli, store):
    pytest.importorskip("sentence_transformers", reason="the embeddings extra is not installed")
    from adapters.embeddings import SentenceTransformerEmbedder
    from engine.embedding.records import StoredEmbedding

    tms.add(store, "db-latency", "Database queries are slow under load")
    tms.add(store, "ui-colour", "The buttons are blue")
    embedder = SentenceTransformerEmbedder()
    beliefs = tms.list_beliefs(store)
    vectors = embedder.embed([b.text for b in beliefs])
    rows = [StoredEmbedding(b.id, "sha", embedder.model_name, v) for b, v in zip(beliefs, vectors)]
    store.write(lambda tx: tx.save_embeddings(rows))
    # no word in common with either text: only the meaning ranking can find it
    hits = cli_json(cli, "search", "sluggish", "sql", "performance", "--semantic", "--limit", "1")["hits"]
    assert [(h["id"], h["text_rank"], h["semantic_rank"]) for h in hits] == [("db-latency", None, 1)]


# --- batch ------------------------------------------------------------------------------
def test_batch_runs_each_line_over_one_connection_and_prints_each_result(env, store):
    script = ("# a comment, then a blank line\n\n"
              "add p 'a premise' --source README.md\n"
              "add a 'from p' --sl p\n"
              "show a\n"
              "retract p --reason 'not true after all'\n")
    result = batch(env, stdin=script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("$ ") == 4
    assert "$ retract p --reason 'not true after all'\nOUT a\nOUT p\n" in result.stdout
    assert labels(store) == {"p": "OUT", "a": "OUT"}


def test_batch_json_lines_and_a_file(env, store, tmp_path):
    commands = tmp_path / "commands.txt"
    commands.write_text("add p 'a premise'\nstatus\nexport\n", encoding="utf-8")
    result = batch(env, str(commands), "--json")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(e["line"], e["command"], e["exit"]) for e in lines] == [
        (1, "add p 'a premise'", 0), (2, "status", 0), (3, "export", 0)]
    assert lines[0]["result"] == {"went_in": ["p"], "went_out": []}
    assert lines[1]["result"]["beliefs"] == 1
    assert json.loads(lines[2]["output"])["nodes"]["p"]["text"] == "a premise"


def test_batch_stops_at_the_first_error_and_exits_with_its_code(env, store):
    build(store)
    before = labels(store)
    result = batch(env, "--json", stdin="retract p\nshow nope\nretract q\n")
    assert result.returncode == 2
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["exit"] for e in lines] == [0, 2]
    assert lines[1]["error"] == "no belief with id 'nope'"
    after = labels(store)
    assert after["p"] == "OUT" and after["q"] == before["q"] == "IN"  # line 3 never ran


def test_batch_keep_going_runs_every_line(env, store):
    build(store)
    result = batch(env, "--keep-going", stdin="show nope\nadd x 'X' --sl\nbogus\nretract q\n")
    assert result.returncode == 2
    errors = result.stderr.strip().splitlines()
    assert errors[0] == "Error: line 1: no belief with id 'nope'"
    assert errors[1].startswith("Error: line 2: ") and "--sl" in errors[1]
    assert errors[2].startswith("Error: line 3: ") and "bogus" in errors[2]
    assert len(errors) == 3 and "Traceback" not in result.stderr
    assert labels(store)["q"] == "OUT" and "x" not in labels(store)


def test_batch_refuses_bad_lines_and_itself(env, store):
    result = batch(env, "--keep-going", stdin="add 'unclosed\nbatch other.txt\n")
    assert result.returncode == 2
    errors = result.stderr.strip().splitlines()
    assert errors == ["Error: line 1: cannot split the line: No closing quotation",
                      "Error: line 2: batch cannot run batch"]
    missing = batch(env, "no-such-file.txt")
    assert_one_error_line(missing, "cannot read", "/no-such-file.txt: No such file")
