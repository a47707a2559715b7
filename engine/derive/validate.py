"""Validation of parsed proposals against the network, rule by rule, in this order:

0. the new id, the conclusion or the label echoes the prompt (its `<...>` placeholders or
   its example id; engine/stages/echo.py);
1. id syntax (the new id and every id it names: `[a-z0-9][a-z0-9._:-]{0,199}`);
2. a duplicate id within the reply (the first proposal with an id keeps it);
3. the id already exists;
4. an antecedent or unless id that does not exist;
5. fewer than `min_antecedents` distinct antecedents (`--min-antecedents`, default 2);
6. the belief naming itself (as an antecedent or in its outlist);
7. the id too similar to an OUT belief: Jaccard similarity of the id tokens (lower-cased,
   split on `-` and `:`) >= `out_similarity` (`--out-similarity`, default 0.5), since a
   retraction was a judgment the model must not undo by rewording;
8. the new belief's depth above `max_depth` (`--max-depth`, default 8): 1 + the largest
   antecedent depth for ALL, 1 + the smallest for ANY (its shallowest justification).

A proposal is skipped at the first rule it breaks, with that rule's reason. Rule 4 leaves the
proposal's own id to rule 6, so each rule can be met.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.derive.proposals import EXAMPLE_ID, FORMAT, Mode, Proposal
from engine.model import ID_RE
from engine.stages.echo import ECHO_REASON, PromptEcho
from engine.stages.stage import Checked, Skip
from engine.tms.records import TmsTx


@dataclass(frozen=True)
class ValidationRules:
    min_antecedents: int = 2
    out_similarity: float = 0.5
    max_depth: int = 8


@dataclass(frozen=True)
class NetworkFacts:
    """What validation needs to know of the network, read in the round's transaction."""

    existing: frozenset[str]  # the ids named by the proposals that are beliefs
    depths: Mapping[str, int | None]  # depth of each of those beliefs
    out_ids: tuple[str, ...] = ()  # every OUT (or Undetermined) belief


ECHO = PromptEcho.of(FORMAT, examples=(EXAMPLE_ID,))
Validation = Checked  # valid proposals, and a Skip with its reason for each of the others


def mentioned_ids(proposals: Iterable[Proposal]) -> set[str]:
    return {i for p in proposals for i in (p.id, *p.antecedents, *p.unless)}


def read_facts(tx: TmsTx, proposals: Sequence[Proposal]) -> NetworkFacts:
    named = {i for i in mentioned_ids(proposals) if ID_RE.fullmatch(i)}
    found = tx.get_beliefs(named) if named else {}
    return NetworkFacts(
        existing=frozenset(found),
        depths={i: b.depth for i, b in found.items()},
        out_ids=tuple(tx.out_belief_ids()) if proposals else (),
    )


def id_tokens(belief_id: str) -> frozenset[str]:
    return frozenset(t for t in belief_id.lower().replace(":", "-").split("-") if t)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def predicted_depth(p: Proposal, depths: Mapping[str, int | None]) -> int | None:
    known = [d for d in (depths.get(a) for a in p.antecedents) if d is not None]
    if not known:
        return None
    return 1 + (min(known) if p.mode is Mode.ANY else max(known))


def validate_proposals(
    proposals: Sequence[Proposal], facts: NetworkFacts, rules: ValidationRules = ValidationRules()
) -> Validation:
    out: Validation = Validation()
    out_tokens = [(i, id_tokens(i)) for i in facts.out_ids]
    first_line: dict[str, int] = {}
    for p in proposals:
        reason = _first_broken_rule(p, facts, rules, first_line, out_tokens)
        if reason is None:
            out.valid.append(p)
        else:
            out.skipped.append(Skip(p.id, reason, p.line))
    return out


def _first_broken_rule(
    p: Proposal,
    facts: NetworkFacts,
    rules: ValidationRules,
    first_line: dict[str, int],
    out_tokens: list[tuple[str, frozenset[str]]],
) -> str | None:
    # 0. an echo of the prompt
    if ECHO.echoed(p.id, p.text, p.label):
        return ECHO_REASON
    # 1. id syntax
    if not ID_RE.fullmatch(p.id):
        return (f"invalid id {p.id!r}: ids are 1-200 characters of [a-z0-9._:-], "
                "starting with a letter or digit")
    bad = [i for i in (*p.antecedents, *p.unless) if not ID_RE.fullmatch(i)]
    if bad:
        return f"invalid id(s) named: {', '.join(repr(i) for i in bad)}"
    # 2. duplicate within the reply
    if p.id in first_line:
        return f"duplicate id: already proposed at line {first_line[p.id]} of this reply"
    first_line[p.id] = p.line
    # 3. already exists
    if p.id in facts.existing:
        return "already exists"
    # 4. names ids that do not exist
    missing_a = [a for a in dict.fromkeys(p.antecedents) if a != p.id and a not in facts.existing]
    missing_u = [u for u in dict.fromkeys(p.unless) if u != p.id and u not in facts.existing]
    if missing_a or missing_u:
        parts = []
        if missing_a:
            parts.append(f"antecedent(s) not in the network: {', '.join(missing_a)}")
        if missing_u:
            parts.append(f"unless id(s) not in the network: {', '.join(missing_u)}")
        return "; ".join(parts)
    # 5. too few antecedents
    distinct = len(set(p.antecedents))
    if distinct < rules.min_antecedents:
        return (f"{distinct} distinct antecedent(s); at least {rules.min_antecedents} needed "
                "(--min-antecedents)")
    # 6. names itself
    if p.id in p.antecedents or p.id in p.unless:
        return "names itself in its own justification"
    # 7. too similar to an OUT belief
    tokens = id_tokens(p.id)
    best: tuple[float, str] | None = None
    for other, other_tokens in out_tokens:
        s = jaccard(tokens, other_tokens)
        if s >= rules.out_similarity and (best is None or s > best[0]):
            best = (s, other)
    if best is not None:
        return (f"too similar to OUT belief '{best[1]}' (id-token Jaccard {best[0]:.2f} >= "
                f"{rules.out_similarity:g}, --out-similarity)")
    # 8. too deep
    depth = predicted_depth(p, facts.depths)
    if depth is not None and depth > rules.max_depth:
        return f"depth {depth} exceeds --max-depth {rules.max_depth}"
    return None
