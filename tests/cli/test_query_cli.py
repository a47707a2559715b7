"""`python -m engine query ...` and `python -m engine viz ...` as subprocesses against the real
Neo4j: output, --json, exit codes, the favourites file and the HTML export."""
from __future__ import annotations

import io
import json
import re
import zipfile

import pytest

from adapters.neo4j_browser import node_style
from adapters.query_pack import load_pack
from engine import tms
from engine.tms import make_justifications
from tests.cli.test_tms_cli import _run, assert_one_error_line, env  # noqa: F401 (a fixture)

pytestmark = pytest.mark.neo4j


@pytest.fixture
def small(store):
    """a, b premises; c <- a,b; d <- c unless x (x missing: open gate); lone."""
    for bid in ("a", "b", "lone"):
        tms.add(store, bid, f"Premise {bid}.")
    tms.add(store, "c", "Both.", make_justifications(["a", "b"], label="a and b"))
    tms.add(store, "d", "Gated.", make_justifications(["c"], unless=["x"]))
    return store


@pytest.fixture
def cli(env):
    def run(*args, code=0):
        result = _run(args, env)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        return result

    return run


def test_list_shows_every_query_with_its_parameters(small, cli):
    out = cli("query", "--list").stdout
    for q in load_pack():
        assert re.search(rf"^{q.name}\s", out, re.MULTILINE), q.name
    assert "id=auth-key-fetch-blocks-requests steps=2" in out
    listed = json.loads(cli("query", "--list", "--json").stdout)["queries"]
    assert {q["name"] for q in listed} == {q.name for q in load_pack()}
    why = next(q for q in listed if q["name"] == "why_in")
    assert why["params"] == [{"name": "id", "type": "string",
                              "example": "'auth-key-fetch-blocks-requests'"}]


def test_a_query_as_a_table_and_as_json(small, cli):
    out = cli("query", "why_in", "--param", "id=c").stdout.splitlines()
    assert re.split(r"\s+", out[0]) == ["step", "belief", "truth", "depth", "why", "kind", "seq",
                                        "label", "antecedents", "unless"]
    assert re.match(r"^0\s+c\s+IN\s+1\s+justified\s+SL\s+0\s+a and b\s+a, b$", out[2]), out[2]
    got = json.loads(cli("query", "why_in", "--param", "id=c", "--json").stdout)["rows"]
    assert [(r["belief"], r["why"], r["antecedents"]) for r in got] == [
        ("c", "justified", ["a", "b"]), ("a", "premise", []), ("b", "premise", [])]
    assert json.loads(cli("query", "by_depth", "--param", "min_depth=2", "--json").stdout)["rows"] == [
        {"depth": 2, "belief": "d", "truth": "IN", "text": "Gated."}]


def test_a_query_without_rows_says_so(small, cli):
    assert cli("query", "nogoods").stdout.strip() == "(no rows)"
    assert json.loads(cli("query", "nogoods", "--json").stdout)["rows"] == []


@pytest.mark.parametrize("args, fragment", [
    (["query", "why_in"], "needs --param id=auth-key-fetch-blocks-requests"),
    (["query", "why_in", "--param", "id=c", "--param", "steps=2"], "has no parameter 'steps'"),
    (["query", "by_depth", "--param", "min_depth=deep"], "takes an integer, not 'deep'"),
    (["query", "no_such_query"], "no query with id 'no_such_query'"),
    (["query"], "name a query (see `query --list`)"),
    (["viz", "nobody", "-o", "x.html"], "no belief with id 'nobody'"),
    (["viz", "c", "--depth", "0", "-o", "x.html"], "--depth takes 1 to 25 steps"),
])
def test_bad_input_is_one_error_line_and_exit_2(small, env, args, fragment):
    result = _run(args, env)
    assert_one_error_line(result)
    assert fragment in result.stderr


def test_favourites_are_written_as_a_browser_zip(small, cli, tmp_path):
    target = tmp_path / "eem-queries.zip"
    result = cli("query", "--favourites", str(target))
    assert "drop it on Neo4j Browser" in result.stderr
    names = zipfile.ZipFile(io.BytesIO(target.read_bytes())).namelist()
    assert "eem-query-pack/why_in.cypher" in names and "eem-query-pack/parameters.cypher" in names


def _viz_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="neo4j-viz-data">(.*?)</script>', page,
                  re.DOTALL)
    assert m, "no graph data block"
    return json.loads(m.group(1))


def test_viz_writes_a_self_contained_page_of_the_neighbourhood(small, cli, tmp_path):
    target = tmp_path / "graph.html"
    result = cli("viz", "c", "--depth", "1", "-o", str(target))
    assert f"wrote {target}: 4 beliefs, 2 justifications within 1 steps of c" in result.stderr
    page = target.read_text(encoding="utf-8")
    # self-contained: no script, stylesheet or font fetched from anywhere
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"<link[^>]*\bhref=", page)
    assert not re.search(r"@import\s+url\(\s*['\"]?https?:", page)
    assert "<title>c: support and dependents within 1 steps</title>" in page
    data = _viz_data(page)
    captions = {n["caption"] for n in data["nodes"]}
    assert {"a", "b", "c", "d"} <= captions and "x" in captions  # x: the missing id in d's outlist
    colours = {n["caption"]: n["color"].lower() for n in data["nodes"]}
    assert colours["c"] == node_style(("Belief", "In"))["color"].lower()
    assert colours["x"] == node_style(("Missing",))["color"].lower()
    types = sorted(r["caption"] for r in data["relationships"])
    assert types == ["REQUIRES", "REQUIRES", "REQUIRES", "SUPPORTS", "SUPPORTS", "UNLESS"]


def test_viz_of_a_lone_belief_draws_it_alone(small, cli, tmp_path):
    target = tmp_path / "lone.html"
    cli("viz", "lone", "-o", str(target))
    data = _viz_data(target.read_text(encoding="utf-8"))
    assert [n["caption"] for n in data["nodes"]] == ["lone"] and data["relationships"] == []
