"""Validation: each rule, the order they are applied in, and the reasons recorded."""
from __future__ import annotations

import pytest

from engine import tms
from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.derive.validate import (
    NetworkFacts,
    ValidationRules,
    id_tokens,
    jaccard,
    predicted_depth,
    read_facts,
    validate_proposals,
)
from tests.derive_fakes import derived, load, premise
from tests.fakes import FakeStore


def P(bid, antecedents=("a", "b"), unless=(), mode=Mode.ALL, line=1, kind=None):
    kind = kind or (ProposalKind.GATE if unless else ProposalKind.DERIVE)
    return Proposal(kind, bid, f"Text of {bid}.", tuple(antecedents), tuple(unless), mode,
                    "label", line)


@pytest.fixture
def store():
    s = FakeStore()
    load(s, [premise(i) for i in ("a", "b", "c", "u", "auth-token-cache", "x1")])
    load(s, [derived("d1", ["a", "b"]), derived("d2", ["d1", "c"])])
    # a chain for the depth rule: x1 (a premise), x2 <- x1, c, ..., x9 <- x8, c
    load(s, [derived(f"x{n}", [f"x{n - 1}", "c"]) for n in range(2, 10)])
    tms.retract(s, "auth-token-cache")
    return s


def check(store, proposals, rules=ValidationRules()):
    facts = store.read(lambda tx: read_facts(tx, proposals))
    return validate_proposals(proposals, facts, rules)


def reasons(v):
    return {s.id: s.reason for s in v.skipped}


def test_a_good_proposal_passes(store):
    v = check(store, [P("ab-together")])
    assert [p.id for p in v.valid] == ["ab-together"] and not v.skipped


def test_rule_1_id_syntax(store):
    v = check(store, [P("Bad Id"), P("ok-id", antecedents=("a", "B!"))])
    r = reasons(v)
    assert r["Bad Id"].startswith("invalid id 'Bad Id'")
    assert r["ok-id"] == "invalid id(s) named: 'B!'"


def test_rule_2_duplicate_within_the_reply(store):
    v = check(store, [P("new-one", line=3), P("new-one", antecedents=("a", "c"), line=9)])
    assert [p.line for p in v.valid] == [3]
    assert v.skipped[0].line == 9
    assert "already proposed at line 3" in v.skipped[0].reason


def test_rule_3_already_exists(store):
    assert reasons(check(store, [P("d1", antecedents=("a", "c"))])) == {"d1": "already exists"}


def test_rule_4_missing_antecedent_or_unless(store):
    v = check(store, [P("n1", antecedents=("a", "ghost")),
                      P("n2", antecedents=("a", "b"), unless=("phantom",))])
    r = reasons(v)
    assert r["n1"] == "antecedent(s) not in the network: ghost"
    assert r["n2"] == "unless id(s) not in the network: phantom"


def test_rule_5_too_few_antecedents(store):
    v = check(store, [P("n1", antecedents=("a",)), P("n2", antecedents=("a", "a"))])
    r = reasons(v)
    assert r["n1"].startswith("1 distinct antecedent(s); at least 2 needed")
    assert r["n2"].startswith("1 distinct antecedent(s)")
    v3 = check(store, [P("n3", antecedents=("a", "b"))], ValidationRules(min_antecedents=3))
    assert "at least 3 needed" in reasons(v3)["n3"]
    v1 = check(store, [P("n4", antecedents=("a",))], ValidationRules(min_antecedents=1))
    assert v1.valid


def test_rule_6_names_itself(store):
    v = check(store, [P("selfish", antecedents=("a", "selfish")),
                      P("gated-self", antecedents=("a", "b"), unless=("gated-self",))])
    assert set(reasons(v).values()) == {"names itself in its own justification"}


def test_rule_7_similar_to_an_out_belief(store):
    # auth-token-cache is OUT (retracted)
    v = check(store, [P("auth-token-cache-layer"), P("auth:token-store"),
                      P("auth-session-store")])
    r = reasons(v)
    # {auth, token, cache} vs {auth, token, cache, layer}: 3/4
    assert "too similar to OUT belief 'auth-token-cache' (id-token Jaccard 0.75 >= 0.5" \
        in r["auth-token-cache-layer"]
    # ':' splits too: {auth, token, store}: 2/4, at the threshold
    assert "Jaccard 0.50 >= 0.5" in r["auth:token-store"]
    assert [p.id for p in v.valid] == ["auth-session-store"]  # 1/5
    loose = check(store, [P("auth:token-store")], ValidationRules(out_similarity=0.6))
    assert loose.valid


def test_rule_8_too_deep(store):
    # x1 is a premise, xn has depth n - 1: ALL over (x9, c) has depth 9 > 8
    assert store.state.beliefs["x9"].depth == 8
    v = check(store, [P("too-deep", antecedents=("x9", "c")),
                      P("any-is-shallow", antecedents=("x9", "c"), mode=Mode.ANY),
                      P("just-deep-enough", antecedents=("x8", "c"))])
    assert reasons(v) == {"too-deep": "depth 9 exceeds --max-depth 8"}
    assert [p.id for p in v.valid] == ["any-is-shallow", "just-deep-enough"]  # ANY: 1 + 0
    assert check(store, [P("ok-deep", antecedents=("x9", "c"))],
                 ValidationRules(max_depth=9)).valid


def test_rules_apply_in_order(store):
    # breaks rule 3 (exists), 4 (ghost), 5 (one antecedent): 3 is reported
    assert reasons(check(store, [P("d1", antecedents=("ghost",))])) == {"d1": "already exists"}
    # breaks 4 and 5: 4 is reported
    assert reasons(check(store, [P("n", antecedents=("ghost",))]))["n"].startswith(
        "antecedent(s) not in the network")
    # breaks 5 and 6: 5 is reported ({n} counted once)
    assert reasons(check(store, [P("n", antecedents=("n",))]))["n"].startswith("1 distinct")
    # breaks 6 and 7 (similar to auth-token-cache): 6
    v = check(store, [P("auth-token-cache-v2", antecedents=("a", "auth-token-cache-v2"))])
    assert reasons(v)["auth-token-cache-v2"] == "names itself in its own justification"


def test_every_skip_is_recorded_with_its_line(store):
    ps = [P("Bad", line=2), P("d1", line=5), P("fine-one", line=8)]
    v = check(store, ps)
    assert [(s.id, s.line) for s in v.skipped] == [("Bad", 2), ("d1", 5)]
    assert len(v.valid) + len(v.skipped) == len(ps)


def test_helpers():
    assert id_tokens("Auth-JWT:cache") == {"auth", "jwt", "cache"}
    assert jaccard(frozenset(), frozenset({"a"})) == 0.0
    facts = NetworkFacts(frozenset({"a", "b"}), {"a": 2, "b": None})
    assert predicted_depth(P("n"), facts.depths) == 3
    assert predicted_depth(P("n", antecedents=("b",)), facts.depths) is None
