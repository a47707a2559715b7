"""The query pack without a server: how it is read from cypher/queries/, how --param values
are checked, how rows render, and the Browser files (style, favourites)."""
from __future__ import annotations

import io
import re
import zipfile

import pytest

from adapters.cypher_files import CypherFileError, load_all, parse_cypher_file
from adapters.neo4j_browser import (
    caption,
    favourite_text,
    favourites_zip,
    node_style,
    parameters_text,
    parse_grass,
    relationship_style,
    style_text,
)
from adapters.query_pack import literal_type, load_pack, pack_params
from engine.errors import InvalidInput, NotFound
from engine.reading.queries import PackParam, PackQuery, cell, find_query, json_rows, parse_params
from engine.reading.records import GraphEdge, GraphNode, QueryResult

PACK = {"why_in", "premises", "out_if_retracted", "gated", "by_depth", "undetermined",
        "nogoods", "proposed_by", "run_added", "derive_runs", "stage_runs", "neighbourhood",
        "review_of", "defeated", "review_due", "duplicates_of", "merged", "contradictions"}


def test_the_pack_holds_every_query_of_the_issue():
    assert {q.name for q in load_pack()} == PACK


def test_each_pack_query_is_its_own_file_named_after_it():
    for q in load_pack():
        assert load_all()[q.name].path == f"queries/{q.name}.cypher"


@pytest.mark.parametrize("name", sorted(PACK))
def test_each_query_header_says_how_to_run_it_in_browser(name):
    text = load_all()[name].text
    params = {q.name: q for q in load_pack()}[name].params
    if params:
        assert "(in Neo4j Browser, set them first" in text
        for p in params:
            assert f":param {p.name} => {p.example}" in text
    else:
        assert "No parameters." in text
    assert "Rows" in text  # what each column means


def test_a_parameter_name_has_one_example_across_the_pack():
    """The `parameters` favourite sets each name once, so every query must agree on it."""
    seen: dict[str, PackParam] = {}
    for q in load_pack():
        for p in q.params:
            assert seen.setdefault(p.name, p) == p, (q.name, p, seen[p.name])


def test_literal_types():
    assert [literal_type(x) for x in ("'a-b'", '"x"', "2", "-3", "1.5", "true", "FALSE")] == [
        "string", "string", "integer", "integer", "float", "boolean", "boolean"]
    assert literal_type("[1, 2]") is None


def _named(text: str):
    (q,) = parse_cypher_file("queries/x.cypher", "// name: x\n// Returns x.\n" + text)
    return q


def test_a_query_must_document_the_parameters_it_uses():
    good = _named("//   :param id => 'a'\n//   :param n => 2\nMATCH (b {id: $id}) RETURN $n")
    assert pack_params(good) == (PackParam("id", "string", "'a'"), PackParam("n", "integer", "2"))
    with pytest.raises(CypherFileError, match=r"uses \$id, \$n but documents :param id"):
        pack_params(_named("//   :param id => 'a'\nMATCH (b {id: $id}) RETURN $n"))
    with pytest.raises(CypherFileError, match="documents :param id, n"):
        pack_params(_named("//   :param id => 'a'\n//   :param n => 1\nRETURN $id"))
    with pytest.raises(CypherFileError, match="not a string, number or boolean"):
        pack_params(_named("//   :param ids => ['a']\nRETURN $ids"))


def test_a_dollar_in_a_comment_is_not_a_parameter():
    assert pack_params(_named("// costs $5\nRETURN 1")) == ()


QUERY = PackQuery("q", "Q.", (PackParam("id", "string", "'a'"), PackParam("n", "integer", "2"),
                              PackParam("f", "float", "0.5"), PackParam("ok", "boolean", "true")))


def test_params_are_converted_to_their_declared_types():
    assert parse_params(QUERY, ["id=x=y", "n= 3", "f=2", "ok=False"]) == {
        "id": "x=y", "n": 3, "f": 2.0, "ok": False}


@pytest.mark.parametrize("pairs, message", [
    (["id=a", "n=two", "f=1", "ok=true"], "--param n takes an integer, not 'two'"),
    (["id=a", "n=1", "f=x", "ok=true"], "--param f takes a float"),
    (["id=a", "n=1", "f=1", "ok=yes"], "--param ok takes a boolean"),
    (["id=a", "n=1", "f=1", "ok=true", "zz=1"], "has no parameter 'zz'"),
    (["id=a", "id=b", "n=1", "f=1", "ok=true"], "given twice"),
    (["id"], "takes key=value"),
    (["id=a"], r"needs --param n=2 --param f=0.5 --param ok=true"),
])
def test_bad_params_are_refused_with_what_to_give(pairs, message):
    with pytest.raises(InvalidInput, match=message):
        parse_params(QUERY, pairs)


