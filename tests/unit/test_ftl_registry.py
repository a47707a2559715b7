"""Reading the beliefs.md and nogoods.md of ftl-reasons / reasonsforge (adapters/ftl_registry.py):
what each construct their exporter writes becomes, and one clear error for what is not
their format."""
from __future__ import annotations

import pytest

from adapters.ftl_registry import (looks_like_ftl_registry, parse_ftl_registry,
                                   read_ftl_registry, to_network)
from engine.errors import InvalidInput
from engine.model import Truth
from engine.interchange import decide_pins
from tests.ftl_samples import (BELIEFS_MD, HASH_A, LABELS, NETWORK_JSON, NOGOODS_MD,
                               OLD_BELIEFS_MD, RETRACTED, their_export_markdown)


def _network(text=BELIEFS_MD, nogoods=NOGOODS_MD):
    return to_network(parse_ftl_registry(text, nogoods_text=nogoods))


def test_every_construct_of_their_exporter_comes_in():
    got = _network()
    n = got.network
    assert set(n.beliefs) == set(LABELS)
    assert n.meta["project_name"] == "physics" and n.meta["node_count"] == 10
    assert n.repos == {"notes": "/srv/notes", "physics": "~/git/physics"}
    c = n.beliefs["derived-c"]
    assert c.text == "Derived from both premises,\nover two lines of text"
    (j,) = c.justifications
    assert (j.antecedents, j.outlist) == (("premise-a", "premise-b"), ("blocker-e",))
    assert dict(c.metadata) == {"source_type": "derived"}
    a = n.beliefs["premise-a"]
    assert (a.source, a.source_url, a.source_hash, a.date) == (
        "physics/docs/a.md", "https://example.org/a", HASH_A, "2026-03-17")
    assert a.justifications == () and dict(a.metadata) == {}
    assert dict(n.beliefs["premise-b"].metadata) == {"beliefs_type": "AXIOM",
                                                      "source_type": "manual"}
    (d,) = n.beliefs["review-d"].justifications
    assert d.outlist == ("defeater-f", "defeater-j")
    assert dict(n.beliefs["defeater-f"].metadata) == {
        "stale_reason": "answered in review 12", "defeats_node": "review-d",
        "defeater_type": "defeater", "defeat_reason_type": "invalid-inference"}
    assert n.beliefs["defeater-j"].metadata["defeater_type"] == "challenge"
    g = n.beliefs["retracted-g"]
    assert g.retract_reason == "New data invalidated this"
    assert {k: g.metadata[k] for k in ("duplicate_of", "superseded_by", "accepted_pr",
                                       "reviewed_by")} == {
        "duplicate_of": "derived-c", "superseded_by": "derived-c", "accepted_pr": "#42",
        "reviewed_by": "alice"}
    assert got.stored == {bid: Truth(label) for bid, label in LABELS.items()}


def test_nogoods_come_from_both_files_and_unknown_members_are_left_out_with_a_note():
    got = _network()
    assert [(g.id, g.members, g.discovered, g.resolution) for g in got.network.nogoods] == [
        ("nogood-001", ("blocker-e", "premise-b"), "2026-03-15", "blocker-e retracted"),
        ("nogood-002", ("derived-c", "chain-h"), "2026-03-17", "chain-h is out")]
    assert any("ghost-z" in note for note in got.notes)


def test_the_import_decides_their_labels_and_retracts_only_where_support_is_valid():
    got = _network()
    beliefs, labels = decide_pins(got.network.beliefs, got.stored)
    assert {bid: lab.truth.value for bid, lab in labels.items()} == LABELS
    assert sorted(b for b in beliefs if beliefs[b].retracted) == RETRACTED
    assert beliefs["retracted-g"].retract_reason == "New data invalidated this"


def test_the_older_format_without_front_matter_reads_too():
    got = to_network(parse_ftl_registry(OLD_BELIEFS_MD))
    assert got.network.meta == {} and got.network.repos == {}
    assert got.stored == {"premise-a": Truth.IN, "derived-c": Truth.IN, "stale-d": Truth.OUT}
    assert got.network.beliefs["premise-a"].source_hash == "abc123def4567890"
    assert got.network.beliefs["stale-d"].metadata["superseded_by"] == "derived-c"


def test_an_id_named_but_not_in_the_file_is_a_forward_reference_with_a_note():
    text = "## Claims\n\n### a [IN] DERIVED\nA\n- Depends on: elsewhere\n"
    got = to_network(parse_ftl_registry(text))
    assert got.network.beliefs["a"].justifications[0].antecedents == ("elsewhere",)
    assert any("elsewhere" in note for note in got.notes)


def test_prose_after_the_fields_is_kept_in_metadata_not_in_the_text():
    text = "## Claims\n\n### a [IN] OBSERVATION\nA\n- Date: 2026-01-01\nhand-written note\n"
    b = to_network(parse_ftl_registry(text)).network.beliefs["a"]
    assert b.text == "A" and b.metadata["registry_notes"] == "hand-written note"


def test_our_registry_is_not_taken_for_theirs():
    assert looks_like_ftl_registry(BELIEFS_MD)
    assert not looks_like_ftl_registry("<!-- eem-registry 1 -->\n# Belief registry\n\n### a\n")


@pytest.mark.parametrize("text, fragment", [
    ("## Claims\n\n### Bad_Id [IN] OBSERVATION\nx\n", "line 3: invalid id 'Bad_Id'"),
    ("## Claims\n\n### a [IN] OBSERVATION\nx\n\n### a [OUT] OBSERVATION\ny\n",
     "line 6: belief 'a' is given twice (first at line 3)"),
    ("## Claims\n\n### a [IN] OBSERVATION\n- Date: 2026\n", "line 3: belief 'a' has no text"),
    ("## Claims\n\n### a [IN] DERIVED\nA\n- Depends on: b, Not An Id\n",
     "line 5: invalid id 'Not An Id'"),
    ("## Claims\n\n### a [IN] OBSERVATION\nA\n### b [MAYBE] OBSERVATION\n", "line 5: a heading"),
])
def test_what_is_not_their_format_is_one_error_naming_the_line(text, fragment):
    with pytest.raises(InvalidInput) as e:
        to_network(parse_ftl_registry(text, source="beliefs.md"))
    assert fragment in str(e.value)


def test_a_file_without_claims_is_refused(tmp_path):
    (tmp_path / "beliefs.md").write_text("# Belief Registry\n\n## Claims\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="no belief headings"):
        read_ftl_registry(tmp_path / "beliefs.md")


def test_the_exporter_the_tests_write_lays_out_the_sample_as_their_registry_has_it():
    """tests/ftl_samples.their_export_markdown (the real-network test's beliefs.md) against
    the registry written by hand from their files: the same lines, but for what a person
    added by hand there (a `Reviewed by`, a claim appended at the end) and the nogood kept in
    nogoods.md instead."""
    ours = their_export_markdown(NETWORK_JSON, updated_at="2026-06-20T07:17:55+00:00")
    by_hand = BELIEFS_MD.replace("- Reviewed by: alice\n", "").replace(
        "\n### premise-i [IN] OBSERVATION\nA premise that a nogood names\n", "")
    claims, nogoods = ours.split("## Nogoods", 1)
    assert claims.replace("### premise-i [IN] OBSERVATION\nA premise that a nogood names\n\n",
                          "") == by_hand.split("## Nogoods", 1)[0]
    assert "### nogood-001\n- Discovered: 2026-03-15" in nogoods and "### nogood-002" in nogoods
    # in its place among the IN claims, by id
    assert claims.index("### premise-b") < claims.index("### premise-i") < claims.index(
        "### review-d")
