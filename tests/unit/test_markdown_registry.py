"""The markdown registry: lossless both ways, stable, strict.

Random networks carry every construct network.json has (premises, SL and CP, ANY groups,
outlists, forward references, retractions with reasons, assertions, metadata and kept fields
of any JSON value, multi-line texts, namespaces, review defeaters, challenges and defences, nogoods, meta, repos).
Each goes file -> import -> export, then through markdown (export -> import -> export) and
through network.json, on the in-memory store: the markdown text comes back byte for byte and
the graph equals the network.json round trip's.
"""
from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters import markdown_registry as md
from adapters.formats import network_to_json, parse_network
from engine import interchange
from engine.errors import InvalidInput
from tests.fakes import FakeStore

IDS = st.from_regex(r"(review:|challenge:|defence:)?[a-z0-9][a-z0-9._:-]{0,10}", fullmatch=True)
JSON_SCALARS = (st.none() | st.booleans() | st.integers(-10**12, 10**12)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
                | st.sampled_from(["123", "true", "null", " x", "x ", "a\nb", "\r", '"q"',
                                   "[1", "-", "2026-06-20T01:38:37+00:00", "", "a: b"]))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda kids: st.lists(kids, max_size=3)
                           | st.dictionaries(st.text(max_size=6), kids, max_size=3), max_leaves=6)
KEYS = st.text(max_size=8) | st.sampled_from(["source_type", "quote", "lines", "a b", '"k"'])
TEXTS = st.text(min_size=1, max_size=40).filter(lambda t: t.strip()) | st.sampled_from(
    ["line one\n\nline three\n", "  indented", "> quoted\n>", "**bold** `code` [x](y)"])
STRINGS = st.text(max_size=15) | st.sampled_from(["", "a\nb", "12", " pad "])


@st.composite
def networks(draw) -> dict:
    ids = draw(st.lists(IDS, min_size=1, max_size=12, unique=True))
    pool = ids + draw(st.lists(IDS, max_size=2))  # some never added: forward references
    nodes = {}
    for bid in ids:
        justifications = []
        for _ in range(draw(st.integers(0, 3))):
            named = [x for x in pool if x != bid]
            kind = draw(st.sampled_from(["SL", "CP"]))
            label = draw(STRINGS)
            outlist = draw(st.lists(st.sampled_from(named), max_size=2, unique=True)) if named else []
            if len(set(named)) > 1 and draw(st.booleans()):  # an ANY group: one justification per antecedent
                for a in draw(st.lists(st.sampled_from(named), min_size=2, max_size=3, unique=True)):
                    justifications.append({"type": kind, "antecedents": [a], "outlist": outlist,
                                           "label": label})
            else:
                antecedents = draw(st.lists(st.sampled_from(named), max_size=3)) if named else []
                justifications.append({"type": kind, "antecedents": antecedents,
                                       "outlist": outlist, "label": label})
        metadata = draw(st.dictionaries(KEYS, JSON_VALUES, max_size=3))
        if ":" in bid and not justifications:  # a review defeater, challenge or defence
            metadata["source_type"] = bid.split(":", 1)[0]
        node = {"text": draw(TEXTS), "truth_value": draw(st.sampled_from(["IN", "OUT"])),
                "justifications": justifications, "metadata": metadata}
        for key in ("source", "source_url", "source_hash", "date", "created_at", "updated_at",
                    "retract_reason"):
            node[key] = draw(STRINGS)
        if draw(st.booleans()):
            node["retracted_at"] = "2026-01-02T03:04:05+00:00"
        if draw(st.booleans()):
            node["asserted"] = True
        for key, value in draw(st.dictionaries(st.sampled_from(["reviewed_at", "x y", "hash"]),
                                               JSON_VALUES, max_size=2)).items():
            node[key] = value
        nodes[bid] = node
    nogoods = [{"id": f"ng-{k}", "nodes": draw(st.lists(st.sampled_from(pool), min_size=1,
                                                        max_size=3, unique=True)),
                "discovered": draw(STRINGS), "resolution": draw(STRINGS)}
               for k in range(draw(st.integers(0, 2)))]
    meta = draw(st.dictionaries(KEYS, JSON_VALUES, max_size=3))
    repos = draw(st.dictionaries(KEYS, st.text(max_size=10), max_size=2))
    supersessions = [
        {"old": old, "new": draw(st.sampled_from([i for i in ids if i != old])),
         "created_new": draw(st.booleans()), "reason": draw(STRINGS), "at": draw(STRINGS),
         "rewired": draw(st.lists(st.tuples(st.sampled_from(ids), st.integers(1, 3),
                                            st.sampled_from(["REQUIRES", "UNLESS"]),
                                            st.integers(0, 2)).map(list), max_size=2))}
        for old in (draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
                    if len(ids) > 1 else [])]
    paths = draw(st.lists(STRINGS.filter(bool), max_size=2, unique=True))
    sources = [{"path": p, "sha256": draw(STRINGS), "size": draw(st.integers(0, 10**6)),
                "forged_at": draw(STRINGS), "chunks": draw(st.lists(STRINGS, max_size=2))}
               for p in paths]
    for bid in ids[:1] if paths else []:  # a belief pinned to a source: a FROM edge
        nodes[bid].update(source=paths[0], source_hash="ab12")
        nodes[bid]["metadata"]["lines"] = [2, 3]
    return {"meta": meta, "nodes": nodes, "nogoods": nogoods, "repos": repos,
            "supersessions": supersessions, "sources": sources}


