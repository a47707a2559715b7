"""The review prompt: its sections in order, one `### <id>` block per belief with claim and
depth, justifications numbered 1.. in the belief's order with mode, label, antecedents and
Unless ids with their texts and labels; and the reply schema limited to what is shown."""
from __future__ import annotations

import re

import pytest

from engine import tms
from engine.model import Belief, Justification
from engine.stages.arguments import modes, review_sha256
from engine.review.prompt import build_prompt
from engine.review.schema import reply_schema
from engine.review.verdicts import REASON_TYPES, defeater_id
from tests.derive_fakes import load, premise
from tests.fakes import FakeStore
from tests.review_fakes import loaded, stage


@pytest.fixture
def store():
    s = loaded(FakeStore())
    load(s, [premise("bug", "Bug 412 is open."),
             Belief("gated", "Auth is production ready.", (
                 Justification(("p1", "p2"), ("bug", "later"), label="ready unless the bug"),))])
    tms.retract(s, "bug", "fixed")
    return s


def shown_round(store, **settings):
    return stage(budget=50, **settings).read_round(store, 1)


def test_sections_in_order(store):
    text = shown_round(store).prompt.text
    heads = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert heads == ["Background", "Task", "Reason types (for an invalid justification; a "
                     "valid one has `none`)", "Answer format", "Beliefs to review", "This round"]
    for name in REASON_TYPES:
        assert f"- {name}: " in text


def test_each_belief_is_a_block_with_its_justifications_numbered_in_order(store):
    text = shown_round(store).prompt.text
    block = text.split("### mixed (depth 1)\n", 1)[1].split("\n### ", 1)[0]
    assert block == (
        "Claim: Auth is a latency bottleneck.\n"
        "Justification 1 (ALL):\n"
        "- `p1`: The auth service validates a JWT on every request.\n"
        "- `p2`: JWT validation fetches signing keys synchronously.\n"
        "Justification 2 (ALL):\n"
        "- `p3`: A load test showed p99 auth latency of 900 ms.\n")


def test_an_antecedent_that_is_not_in_shows_its_label(store):
    tms.retract(store, "p3", "misread")  # mixed still holds by its first justification
    text = shown_round(store).prompt.text
    assert "Justification 2 (ALL):\n- `p3` [OUT]: A load test showed" in text


def test_unless_ids_show_their_text_and_label_and_missing_ids_say_so(store):
    text = shown_round(store).prompt.text
    assert "### gated (depth 1)\nClaim: Auth is production ready.\n" \
           "Justification 1 (ALL; label: ready unless the bug):\n" in text
    assert "- Unless `bug` [OUT]: Bug 412 is open." in text
    assert "- Unless `later` [MISSING]: (not in the network yet)" in text


def test_any_derivations_show_as_any(store):
    text = shown_round(store).prompt.text
    block = text.split("### either (depth 1)\n", 1)[1].split("\n### ", 1)[0]
    assert block.count("(ANY; label: auth evidence):") == 2
    from engine.stages.records import ArgumentJustification, ArgumentPart
    a, b = ArgumentPart("a", "A", "IN"), ArgumentPart("b", "B", "IN")
    assert modes([ArgumentJustification("SL", "", (a,)),
                  ArgumentJustification("SL", "x", (b,))]) == ["ALL", "ALL"]
    assert modes([ArgumentJustification("SL", "x", (a,)),
                  ArgumentJustification("SL", "x", (b,))]) == ["ANY", "ANY"]


def test_the_round_section_counts(store):
    text = shown_round(store).prompt.text
    # due now: the depth-1 beliefs (chain and top wait for mixed and solo)
    assert "4 of 4 beliefs due for review; 6 justifications to judge." in text


def test_prompt_hash_is_of_the_text(store):
    p = build_prompt([], due_total=0)
    import hashlib
    assert p.sha256 == hashlib.sha256(p.text.encode()).hexdigest()


def test_the_grammar_schema_is_one_verdict_per_justification_shown_in_order(store):
    shown = shown_round(store)
    assert shown.contract.stage == "review"
    verdicts = shown.contract.reply.schema["properties"]["verdicts"]
    assert verdicts["minItems"] == verdicts["maxItems"] == 6 and verdicts["items"] is False
    slots = [(v["properties"]["id"]["enum"], v["properties"]["justification"]["enum"],
              v["properties"]["unnecessary_antecedents"]["items"].get("enum"))
             for v in verdicts["prefixItems"]]
    assert slots == [(["either"], [1], ["p1"]), (["either"], [2], ["p4"]),
                     (["gated"], [1], ["p1", "p2"]), (["mixed"], [1], ["p1", "p2"]),
                     (["mixed"], [2], ["p3"]), (["solo"], [1], ["p1", "p2"])]


def test_the_strict_schema_allows_only_the_ids_numbers_and_antecedents_shown(store):
    strict = shown_round(store).contract.reply.strict_schema
    options = {o["properties"]["id"]["enum"][0]: o
               for o in strict["properties"]["verdicts"]["items"]["anyOf"]}
    assert sorted(options) == ["either", "gated", "mixed", "solo"]
    assert options["mixed"]["properties"]["justification"]["enum"] == [1, 2]
    assert options["mixed"]["properties"]["unnecessary_antecedents"]["items"]["enum"] == [
        "p1", "p2", "p3"]


def test_the_strict_schema_has_no_bounds_and_requires_everything(store):
    rounds = shown_round(store)
    strict = rounds.contract.reply.strict_schema

    def walk(node):
        if isinstance(node, dict):
            assert not {"minItems", "maxItems", "maxLength"} & node.keys()
            if node.get("type") == "object":
                assert node["additionalProperties"] is False
                assert sorted(node["required"]) == sorted(node["properties"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(strict)
    assert reply_schema([], bounded=False)["properties"]["verdicts"]["items"] == {"anyOf": []}


def test_review_hash_covers_texts_but_not_labels_or_depth():
    from engine.stages.arguments import Named, ShownJustification
    j = ShownJustification(1, "ALL", "SL", "l", (Named("a", "A", "IN"),), ())
    same = ShownJustification(1, "ALL", "SL", "l", (Named("a", "A", "OUT"),), ())
    edited = ShownJustification(1, "ALL", "SL", "l", (Named("a", "A!", "IN"),), ())
    assert review_sha256("c", [j]) == review_sha256("c", [same])
    assert review_sha256("c", [j]) != review_sha256("c", [edited])
    assert review_sha256("c", [j]) != review_sha256("c2", [j])


def test_defeater_ids_are_well_formed_and_unique():
    from engine.model import ID_RE
    assert defeater_id("auth-x", 2) == "review:auth-x:j2"
    long_a, long_b = "a" * 199 + "b", "a" * 199 + "c"
    assert ID_RE.fullmatch(defeater_id(long_a, 12))
    assert defeater_id(long_a, 12) != defeater_id(long_b, 12)
    assert len(defeater_id(long_a, 12)) <= 200
