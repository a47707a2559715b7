"""Every write keeps its before-images without the verb remembering: each named query that
writes says what it defines (`// defines:`), and these tests fail for one that does not."""
from __future__ import annotations

import re

import pytest

from adapters.cypher_files import CypherFileError, load_all, parse_cypher_file
from adapters.neo4j.before_images import Selector, defines_by_query, parse_defines

WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE)\b")
SCHEMA = re.compile(r"^\s*CREATE\s+(CONSTRAINT|INDEX|FULLTEXT|VECTOR)\b", re.IGNORECASE)


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))


def _writing_queries() -> list[str]:
    return sorted(q.name for q in load_all().values()
                  if WRITES.search(_body(q.text)) and not SCHEMA.match(_body(q.text)))


def test_there_are_writing_queries_to_check():
    assert {"set_pins", "create_justifications", "append_unless"} <= set(_writing_queries())


@pytest.mark.parametrize("name", _writing_queries())
def test_every_query_that_writes_says_what_it_defines(name):
    q = load_all()[name]
    assert q.defines is not None, (
        f"{q.path}: query '{name}' writes but has no '// defines:' line: name what it changes "
        "of the network's definitions (belief $ids, nogood $id, ...) or 'nothing (why)', so "
        "the change log keeps the before-images (adapters/neo4j/before_images.py)")
    found = parse_defines(name, q.defines)
    for s in found.selectors:
        if s.path:
            assert f"${s.path[0]}" in q.text, f"'{name}' defines by ${s.path[0]}, not a parameter"
        if s.via:
            assert s.via in load_all(), f"'{name}' finds its units by '{s.via}', no such query"


def test_the_defines_line_is_read_with_the_query():
    [q] = parse_cypher_file("x.cypher", "// name: q\n// Sets.\n// defines: belief $rows.id\n"
                                        "UNWIND $rows AS r MATCH (b:Belief {id: r.id}) SET b.x = 1\n")
    assert q.defines == "belief $rows.id"
    assert parse_defines("q", q.defines).selectors == (Selector("belief", ("rows", "id")),)


def test_two_defines_lines_are_refused():
    with pytest.raises(CypherFileError, match="more than one"):
        parse_cypher_file("x.cypher", "// name: q\n// Sets.\n// defines: nothing (a)\n"
                                      "// defines: nothing (b)\nMATCH (n) SET n.x = 1\n")


@pytest.mark.parametrize("text, expected", [
    ("belief $ids", (Selector("belief", ("ids",)),)),
    ("belief new $rows.props.id", (Selector("belief", ("rows", "props", "id"), new=True),)),
    ("belief via mentions_of_merged", (Selector("belief", (), via="mentions_of_merged"),)),
    ("belief $rows.id; source $rows.source",
     (Selector("belief", ("rows", "id")), Selector("source", ("rows", "source")))),
    ("network", (Selector("network"),)),
])
def test_defines_lines_parse(text, expected):
    assert parse_defines("q", text).selectors == expected


@pytest.mark.parametrize("text", ["beliefs $ids", "belief", "belief ids", "network $x",
                                  "belief $ids extra"])
def test_malformed_defines_lines_are_refused(text):
    with pytest.raises(CypherFileError):
        parse_defines("q", text)


def test_reset_keeps_no_images_and_labels_keep_none():
    found = defines_by_query()
    assert found["delete_everything"].everything
    assert "label_in" not in found and "append_change" not in found
