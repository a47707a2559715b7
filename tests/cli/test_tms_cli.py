"""`python -m engine ...` against the real Neo4j, run in this process (tests/in_process.py):
outputs, --json shapes and exit codes (0 ok, 1 verify mismatch, 2 bad input / usage / no
server)."""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.formats import dump_network
from engine import interchange, tms
from tests.conftest import TEST_MEMORY
from tests.in_process import eem

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
STATUS_KEYS = ["beliefs", "in", "out", "undetermined", "premises", "derived", "nogoods",
               "max_depth", "challenged", "undetermined_ids"]
HEAVY = ("torch", "sentence_transformers", "langchain", "llama_cpp")


@pytest.fixture
def env(neo4j_settings) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    e.update(NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
             NEO4J_PASSWORD=neo4j_settings.password or "",
             NEO4J_DATABASE=neo4j_settings.database, PYTHONIOENCODING="utf-8")
    return e


def _run(args, env, *, python_flags=()) -> subprocess.CompletedProcess:
    """The command in this process (tests/in_process.py); in a process of its own when a
    test gives the interpreter flags."""
    if not python_flags:
        return eem(args, env)
    return subprocess.run([sys.executable, *python_flags, "-m", "engine", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def cli(store, env):
    """Run a command on a clean graph; `cli(...)` asserts exit 0, `cli(..., code=n)` n."""

    def run(*args, code=0):
        result = _run(args, env)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        return result

    return run


def cli_json(cli, *args, code=0):
    return json.loads(cli(*args, "--json", code=code).stdout)


def assert_one_error_line(result, *fragments):
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: "), lines[0]
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def build(store):
    """The same small network for most tests, built through the library (fast)."""
    tms.add(store, "p", "a premise", source="notes.md")
    tms.add(store, "q", "another premise")
    tms.add(store, "a", "from p", tms.make_justifications(["p"]))
    tms.add(store, "b", "from a and q", tms.make_justifications(["a", "q"]))


def exported(store) -> str:
    return dump_network(interchange.export_network(store))


# --- mutating commands ---------------------------------------------------------------
def test_init_is_idempotent(cli, store, driver, neo4j_settings):
    """init again on a memory in use: the same one line, the beliefs and labels as they
    were, the same constraints and indexes (none added twice, none dropped)."""
    def schema() -> list[tuple[str, str]]:
        with driver.session(database=neo4j_settings.database) as session:
            return sorted((r["name"], r["type"]) for r in session.run(
                "SHOW INDEXES YIELD name, type RETURN name, type"))

    first = cli("init").stdout
    assert first.startswith(f"memory '{TEST_MEMORY}' ready: ") and first.endswith(
        "\nschema ready (constraints and indexes)\n") and first.count("\n") == 2
    build(store)
    before, indexes = exported(store), schema()
    assert cli("init").stdout == first
    assert (exported(store), schema()) == (before, indexes)
    assert any(kind == "FULLTEXT" for _, kind in indexes)


def test_add_prints_what_went_in(cli):
    assert cli("add", "p", "a premise").stdout.splitlines() == ["IN  p"]
    assert cli("add", "c", "needs m", "--sl", "m").stdout.splitlines() == [
        "c is OUT: no valid justification yet (m not added yet: forward references)",
        "no label changed"]
    assert cli_json(cli, "add", "a", "from p", "--sl", "p") == {"went_in": ["a"], "went_out": []}
    assert cli("add", "m", "arrives").stdout.splitlines() == ["IN  c", "IN  m"]


def test_add_flags_build_the_justifications(cli, store):
    for bid in ("p", "q", "x"):
        tms.add(store, bid, f"premise {bid}")
    change = cli_json(cli, "add", "c", "from p or q", "--sl", "p,q", "--any", "--unless", "x",
                      "--label", "either way", "--source", "pyproject.toml",
                      "--source-url", "https://example.org/c")
    assert change == {"went_in": [], "went_out": []}
    shown = cli_json(cli, "show", "c")
    assert shown["justifications"] == [
        {"kind": "SL", "antecedents": ["p"], "outlist": ["x"], "label": "either way"},
        {"kind": "SL", "antecedents": ["q"], "outlist": ["x"], "label": "either way"},
    ]
    assert (shown["source"], shown["source_url"]) == ("pyproject.toml", "https://example.org/c")
    cli("add", "d", "conditional", "--cp", "p,q")
    assert cli_json(cli, "show", "d")["justifications"] == [
        {"kind": "CP", "antecedents": ["p", "q"], "outlist": [], "label": ""}]


def test_add_justification(cli, store):
    tms.add(store, "p", "a premise")
    tms.add(store, "c", "needs m", tms.make_justifications(["m"]))
    assert cli_json(cli, "add-justification", "c", "--sl", "p") == {"went_in": ["c"],
                                                                     "went_out": []}
    assert len(cli_json(cli, "show", "c")["justifications"]) == 2
    assert cli("add-justification", "p", "--unless", "c").stdout.splitlines() == ["OUT c", "OUT p"]


def test_retract_and_assert(cli, store):
    build(store)
    result = cli("retract", "p", "--reason", "moved to sessions")
    assert result.stdout.splitlines() == [
        "OUT a", "OUT b", "OUT p",
        "what would bring them back (antecedents still IN, and what each needs):",
        "  b (justification 1): still IN q; needs a"]
    shown = cli_json(cli, "show", "p")
    assert (shown["truth"], shown["retracted"], shown["retract_reason"]) == (
        "OUT", True, "moved to sessions")
    assert "retracted: moved to sessions" in cli("show", "p").stdout
    assert cli_json(cli, "assert", "p") == {"went_in": ["a", "b", "p"], "went_out": []}
    assert cli_json(cli, "retract", "a") == {"went_in": [], "went_out": ["a", "b"], "restore": [
        {"id": "b", "justifications": [{"justification": 1, "still_in": ["q"], "not_in": ["a"],
                                        "unless_in": []}]}]}
    assert cli("retract", "a").stdout.splitlines() == ["no label changed"]


def test_nogood_reports_its_retractions(cli, store):
    tms.add(store, "kept", "observed", source="lab.md")
    tms.add(store, "guess", "a guess")
    result = cli_json(cli, "nogood", "kept", "guess", "--name", "ng-1")
    assert set(result) == {"id", "went_in", "went_out", "retracted_by_nogood"}
    assert (result["id"], result["went_in"], result["went_out"]) == ("ng-1", [], ["guess"])
    assert result["retracted_by_nogood"] == ["guess"]
    tms.assert_belief(store, "guess")  # triggers the nogood again
    assert tms.show(store, "guess")[0].truth.value == "OUT"
    tms.add(store, "other", "another guess")
    text = cli("nogood", "other", "kept").stdout.splitlines()
    assert text == ["nogood nogood-kept-other: other, kept must not all be IN", "OUT other",
                    "retracted by nogood: other"]  # the id it made, from its members
    assert cli_json(cli, "nogood", "guess", "other")["id"] == "nogood-guess-other"


@pytest.mark.parametrize("args", [
    ("add", "z", "a premise"),
    ("add-justification", "a", "--sl", "q"),
    ("retract", "q"),
    ("assert", "q"),
])
def test_mutating_commands_return_went_in_and_went_out(cli, store, args):
    build(store)
    result = cli_json(cli, *args)
    # retract also says what would restore what it took OUT (engine/tms/fragility.py)
    assert set(result) == {"went_in", "went_out"} | ({"restore"} if args[0] == "retract"
                                                     else set())
    assert all(isinstance(v, list) for v in result.values())


# --- read commands -------------------------------------------------------------------
def test_status(cli, store):
    build(store)
    tms.add(store, "x", "unless y", tms.make_justifications([], unless=["y"]))
    tms.add(store, "y", "unless x", tms.make_justifications([], unless=["x"]))
    cli("nogood", "p", "q", "--name", "ng-pq", "--json")  # retracts one of them
    status = cli_json(cli, "status")
    assert list(status) == STATUS_KEYS
    assert status == {"beliefs": 6, "in": 2, "out": 4, "undetermined": 2, "premises": 2,
                      "derived": 4, "nogoods": 1, "max_depth": 2, "challenged": 0,
                      "undetermined_ids": ["x", "y"]}
    text = cli("status").stdout.splitlines()
    assert text[0] == "6 beliefs: 2 IN, 4 OUT (2 undetermined)"
    assert text[1] == "2 premises, 4 derived, max depth 2, 1 nogoods"
    assert text[2] == "undetermined (loops through outlists): x, y"


def test_status_of_an_empty_graph(cli):
    assert cli_json(cli, "status") == {**dict.fromkeys(STATUS_KEYS[:-1], 0),
                                       "undetermined_ids": []}


def test_list_and_its_filters(cli, store):
    build(store)
    cli("add", "g", "p unless a", "--sl", "p", "--unless", "a")

    def ids(*flags):
        return [row["id"] for row in cli_json(cli, "list", *flags)["beliefs"]]

    assert ids() == ["a", "b", "g", "p", "q"]
    assert ids("--in") == ["a", "b", "p", "q"]
    assert ids("--out") == ["g"]
    assert ids("--premises") == ["p", "q"]
    assert ids("--derived") == ["a", "b", "g"]
    rows = cli_json(cli, "list")["beliefs"]
    assert rows[0] == {"id": "a", "truth": "IN", "depth": 1, "premise": False, "text": "from p"}
    lines = cli("list").stdout.splitlines()
    assert lines[0].split() == ["id", "truth", "depth", "text"]
    assert lines[2].split() == ["a", "IN", "1", "from", "p"]
    cli("list", "--in", "--out", code=2)  # mutually exclusive


def test_show(cli, store):
    build(store)
    shown = cli_json(cli, "show", "a")
    assert shown == {
        "id": "a", "text": "from p", "truth": "IN", "depth": 1, "retracted": False,
        "asserted": False, "retract_reason": "", "source": "", "source_url": "",
        "metadata": {},
        "justifications": [{"kind": "SL", "antecedents": ["p"], "outlist": [], "label": ""}],
        "dependents": ["b"], "impact": 1, "superseded_by": [], "supersedes": [],
    }
    text = cli("show", "a").stdout.splitlines()
    assert text == ["a  [IN]  depth 1  impact 1", "  from p", "  SL: p", "  dependents: b"]


def test_show_says_where_a_belief_comes_from(cli, store, tmp_path):
    (tmp_path / "notes.md").write_text("one\nthe cache is warm after deploy\nthree\n")
    cli("add", "warm", "The cache is warm after deploy", "--source",
        f"{tmp_path / 'notes.md'}:2", "--quote", "cache is warm", "--root", str(tmp_path),
        "--source-url", "https://wiki.example/deploys")
    tms.add(store, "span", "spans lines", source="src/auth.py", metadata={"lines": [40, 52]})
    tms.add(store, "p", "a premise", source="notes.md")
    assert cli("show", "warm").stdout.splitlines() == [
        "warm  [IN]  depth 0  impact 0", "  The cache is warm after deploy",
        "  source: notes.md:2", '  quote: "cache is warm"', "  url: https://wiki.example/deploys"]
    assert cli("show", "span").stdout.splitlines()[2] == "  source: src/auth.py:40-52"
    assert cli("show", "p").stdout.splitlines()[2:] == ["  source: notes.md"]


def test_show_of_a_forward_reference_says_what_names_it(cli, store):
    build(store)
    tms.add(store, "c", "from a and later", tms.make_justifications(["a", "later"]))
    assert_one_error_line(cli("show", "later", code=2),
                          "'later' is not added yet: a forward reference, named by c's "
                          "justification")
    tms.add(store, "d", "unless later", tms.make_justifications([], unless=["later"]))
    assert_one_error_line(cli("show", "later", code=2),
                          "named by the justifications of c, d")
    assert_one_error_line(cli("show", "nope", code=2), "no belief with id 'nope'")
    cli("add", "later", "now added")
    assert cli("show", "later").stdout.startswith("later  [IN]")


def test_explain(cli, store):
    build(store)
    lines = cli("explain", "b").stdout.splitlines()
    assert lines[0] == "b is IN (depth 2): because"
    assert any(line.strip() == "p is IN (depth 0): a premise" for line in lines)
    tree = cli_json(cli, "explain", "b")
    assert (tree["id"], tree["truth"], tree["why"], tree["depth"]) == ("b", "IN", "justified", 2)
    assert [s["id"] for s in tree["justifications"][0]["antecedents"]] == ["a", "q"]
    tms.retract(store, "q", reason="wrong")
    out = cli("explain", "b").stdout
    assert "b is OUT (depth 2): no valid justification:" in out
    assert "q is OUT (depth 0): retracted: wrong" in out


def test_trace(cli, store):
    build(store)
    assert cli_json(cli, "trace", "b")["rests_on"] == [
        {"id": "p", "truth": "IN", "kind": "premise"},
        {"id": "q", "truth": "IN", "kind": "premise"},
    ]
    lines = cli("trace", "b").stdout.splitlines()
    assert lines[0].split() == ["rests", "on", "truth", "kind"]
    assert [line.split() for line in lines[2:]] == [["p", "IN", "premise"], ["q", "IN", "premise"]]


def test_what_if_writes_nothing(cli, store):
    build(store)
    before = exported(store)
    result = cli("what-if", "retract", "p")
    assert result.stdout.splitlines() == ["if retract p (nothing written):", "OUT a", "OUT b",
                                          "OUT p"]
    assert cli_json(cli, "what-if", "retract", "q") == {"went_in": [], "went_out": ["b", "q"]}
    assert exported(store) == before
    assert tms.status(store).in_ == 4
    cli("what-if", "frobnicate", "p", code=2)


# --- verify --------------------------------------------------------------------------
def test_verify_ok(cli, store):
    build(store)
    assert cli("verify").stdout.startswith("ok: all 4 labels and depths equal")
    assert cli_json(cli, "verify") == {"ok": True, "mismatches": [], "undetermined": []}


def test_verify_reports_undetermined_beliefs_and_still_exits_0(cli, store):
    tms.add(store, "x", "unless y", tms.make_justifications([], unless=["y"]))
    tms.add(store, "y", "unless x", tms.make_justifications([], unless=["x"]))
    lines = cli("verify").stdout.splitlines()
    assert lines[0].startswith("ok: all 2 labels")
    assert lines[1] == "undetermined (loops through outlists): x, y"
    assert cli_json(cli, "verify") == {"ok": True, "mismatches": [], "undetermined": ["x", "y"]}


def test_verify_mismatch_exits_1(cli, store, driver, neo4j_settings):
    build(store)
    driver.execute_query("MATCH (b:Belief {id: $id}) REMOVE b:In SET b:Out",
                         parameters_={"id": "a"}, database_=neo4j_settings.database)
    result = cli("verify", code=1)
    assert re.search(r"^a\s+OUT\s+IN$", result.stdout, re.MULTILINE), result.stdout
    report = cli_json(cli, "verify", code=1)
    assert report["ok"] is False
    assert report["mismatches"] == [{"id": "a", "stored": "OUT", "computed": "IN"}]


def test_verify_reports_a_wrong_depth_and_two_truth_labels(cli, store, driver, neo4j_settings):
    build(store)
    driver.execute_query("MATCH (b:Belief {id: 'b'}) SET b.depth = 7",
                         database_=neo4j_settings.database)
    driver.execute_query("MATCH (b:Belief {id: 'p'}) SET b:Out",
                         database_=neo4j_settings.database)
    mismatches = cli_json(cli, "verify", code=1)["mismatches"]
    assert [m["id"] for m in mismatches] == ["b", "p"]
    assert mismatches[0] == {"id": "b", "stored": "depth 7", "computed": "depth 2"}
    assert "In" in mismatches[1]["stored"] and "Out" in mismatches[1]["stored"]


# --- import / export / reset ---------------------------------------------------------
def test_import_export_round_trip(cli, store, tmp_path):
    source = tmp_path / "network.json"
    source.write_text(json.dumps({"meta": {"name": "demo"}, "nodes": {
        "p": {"text": "premise", "truth_value": "IN"},
        "r": {"text": "kept retraction", "truth_value": "OUT",
              "justifications": [{"type": "SL", "antecedents": ["p"], "outlist": []}]},
        "s": {"text": "self", "truth_value": "IN",
              "justifications": [{"type": "SL", "antecedents": ["s"], "outlist": []}]},
    }}), encoding="utf-8")
    out = cli("import", str(source)).stdout
    assert out.splitlines()[0] == "imported 3 beliefs, 2 justifications, 0 nogoods: 1 IN, 2 OUT"
    assert "retractions kept (stored OUT, support valid): 1: r" in out
    assert "circular support (stored IN, now OUT): 1: s" in out
    assert "beliefs naming themselves: 1: s" in out

    exported = tmp_path / "exported.json"
    result = cli("export", "-o", str(exported))
    assert result.stdout == ""
    assert str(exported) in result.stderr
    stdout_copy = cli("export").stdout
    assert exported.read_text(encoding="utf-8") == stdout_copy
    assert set(json.loads(stdout_copy)["nodes"]) == {"p", "r", "s"}

    tms.reset(store)
    report = cli_json(cli, "import", str(exported))
    assert report["retractions_kept"] == ["r"]
    assert report["differences"] == {"retractions_kept": 1, "circular_support": 0, "stale": 0,
                                     "undetermined": 0}
    assert dump_network(interchange.export_network(store)) == stdout_copy


def test_reset_needs_yes(cli, store):
    build(store)
    assert_one_error_line(cli("reset", code=2), "--yes", f"empties the memory '{TEST_MEMORY}' (")
    assert tms.status(store).beliefs == 4
    assert cli("reset", "--yes").stdout.strip() == "graph emptied"
    assert tms.status(store).beliefs == 0


def test_reset_at_a_terminal_names_the_memory_and_asks(store, env):
    import pty

    build(store)
    for answer, code, beliefs in (("n\n", 2, 4), ("y\n", 0, 0)):
        leader, follower = pty.openpty()
        try:
            os.write(leader, answer.encode())
            done = subprocess.run([sys.executable, "-m", "engine", "reset"], cwd=ROOT, env=env,
                                  stdin=follower, capture_output=True, text=True, timeout=120)
        finally:
            os.close(follower)
            os.close(leader)
        assert done.returncode == code, done.stderr
        assert done.stderr.startswith(f"Empty the memory '{TEST_MEMORY}' ("), done.stderr
        assert tms.status(store).beliefs == beliefs


# --- errors --------------------------------------------------------------------------
BAD = [
    (("retract", "nope"), "no belief with id 'nope'"),
    (("assert", "nope"), "no belief with id 'nope'"),
    (("show", "nope"), "no belief with id 'nope'"),
    (("explain", "nope"), "no belief with id 'nope'"),
    (("trace", "nope"), "no belief with id 'nope'"),
    (("what-if", "assert", "nope"), "no belief with id 'nope'"),
    (("add", "p", "again"), "'p' already exists"),
    (("add", "Bad-Id", "text"), "invalid belief id"),
    (("add", "c", "text", "--sl", "p,Bad"), "invalid antecedent id"),
    (("add", "c", "text", "--unless", "no way"), "invalid outlist id"),
    (("add", "c", "   "), "empty text"),
    (("add", "c", "self", "--sl", "c"), "cannot name itself"),
    (("add-justification", "p", "--unless", "p"), "cannot name itself"),
    (("add-justification", "p"), "needs"),
    (("add", "c", "both", "--sl", "p", "--cp", "p"), "not both"),
    (("nogood", "p"), "at least two"),
    (("nogood", "p", "nope"), "no belief with id 'nope'"),
]


@pytest.mark.parametrize("args, fragment", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_error_line_and_exit_2(cli, store, args, fragment):
    tms.add(store, "p", "a premise")
    before = exported(store)
    result = cli(*args, code=2)
    assert result.stdout == ""
    assert_one_error_line(result, fragment)
    assert exported(store) == before


def test_bad_files_are_one_error_line_and_exit_2(cli, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"nodes": {\n  "a": {"text": "x"\n}', encoding="utf-8")
    line = assert_one_error_line(cli("import", str(broken), code=2), "not valid JSON", str(broken))
    assert re.search(r"line \d+ column \d+", line)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"nodes": {"a": {"text": "x", "truth_value": "MAYBE"}}}))
    assert_one_error_line(cli("import", str(wrong), code=2), "truth_value must be IN or OUT")
    assert_one_error_line(cli("import", str(tmp_path / "absent.json"), code=2), "no such file")
    assert cli_json(cli, "status")["beliefs"] == 0


def test_usage_errors_exit_2(cli):
    cli("frobnicate", code=2)
    cli(code=2)
    cli("add", "only-an-id", code=2)
    cli("what-if", "delete", "p", code=2)


def test_debug_shows_the_traceback(cli):
    result = cli("retract", "nope", "--debug", code=2)
    assert "Traceback" in result.stderr
    assert result.stderr.strip().splitlines()[-1] == "Error: no belief with id 'nope'"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def at_the_uri(env: dict[str, str], **given: str) -> dict[str, str]:
    """The environment of a shell that names its graph by NEO4J_URI alone (no memory)."""
    return {**{k: v for k, v in env.items() if k != "EEM_MEMORY"}, **given}


def test_closed_port_gives_one_line_naming_the_uri_and_how_to_start(env):
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    result = _run(["status"], at_the_uri(env, NEO4J_URI=uri))
    assert_one_error_line(result, uri, "scripts/neo4j start")


def test_wrong_password_gives_one_line_naming_the_uri_and_how_to_start(env, neo4j_settings):
    result = _run(["status"], at_the_uri(env, NEO4J_PASSWORD="not-the-password-" + "x" * 8))
    line = assert_one_error_line(result, neo4j_settings.uri, "scripts/neo4j start")
    assert "password" in line


# --- start-up ------------------------------------------------------------------------
def test_status_does_not_import_heavy_packages(cli, env):
    result = _run(["status"], env, python_flags=("-X", "importtime"))
    assert result.returncode == 0, result.stderr
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:")}
    assert "engine.cli.main" in imported  # the import log is what we think it is
    heavy = sorted(m for m in imported if m.split(".")[0].startswith(HEAVY))
    assert heavy == []


def test_importing_the_cli_imports_no_heavy_package(env):
    code = ("import engine.cli.main, sys; "
            "print('\\n'.join(sorted(m for m in sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    modules = result.stdout.split()
    assert "engine.cli.main" in modules
    assert [m for m in modules if m.split(".")[0].startswith(HEAVY)] == []



def test_the_parsers_load_nothing_of_the_library():
    """The resident engine's client parses every command before it knows whether it will
    run it: the command table and its parsers import nothing but engine/cli/ and the
    defaults (no store, no driver, no service)."""
    code = ("import sys; from engine.cli.main import parse; "
            "parse(['show', 'x', '--json'], '/'); parse(['import', 'f.json'], '/'); "
            "print('\\n'.join(sorted(m for m in sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    ours = {m for m in result.stdout.split() if m.split(".")[0] in ("engine", "adapters", "neo4j")}
    assert ours and all(m == "engine" or m.startswith(("engine.cli", "engine.defaults"))
                        for m in ours), sorted(ours)
