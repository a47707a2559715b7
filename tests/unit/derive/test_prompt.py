"""The prompt: each section, the grouping of the beliefs section, the derived-section
filter (the fixpoint), the statistics, --domain and --topic, the budget cap."""
from __future__ import annotations

import hashlib

import pytest

from engine.derive.prompt import BELIEF_TEXT_LIMIT, PromptOptions, build_prompt
from engine.derive.parser import parse_reply
from engine.derive.run import DeriveOptions, preview_prompt
from engine.derive.view import read_view
from engine.model import Justification
from tests.derive_fakes import FixedSampler, alphabetical, derived, load, premise
from tests.fakes import FakeStore


def prompt_for(store, sampler, *, budget=300, **options):
    view = read_view(store, sampler, 0, budget=budget, topic=options.get("topic"))
    return view, build_prompt(view, PromptOptions(**options))


def section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    rest = text[start + len(heading) + 4:]
    end = rest.find("\n## ")
    return rest if end < 0 else rest[:end]


@pytest.fixture
def store():
    s = FakeStore()
    load(s, [
        premise("auth-a", "Auth A."), premise("auth-b", "Auth B."), premise("auth-c", "Auth C."),
        premise("db-x", "Db X."), premise("db-y", "Db Y."), premise("misc", "Misc."),
    ])
    return s


def test_sections_come_in_order(store):
    _, p = prompt_for(store, alphabetical(300))
    headings = [line for line in p.text.splitlines() if line.startswith("## ")]
    assert headings == ["## Background", "## Task", "## Rules", "## Output Format",
                        "## Existing Beliefs", "## Existing Derived Conclusions",
                        "## Statistics"]


def test_background_explains_nodes_cascades_and_modes(store):
    _, p = prompt_for(store, alphabetical())
    bg = section(p.text, "Background")
    for phrase in ("depth 0", "Derived conclusions", "Outlist-gated", "Retraction cascades",
                   "ALL:", "ANY:", "breaks the cascade"):
        assert phrase in bg


def test_task_names_the_three_kinds_of_derivation(store):
    _, p = prompt_for(store, alphabetical())
    task = section(p.text, "Task")
    assert "depth N+1" in task and "depth-1" in task and "GATE" in task


def test_rules_carry_min_antecedents_and_the_no_proposals_line(store):
    _, p = prompt_for(store, alphabetical(), min_antecedents=3)
    rules = section(p.text, "Rules")
    assert "at least 3 antecedents" in rules
    assert "load-bearing" in rules and "No forced connections" in rules
    assert "`NO PROPOSALS` on a line of its own" in rules


def test_output_format_shows_blocks_the_parser_reads_as_shown(store):
    _, p = prompt_for(store, alphabetical())
    shown = section(p.text, "Output Format")
    lines = shown.splitlines()
    for line in ("### DERIVE <new-belief-id>", "### GATE <new-belief-id>",
                 "- Antecedents: <existing-id>, <existing-id>", "- Unless: <existing-id>",
                 "- Mode: ALL", "NO PROPOSALS"):
        assert line in lines
    # each block as the prompt shows it, its placeholders filled in, is a proposal
    filled = (shown.replace("<new-belief-id>", "auth-is-checked")
              .replace("<one-sentence conclusion>", "Auth is checked twice.")
              .replace("<existing-id>, <existing-id>", "auth-a, auth-b")
              .replace("<existing-id>", "db-x")
              .replace("<short label saying why the antecedents support it>", "both checks")
              .replace("<short label>", "unless db"))
    blocks = [b for b in filled.split("\n\n") if b.startswith("### ")]
    parsed = [parse_reply(b).proposals for b in blocks]
    assert [[(q.kind.value, q.antecedents, q.unless) for q in found] for found in parsed] == [
        [("DERIVE", ("auth-a", "auth-b"), ())], [("GATE", ("auth-a", "auth-b"), ("db-x",))]]


def test_beliefs_grouped_by_prefix_with_pool_totals(store):
    _, p = prompt_for(store, alphabetical(4), budget=4)
    beliefs = section(p.text, "Existing Beliefs")
    assert beliefs.strip().splitlines() == [
        "### auth (3 beliefs, showing 3)",
        "- `auth-a`: Auth A.",
        "- `auth-b`: Auth B.",
        "- `auth-c`: Auth C.",
        "",
        "### db (2 beliefs, showing 1)",
        "- `db-x`: Db X.",
    ]


def test_long_texts_are_cut_at_120_characters():
    s = FakeStore()
    exact = "e" * BELIEF_TEXT_LIMIT
    long = "l" * 130
    load(s, [premise("p-exact", exact), premise("p-long", long),
             premise("p-lines", "two\nlines")])
    _, p = prompt_for(s, alphabetical())
    beliefs = section(p.text, "Existing Beliefs")
    assert f"- `p-exact`: {exact}\n" in beliefs
    assert f"- `p-long`: {'l' * 120}...\n" in beliefs
    assert "- `p-lines`: two lines" in beliefs