def test_finding_a_query():
    assert find_query([QUERY], "q") is QUERY
    with pytest.raises(NotFound):
        find_query([QUERY], "nope")
    with pytest.raises(InvalidInput, match="--list"):
        find_query([QUERY], None)


def test_cells_render_graph_values_readably():
    belief = GraphNode("4:x:1", ("Belief", "In"), {"id": "d1", "text": "T"})
    just = GraphNode("4:x:2", ("Justification",), {"kind": "SL", "seq": 1})
    edge = GraphEdge("5:x:3", "SUPPORTS", "4:x:2", "4:x:1")
    assert [cell(v) for v in (belief, just, edge, None, True, ["a", "b"], 2, {"k": 1})] == [
        "d1", "SL#1", "SUPPORTS", "", "true", "a, b", "2", '{"k": 1}']
    result = QueryResult(("node", "n"), ((belief, 1),))
    assert json_rows(result) == [
        {"node": {"labels": ["Belief", "In"], "properties": {"id": "d1", "text": "T"}}, "n": 1}]


# --- the Browser style -----------------------------------------------------------------------
def test_the_style_parses_as_browser_parses_it():
    rules = parse_grass(style_text())
    assert rules[0].tag == "node" and rules[0].classes == ()  # no comment before the first rule
    assert {r.tag for r in rules} == {"node", "relationship"}
    assert all(r.props for r in rules)


def test_in_out_and_undetermined_beliefs_have_distinct_colours():
    colours = [node_style(labels)["color"] for labels in
               (("Belief", "In"), ("Belief", "Out"), ("Belief", "Out", "Undetermined"),
                ("Missing",), ("Justification",))]
    assert len(set(colours)) == 5
    assert node_style(("Belief", "Out", "Undetermined")) != node_style(("Belief", "Out"))


def test_defeaters_are_drawn_distinct_whatever_their_truth():
    colours = {node_style(labels)["color"] for labels in
               (("Belief", "In"), ("Belief", "Out"), ("Belief", "Out", "Undetermined"),
                ("Missing",), ("Justification",))}
    defeater_in = node_style(("Belief", "In", "Defeater"))
    assert defeater_in["color"] not in colours
    assert node_style(("Belief", "Out", "Defeater"))["color"] == defeater_in["color"]
    assert relationship_style("REVIEWED")["caption"] == "{action}"


def test_justifications_are_small_and_beliefs_are_captioned_by_id():
    def diameter(labels):
        return int(node_style(labels)["diameter"].rstrip("px"))

    assert diameter(("Justification",)) < diameter(("Belief", "In")) / 2
    assert node_style(("Belief", "In"))["caption"] == "{id}"
    assert caption("{id}", {"id": "d1"}, "x") == "d1"
    assert caption("round {n}", {"n": 2}, "x") == "round 2"
    assert caption("<type>", {}, "SUPPORTS") == "SUPPORTS"
    assert relationship_style("UNLESS")["color"] != relationship_style("REQUIRES")["color"]


def test_grass_quotes_protect_braces_and_are_dropped():
    (rule,) = parse_grass("node.A { caption: '{id} {x}'; color: #FFF; }")
    assert rule.classes == ("A",) and dict(rule.props) == {"caption": "{id} {x}", "color": "#FFF"}


# --- favourites --------------------------------------------------------------------------------
def test_the_favourites_zip_holds_each_query_and_the_parameters():
    archive = zipfile.ZipFile(io.BytesIO(favourites_zip()))
    names = sorted(archive.namelist())
    assert names == sorted(f"eem-query-pack/{n}.cypher" for n in PACK | {"parameters"})
    assert favourites_zip() == favourites_zip()  # stable bytes
    for q in load_pack():
        text = archive.read(f"eem-query-pack/{q.name}.cypher").decode()
        assert text == favourite_text(q.name)
        assert text.splitlines()[0] == f"// {q.name}: {q.description}"
        # one statement: nothing but comments before the query, no ':' commands
        code = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
        assert not any(line.lstrip().startswith(":") for line in code)


def test_the_parameters_favourite_sets_every_parameter_in_one_command():
    text = parameters_text()
    commands = [line for line in text.splitlines() if not line.startswith("//")]
    assert len(commands) == 1 and commands[0].startswith(":params {")
    names = {p.name for q in load_pack() for p in q.params}
    assert set(re.findall(r"([a-z_]+):", commands[0].removeprefix(":params"))) == names