def through(network, stored):
    store = FakeStore()
    interchange.import_network(store, network, stored)
    return interchange.export_network(store)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=networks())
def test_markdown_round_trip_is_byte_identical_and_equals_the_json_round_trip(data):
    # The file's first import may pin beliefs its labels say were retracted (stored OUT, yet
    # supported); from the registry it writes on, import -> export is a fixpoint.
    registry = md.dump_markdown(through(*parse_network(data)))
    first = through(*md.parse_markdown(registry))
    text = md.dump_markdown(first)
    again = through(*md.parse_markdown(text))
    assert md.dump_markdown(again) == text
    by_json = through(*parse_network(json.loads(json.dumps(network_to_json(first)))))
    assert network_to_json(again) == network_to_json(by_json)

    def pins_and_labels(network):
        return {b.id: (b.truth, b.depth, b.retracted, b.asserted) for b in network.beliefs.values()}

    assert pins_and_labels(again) == pins_and_labels(by_json)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=networks())
def test_split_registry_reads_back_as_the_single_file(data, tmp_path_factory):
    first = through(*md.parse_markdown(md.dump_markdown(through(*parse_network(data)))))
    directory = tmp_path_factory.mktemp("split")
    md.write_split(first, directory)
    network, stored = md.read_markdown(directory)
    assert md.dump_markdown(through(network, stored)) == md.dump_markdown(first)


def _sections(text: str) -> dict[str, str]:
    """belief id -> its section's text."""
    out: dict[str, str] = {}
    current = None
    for line in text.split("\n"):
        if line.startswith("### "):
            current = line[4:]
            out[current] = ""
        elif line.startswith("## "):
            current = None
        if current is not None:
            out[current] += line + "\n"
    return out


def _small_network() -> dict:
    return {"nodes": {
        "auth-uses-jwt": {"text": "The auth service validates JWTs", "source": "src/auth.py"},
        "bug-412-open": {"text": "Bug 412 is open"},
        "auth-ready": {"text": "Auth is production ready", "justifications": [
            {"antecedents": ["auth-uses-jwt"], "outlist": ["bug-412-open"], "label": "reviewed"}]},
        "cache-hit": {"text": "The cache is hit", "justifications": [
            {"antecedents": ["auth-uses-jwt"], "label": "seen"},
            {"antecedents": ["bug-412-open"], "label": "seen"}]},
    }}


def test_a_text_edit_changes_only_that_belief_section():
    first = through(*parse_network(_small_network()))
    before = md.dump_markdown(first)
    edited = dataclasses.replace(first.beliefs["bug-412-open"], text="Bug 412 is still open")
    after = md.dump_markdown(dataclasses.replace(first, beliefs={**first.beliefs,
                                                                 "bug-412-open": edited}))
    old, new = _sections(before), _sections(after)
    assert [k for k in old if old[k] != new[k]] == ["bug-412-open"]
    assert len(before.split("\n")) == len(after.split("\n"))


def test_the_file_reads_as_documented():
    text = md.dump_markdown(through(*parse_network(_small_network())))
    assert ("### auth-ready\n\n**OUT** · depth 1 · derived\n\n> Auth is production ready\n\n"
            "**Justification 1** · SL · ALL\n- label: reviewed\n"
            "- antecedents: [`auth-uses-jwt`](#auth-uses-jwt)\n"
            "- unless: [`bug-412-open`](#bug-412-open)\n") in text
    assert "**Justification 2** · SL · ANY\n- label: seen\n" in text


def test_split_links_name_the_other_file(tmp_path):
    files = md.dump_markdown_split(through(*parse_network(_small_network())))
    assert sorted(files) == ["auth.md", "bug.md", "cache.md", "index.md"]
    assert "[`bug-412-open`](bug.md#bug-412-open)" in files["auth.md"]
    assert "- [auth.md](auth.md)" in files["index.md"]


def test_github_anchors_number_repeated_headings():
    anchors = md.Anchors()
    assert [anchors.add(h) for h in ("a.b", "ab", "ab", "Beliefs · ns")] == \
        ["ab", "ab-1", "ab-2", "beliefs--ns"]


@pytest.mark.parametrize("edit, line, words", [
    (lambda t: t.replace("**OUT** · depth 1", "**MAYBE** · depth 1"), 8, "status line"),
    (lambda t: t.replace("- label: reviewed", "- colour: red"), 13, "unexpected justification"),
    (lambda t: t.replace("### auth-ready", "### Auth Ready"), 6, "invalid belief id"),
    (lambda t: t.replace("**Justification 1** · SL · ALL\n- label: reviewed",
                         "**Justification 1** · SL · ANY\n- label: reviewed"), 6, "modes say"),
    (lambda t: t.replace("- source: src/auth.py", "- source: 12"), 23, "non-empty string"),
    (lambda t: t.replace("<!-- eem-registry 1", "<!-- something else"), 1, "not a belief"),
])
def test_a_malformed_file_is_refused_naming_its_line(edit, line, words):
    text = md.dump_markdown(through(*parse_network(_small_network())))
    bad = edit(text)
    assert bad != text
    with pytest.raises(InvalidInput) as e:
        md.parse_markdown(bad, source="beliefs.md")
    assert str(e.value).startswith(f"beliefs.md: line {line}: ")
    assert words in str(e.value)