@pytest.fixture
def network():
    s = FakeStore()
    load(s, [premise(i) for i in ("a1", "a2", "b1", "b2", "u")])
    load(s, [
        derived("d1", ["a1", "a2"]),
        derived("d2", ["d1", "a1"]),  # shown through d1: the fixpoint
        derived("d3", ["a1", "b1"]),  # b1 not sampled: hidden
        derived("d4", ["b1", "b2"], ["a2", "a1"], text="Two ways."),  # shown by its 2nd
        derived("d5", Justification((), ("a1",))),  # outlist only: never qualifies
        derived("d6", ["d3", "a1"]),  # rests on a hidden one: hidden
        derived("d7", ["a1", "a2"], unless=["u"]),  # OUT (u is IN): shown, tagged OUT
    ])
    return s


def test_derived_section_is_filtered_to_the_sample(network):
    view, p = prompt_for(network, FixedSampler(["a1", "a2"]))
    assert [b.id for b in view.derived] == ["d2", "d1", "d4", "d7"]
    derived_text = section(p.text, "Existing Derived Conclusions")
    assert "`d3`" not in derived_text and "`d5`" not in derived_text
    assert "`d6`" not in derived_text
    assert "#### [IN] depth-2: `d2`\nDerived d2.\n- Antecedents: d1, a1" in derived_text
    assert "#### [IN] depth-1: `d4`\nTwo ways.\n- Antecedents: b1, b2\n- Antecedents: a2, a1" \
        in derived_text
    assert "#### [OUT] depth-1: `d7`\nDerived d7.\n- Antecedents: a1, a2\n- Unless: u" \
        in derived_text
    assert p.allowed_ids == ("a1", "a2", "d2", "d1", "d4", "d7")


def test_derived_section_grows_with_the_sample(network):
    view, _ = prompt_for(network, FixedSampler(["a1", "a2", "b1"]))
    assert {b.id for b in view.derived} == {"d1", "d2", "d3", "d4", "d6", "d7"}


def test_no_derived_conclusions_is_said(store):
    _, p = prompt_for(store, alphabetical())
    assert "(No derived conclusions rest on the beliefs shown)" in p.text


def test_derived_section_is_capped_at_the_budget_deepest_first(network):
    view, _ = prompt_for(network, FixedSampler(["a1", "a2"]), budget=2)
    assert [b.id for b in view.derived] == ["d2", "d1"]
    assert view.derived_related == 4


def test_statistics(network):
    _, p = prompt_for(network, FixedSampler(["a1", "a2"], strategy="intra-cluster", cluster=3))
    stats = section(p.text, "Statistics")
    assert "- IN beliefs: 10" in stats  # 5 premises + d1 d2 d3 d4 d6 (d5, d7 are OUT)
    assert "- Derived beliefs: 7" in stats
    assert "- Max depth: 2" in stats
    assert "- Sample: 2 of 5 IN premises (strategy intra-cluster, cluster 3)" in stats
    assert "- How they were chosen: the given ids" in stats
    assert "- Derived conclusions shown: 4 of 4 that rest on the sample" in stats


def test_domain_and_topic(store):
    view, p = prompt_for(store, alphabetical(), domain="a web shop", topic="auth Y.")
    assert "The beliefs in this network are about: a web shop" in p.text
    assert "contains one of these words are shown: auth Y." in p.text
    # topic words match ids or texts, case-insensitively: auth-* by id, db-y by its text
    assert view.sample_ids == ("auth-a", "auth-b", "auth-c", "db-y")
    assert view.pool_size == 4


def test_only_in_premises_are_sampled(network):
    from engine import tms

    tms.retract(network, "b2")
    view, _ = prompt_for(network, alphabetical())
    assert view.sample_ids == ("a1", "a2", "b1", "u")


def test_budget_is_a_hard_cap_even_when_the_sampler_overshoots(store):
    view, p = prompt_for(store, FixedSampler(["auth-a", "auth-b", "db-x", "nope"]), budget=2)
    assert view.sample_ids == ("auth-a", "auth-b")
    assert p.text.count("\n- `") == 2


def test_hash_is_of_the_text_and_preview_matches(store):
    view, p = prompt_for(store, alphabetical(3), budget=3)
    assert p.sha256 == hashlib.sha256(p.text.encode()).hexdigest()
    again = preview_prompt(store, alphabetical(3), DeriveOptions(budget=3))
    assert again.text == p.text


def test_empty_network():
    _, p = prompt_for(FakeStore(), alphabetical())
    assert "(No beliefs to show)" in p.text
