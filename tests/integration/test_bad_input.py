"""Every bad input from the truth-maintenance issue: each raises the documented error
(InvalidInput or NotFound, naming the problem) and leaves the graph exactly as it was."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adapters.formats import dump_network, read_network_file
from engine import interchange, tms
from engine.errors import EngineError, InvalidInput, NotFound
from engine.model import Justification, Truth
from engine.tms import explain as explaining

pytestmark = pytest.mark.neo4j

J = tms.make_justifications


def snapshot(store):
    """Everything a bad input must not change."""
    beliefs = tms.list_beliefs(store)
    return (
        tms.status(store),
        dump_network(interchange.export_network(store)),
        [(b.id, b.truth, b.depth, b.retracted, b.asserted, b.updated_at) for b in beliefs],
    )


@pytest.fixture
def base(store):
    """A small network with every kind of belief; returns the store."""
    tms.add(store, "p", "a premise")
    tms.add(store, "q", "another premise")
    tms.add(store, "a", "from p", J(["p"]))
    tms.add(store, "g", "p unless q", J(["p"], unless=["q"]))
    tms.add(store, "f", "forward", J(["not-yet"]))
    tms.add(store, "x", "unless y", J([], unless=["y"]))
    tms.add(store, "y", "unless x", J([], unless=["x"]))
    tms.retract(store, "q")
    tms.add_nogood(store, ["a", "g"], "ng-ag")  # holds: resolved by retracting p
    assert tms.verify(store) == []
    return store


def refused(store, error: type[EngineError], match: str | None, call):
    """`call` raises `error` with a message matching `match`, and writes nothing."""
    before = snapshot(store)
    with pytest.raises(error, match=match) as info:
        call()
    assert "\n" not in str(info.value)
    assert snapshot(store) == before
    assert tms.verify(store) == []
    return info.value


# --- unknown ids ---------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda s: tms.retract(s, "nope"),
    lambda s: tms.assert_belief(s, "nope"),
    lambda s: tms.show(s, "nope"),
    lambda s: tms.add_justification(s, "nope", J(["p"])),
    lambda s: tms.add_nogood(s, ["p", "nope"]),
    lambda s: tms.what_if(s, "retract", "nope"),
    lambda s: tms.what_if(s, "assert", "nope"),
    lambda s: explaining.explain(s, "nope"),
    lambda s: explaining.trace(s, "nope"),
], ids=["retract", "assert", "show", "add-justification", "nogood", "what-if-retract",
        "what-if-assert", "explain", "trace"])
def test_unknown_id(base, call):
    error = refused(base, NotFound, "no belief with id 'nope'", lambda: call(base))
    assert error.ident == "nope"


def test_forward_reference_is_not_an_unknown_id(base):
    # a justification may name an id that does not exist yet; the id itself is still unknown
    refused(base, NotFound, "not-yet", lambda: tms.retract(base, "not-yet"))


# --- duplicate ids -------------------------------------------------------------------
def test_duplicate_belief_id(base):
    refused(base, InvalidInput, "'p' already exists", lambda: tms.add(base, "p", "again"))
    refused(base, InvalidInput, "'a' already exists",
            lambda: tms.add(base, "a", "again, derived", J(["q"])))


def test_duplicate_nogood_id(base):
    refused(base, InvalidInput, "nogood 'ng-ag' already exists",
            lambda: tms.add_nogood(base, ["p", "q"], "ng-ag"))


def test_file_with_ids_already_in_the_graph(base, tmp_path):
    path = tmp_path / "clash.json"
    path.write_text(json.dumps({"nodes": {"new-one": {"text": "new"}, "p": {"text": "old"}}}))
    refused(base, InvalidInput, "already exist", lambda: _import(base, path))


def test_duplicate_belief_id_inside_one_file(base, tmp_path):
    # JSON parsers keep the last of two equal keys; the file still names 'dup' twice
    path = tmp_path / "dup.json"
    path.write_text('{"nodes": {"dup": {"text": "first"}, "dup": {"text": "second"}}}',
                    encoding="utf-8")
    error = refused(base, InvalidInput, "dup", lambda: _import(base, path))
    assert re.search(r"(?i)duplicate|twice|more than once", str(error)), str(error)


def test_duplicate_nogood_id_inside_one_file(store, tmp_path):
    path = tmp_path / "dup-nogood.json"
    path.write_text(json.dumps({
        "nodes": {"n1": {"text": "n1"}, "n2": {"text": "n2"}, "n3": {"text": "n3"}},
        "nogoods": [{"id": "ng-x", "nodes": ["n1", "n2"]}, {"id": "ng-x", "nodes": ["n2", "n3"]}],
    }), encoding="utf-8")
    refused(store, InvalidInput, "ng-x", lambda: _import(store, path))


def test_duplicate_nogood_in_a_file(base, tmp_path):
    path = tmp_path / "ng.json"
    path.write_text(json.dumps({"nodes": {"n1": {"text": "n1"}, "n2": {"text": "n2"}},
                                "nogoods": [{"id": "ng-ag", "nodes": ["n1", "n2"]}]}))
    refused(base, InvalidInput, "nogood 'ng-ag' already exists", lambda: _import(base, path))


# --- invalid ids ---------------------------------------------------------------------
BAD_IDS = ["Upper", "-leading-dash", ".dot", "has space", "", "x" * 201, "naïve", "a/b",
           "semi;colon", "quote'd", "back`tick", "new\nline"]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_invalid_belief_id(base, bad):
    refused(base, InvalidInput, "invalid belief id", lambda: tms.add(base, bad, "text"))


def test_longest_valid_id_is_accepted(store):
    bid = "a" + "b" * 199
    tms.add(store, bid, "the longest id")
    assert tms.show(store, bid)[0].id == bid


@pytest.mark.parametrize("bad", ["Upper", "has space", "", "x" * 201])
def test_invalid_antecedent_and_outlist_ids(base, bad):
    refused(base, InvalidInput, "invalid antecedent id",
            lambda: tms.add(base, "new", "text", J(["p", bad])))
    refused(base, InvalidInput, "invalid outlist id",
            lambda: tms.add(base, "new", "text", J(["p"], unless=[bad])))
    refused(base, InvalidInput, "invalid antecedent id",
            lambda: tms.add_justification(base, "a", J([bad])))


@pytest.mark.parametrize("bad", ["Upper", "has space", "x" * 201])
def test_invalid_ids_in_justification_records(base, bad):
    # the library API takes Justification records too: their ids are checked the same way
    refused(base, InvalidInput, "invalid",
            lambda: tms.add(base, "new", "text", (Justification(("p", bad)),)))
    refused(base, InvalidInput, "invalid",
            lambda: tms.add(base, "new", "text", (Justification(("p",), (bad,)),)))
    refused(base, InvalidInput, "invalid",
            lambda: tms.add_justification(base, "a", (Justification((bad,)),)))


@pytest.mark.parametrize("call", [
    lambda s: tms.retract(s, "Bad Id"),
    lambda s: tms.assert_belief(s, "Bad Id"),
    lambda s: tms.show(s, "Bad Id"),
    lambda s: tms.what_if(s, "retract", "Bad Id"),
    lambda s: tms.add_justification(s, "Bad Id", J(["p"])),
    lambda s: tms.add_nogood(s, ["p", "Bad Id"]),
    lambda s: tms.add_nogood(s, ["p", "q"], "Bad Nogood"),
], ids=["retract", "assert", "show", "what-if", "add-justification", "nogood-member",
        "nogood-id"])
def test_invalid_id_in_other_operations(base, call):
    refused(base, InvalidInput, "invalid", lambda: call(base))


# --- empty text ----------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_empty_text(base, text):
    refused(base, InvalidInput, "empty text", lambda: tms.add(base, "new", text))
    refused(base, InvalidInput, "empty text", lambda: tms.add(base, "new", text, J(["p"])))


# --- a justification naming its own belief -------------------------------------------
@pytest.mark.parametrize("justifications", [
    J(["selfish"]),
    J(["p", "selfish"]),
    J([], unless=["selfish"]),
    J(["p"], unless=["selfish"]),
    J(["p", "selfish"], any_mode=True),
], ids=["antecedent", "among-antecedents", "outlist", "among-outlist", "any"])
def test_add_refuses_a_justification_naming_its_own_belief(base, justifications):
    refused(base, InvalidInput, "cannot name itself",
            lambda: tms.add(base, "selfish", "holds itself up", justifications))


@pytest.mark.parametrize("justifications", [J(["a"]), J([], unless=["a"])],
                         ids=["antecedent", "outlist"])
def test_add_justification_refuses_naming_its_own_belief(base, justifications):
    refused(base, InvalidInput, "cannot name itself",
            lambda: tms.add_justification(base, "a", justifications))


def test_import_keeps_self_naming_justifications(store, tmp_path):
    path = tmp_path / "self.json"
    path.write_text(json.dumps({"nodes": {
        "s": {"text": "holds itself up", "justifications": [{"antecedents": ["s"]}]},
        "o": {"text": "unless itself", "justifications": [{"antecedents": [], "outlist": ["o"]}]},
    }}))
    report = _import(store, path)
    assert report.self_listed == ["s"]
    assert report.undetermined == ["o"]
    beliefs = {b.id: b for b in tms.list_beliefs(store)}
    assert (beliefs["s"].truth, beliefs["o"].truth) == (Truth.OUT, Truth.UNDETERMINED)
    assert tms.show(store, "s")[0].justifications[0].antecedents == ("s",)
    assert tms.verify(store) == []


# --- other operation input -----------------------------------------------------------
def test_nogood_needs_two_distinct_members(base):
    refused(base, InvalidInput, "at least two", lambda: tms.add_nogood(base, ["p"]))
    refused(base, InvalidInput, "at least two", lambda: tms.add_nogood(base, ["p", "p"]))


def test_add_justification_needs_a_justification(base):
    refused(base, InvalidInput, "needs", lambda: tms.add_justification(base, "a", ()))


def test_what_if_takes_retract_or_assert(base):
    refused(base, InvalidInput, "what-if takes", lambda: tms.what_if(base, "delete", "p"))


# --- files ---------------------------------------------------------------------------
def _import(store, path: Path):
    network, stored = read_network_file(path)
    return interchange.import_network(store, network, stored)


def test_file_that_is_not_valid_json_names_line_and_column(base, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n"nodes": {\n"a-new": {"text": "x",}\n}\n}', encoding="utf-8")
    error = refused(base, InvalidInput, "not valid JSON", lambda: _import(base, path))
    assert "line 3 column 23" in str(error)
    assert str(path) in str(error)


@pytest.mark.parametrize("content", ["", "nodes: {}", '{"nodes": {}', "[1, 2,]"],
                         ids=["empty", "yaml", "unclosed", "trailing-comma"])
def test_other_invalid_json(base, tmp_path, content):
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    error = refused(base, InvalidInput, "not valid JSON", lambda: _import(base, path))
    assert "line 1 column" in str(error)


def test_file_that_does_not_exist(base, tmp_path):
    refused(base, InvalidInput, "no such file", lambda: _import(base, tmp_path / "absent.json"))


def test_file_that_is_not_utf8(base, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"nodes": {"a-new": {"text": "caf\xe9"}}}'.encode("latin-1"))
    refused(base, InvalidInput, "cannot be read", lambda: _import(base, path))


GOOD_NODE = {"text": "fine", "truth_value": "IN", "justifications": []}

NOT_THE_FORMAT = {
    "top-level-list": ([{"nodes": {}}], "expected a JSON object"),
    "no-nodes": ({"beliefs": {}}, "'nodes' is missing"),
    "nodes-a-list": ({"nodes": [GOOD_NODE]}, "'nodes' is missing or not an object"),
    "nodes-a-string": ({"nodes": "a,b"}, "not an object"),
    "node-not-an-object": ({"nodes": {"a-new": "text"}}, "node 'a-new': expected an object"),
    "invalid-node-id": ({"nodes": {"Bad Id": GOOD_NODE}}, "node 'Bad Id': invalid id"),
    "missing-text": ({"nodes": {"a-new": {"truth_value": "IN"}}}, "empty or missing 'text'"),
    "empty-text": ({"nodes": {"a-new": {"text": "  "}}}, "empty or missing 'text'"),
    "text-not-a-string": ({"nodes": {"a-new": {"text": 3}}}, "'text'"),
    "bad-truth-value": ({"nodes": {"a-new": dict(GOOD_NODE, truth_value="MAYBE")}},
                        "truth_value must be IN or OUT"),
    "lower-case-truth-value": ({"nodes": {"a-new": dict(GOOD_NODE, truth_value="in")}},
                               "truth_value"),
    "justifications-not-a-list": ({"nodes": {"a-new": dict(GOOD_NODE, justifications={})}},
                                  "'justifications' must be a list"),
    "justification-not-an-object": (
        {"nodes": {"a-new": dict(GOOD_NODE, justifications=["p"])}}, "justification 0"),
    "bad-justification-type": (
        {"nodes": {"a-new": dict(GOOD_NODE,
                                 justifications=[{"type": "XOR", "antecedents": ["p"]}])}},
        "type must be SL or CP"),
    "antecedents-not-a-list": (
        {"nodes": {"a-new": dict(GOOD_NODE, justifications=[{"antecedents": "p"}])}},
        "'antecedents' must be a list"),
    "outlist-of-numbers": (
        {"nodes": {"a-new": dict(GOOD_NODE, justifications=[{"antecedents": [], "outlist": [1]}])}},
        "'outlist' must be a list"),
    "invalid-antecedent-id": (
        {"nodes": {"a-new": dict(GOOD_NODE, justifications=[{"antecedents": ["Not Valid"]}])}},
        "invalid id 'Not Valid' in 'antecedents'"),
    "invalid-outlist-id": (
        {"nodes": {"a-new": dict(GOOD_NODE, justifications=[{"outlist": ["Not Valid"]}])}},
        "invalid id 'Not Valid' in 'outlist'"),
    "label-not-a-string": (
        {"nodes": {"a-new": dict(GOOD_NODE, justifications=[{"antecedents": ["p"], "label": 7}])}},
        "'label' must be a string"),
    "metadata-not-an-object": ({"nodes": {"a-new": dict(GOOD_NODE, metadata=["x"])}},
                               "'metadata' must be an object"),
    "source-not-a-string": ({"nodes": {"a-new": dict(GOOD_NODE, source=["x"])}},
                            "'source' must be a string"),
    "nogoods-not-a-list": ({"nodes": {"a-new": GOOD_NODE}, "nogoods": {}},
                           "'nogoods' must be a list"),
    "nogood-without-id": ({"nodes": {"a-new": GOOD_NODE}, "nogoods": [{"nodes": ["a-new"]}]},
                          "nogood 0"),
    "nogood-bad-member": ({"nodes": {"a-new": GOOD_NODE},
                           "nogoods": [{"id": "ng", "nodes": ["a-new", "Bad"]}]},
                          "valid belief ids"),
    "meta-not-an-object": ({"nodes": {"a-new": GOOD_NODE}, "meta": [1]}, "'meta'"),
    "repos-not-an-object": ({"nodes": {"a-new": GOOD_NODE}, "repos": "x"}, "'repos'"),
}


@pytest.mark.parametrize("name", list(NOT_THE_FORMAT))
def test_file_that_is_not_the_format(base, tmp_path, name):
    data, message = NOT_THE_FORMAT[name]
    # a good belief first, so that a partial import would show
    if isinstance(data, dict) and isinstance(data.get("nodes"), dict):
        data = dict(data, nodes={"first-good": GOOD_NODE, **data["nodes"]})
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    error = refused(base, InvalidInput, re.escape(message), lambda: _import(base, path))
    assert str(path) in str(error)
    assert "first-good" not in {b.id for b in tms.list_beliefs(base)}


def test_bad_file_into_an_empty_graph_leaves_it_empty(store, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"nodes": {"ok": GOOD_NODE,
                                          "bad": dict(GOOD_NODE, truth_value="?")}}))
    with pytest.raises(InvalidInput):
        _import(store, path)
    assert tms.status(store).beliefs == 0


# --- property-based: random input never raises a traceback nor writes part of itself ------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from engine.cli.main import main as engine_main  # noqa: E402

# Small example counts: every example runs against the real Neo4j, on CI's 2 cores.
PROPERTY = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
KNOWN = ["p", "q", "a", "g", "f", "x", "y", "not-yet"]
well_formed_ids = st.from_regex(r"[a-z0-9][a-z0-9._:-]{0,12}", fullmatch=True)
valid_ids = st.one_of(st.sampled_from(KNOWN), well_formed_ids)
any_ids = st.one_of(valid_ids, st.text(min_size=0, max_size=12), st.just("x" * 201))
texts = st.one_of(st.just("a belief"), st.text(min_size=1, max_size=30), st.just("   "))
# mostly valid ids, so that lists are often accepted as a whole and written
id_lists = st.lists(st.one_of(valid_ids, valid_ids, valid_ids, any_ids), max_size=4)


def applied_or_refused(store, call) -> EngineError | None:
    """`call` either commits (and the labels stay the model) or raises an InvalidInput /
    NotFound of one line and leaves the graph exactly as it was."""
    before = snapshot(store)
    try:
        call()
    except (InvalidInput, NotFound) as e:
        assert str(e) and "\n" not in str(e)
        assert snapshot(store) == before
        return e
    assert tms.verify(store) == []
    return None


@pytest.mark.slow
@PROPERTY
@given(bid=any_ids, text=texts, antecedents=id_lists, unless=id_lists, any_mode=st.booleans())
def test_random_add(base, bid, text, antecedents, unless, any_mode):
    applied_or_refused(base, lambda: tms.add(
        base, bid, text, J(antecedents, unless=unless, any_mode=any_mode)))


@pytest.mark.slow
@PROPERTY
@given(operation=st.sampled_from(["retract", "assert", "add-justification", "nogood",
                                  "what-if", "show"]),
       target=any_ids, others=id_lists, reason=texts)
def test_random_operations(base, operation, target, others, reason):
    calls = {
        "retract": lambda: tms.retract(base, target, reason),
        "assert": lambda: tms.assert_belief(base, target),
        "add-justification": lambda: tms.add_justification(base, target, J(others)),
        "nogood": lambda: tms.add_nogood(base, [target, *others]),
        "what-if": lambda: tms.what_if(base, "retract", target),
        "show": lambda: tms.show(base, target),
    }
    applied_or_refused(base, calls[operation])


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=8))
justification_records = st.fixed_dictionaries(
    {"antecedents": st.one_of(id_lists, json_scalars)},
    optional={"outlist": st.one_of(id_lists, json_scalars),
              "type": st.sampled_from(["SL", "CP", "XOR", 1]),
              "label": st.one_of(st.text(max_size=6), st.integers())})
node_records = st.fixed_dictionaries(
    {"text": st.one_of(texts, json_scalars)},
    optional={"truth_value": st.sampled_from(["IN", "OUT", "in", "MAYBE", None, 1]),
              "justifications": st.one_of(st.lists(justification_records, max_size=3),
                                          json_scalars),
              "metadata": st.one_of(st.dictionaries(st.text(max_size=4), json_scalars,
                                                    max_size=2), json_scalars),
              "source": st.one_of(st.text(max_size=6), json_scalars)})
good_nodes = st.fixed_dictionaries(
    {"text": st.just("a belief from a file")},
    optional={"truth_value": st.sampled_from(["IN", "OUT"]),
              "justifications": st.lists(st.fixed_dictionaries(
                  {"antecedents": st.lists(valid_ids, max_size=3)},
                  optional={"outlist": st.lists(valid_ids, max_size=2)}), max_size=2)})


@st.composite
def mostly_good_files(draw) -> dict:
    """Well-formed nodes with new ids, then perhaps one bad node at a random place."""
    nodes = draw(st.dictionaries(well_formed_ids.map(lambda i: "file-" + i), good_nodes,
                                 min_size=1, max_size=5))
    if draw(st.booleans()):
        items = list(nodes.items())
        items.insert(draw(st.integers(0, len(items))), (draw(any_ids), draw(node_records)))
        nodes = dict(items)
    return {"nodes": nodes}


network_files = st.one_of(
    mostly_good_files(),
    st.fixed_dictionaries(
        {"nodes": st.dictionaries(any_ids, node_records, max_size=5)},
        optional={"nogoods": st.one_of(st.lists(st.fixed_dictionaries(
            {"id": any_ids, "nodes": id_lists}), max_size=2), json_scalars),
                  "meta": st.one_of(st.dictionaries(st.text(max_size=4), json_scalars,
                                                    max_size=2), json_scalars)}),
    st.recursive(json_scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
        max_leaves=8))


@pytest.mark.slow
@PROPERTY
@given(data=network_files, mangle=st.sampled_from(["json", "json", "truncated", "bytes"]))
def test_random_network_files(base, tmp_path, data, mangle):
    path = tmp_path / "random.json"
    text = json.dumps(data)
    if mangle == "truncated":
        text = text[: len(text) // 2]
    path.write_bytes(text.encode("utf-8") if mangle != "bytes" else b"\xff\xfe" + text.encode())
    applied_or_refused(base, lambda: _import(base, path))


cli_values = st.one_of(any_ids, texts).filter(lambda v: not v.startswith("-") and "\0" not in v)


@pytest.fixture
def cli_environment(monkeypatch, neo4j_settings):
    for key, value in (("NEO4J_URI", neo4j_settings.uri), ("NEO4J_USER", neo4j_settings.user),
                       ("NEO4J_PASSWORD", neo4j_settings.password or ""),
                       ("NEO4J_DATABASE", neo4j_settings.database)):
        monkeypatch.setenv(key, value)


@pytest.mark.slow
@PROPERTY
@given(command=st.sampled_from(["add", "retract", "assert", "add-justification", "nogood",
                                "show", "explain", "trace", "what-if retract"]),
       first=cli_values, second=cli_values, sl=st.lists(cli_values, max_size=3),
       unless=st.lists(cli_values, max_size=2), json_flag=st.booleans())
def test_random_command_lines(base, cli_environment, capsys, command, first, second, sl,
                              unless, json_flag):
    argv = command.split() + [first]
    if command in ("add", "nogood"):
        argv.append(second)
    if command in ("add", "add-justification"):
        if sl:
            argv.append("--sl=" + ",".join(sl))
        if unless:
            argv.append("--unless=" + ",".join(unless))
    if json_flag:
        argv.append("--json")
    before = snapshot(base)
    code = engine_main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 0:
        assert tms.verify(base) == []
        return
    assert code == 2, (argv, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), (argv, err)
    assert snapshot(base) == before
