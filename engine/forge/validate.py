"""Validation of proposed premises, rule by rule, in this order:

0. the id or the claim echoes the prompt (its placeholders or example; engine/stages/echo.py);
1. id syntax (`[a-z0-9][a-z0-9._:-]{0,199}`, as every belief id);
2. a duplicate id within the reply (the first keeps it);
3. the id already exists;
4. the claim is empty, or far longer than one sentence (`max_claim_chars`);
5. the quote does not occur in the text (after normalizing whitespace, quotes, dashes and
   case; engine/sources/grounding.py): `not grounded`. The line range where it occurs is kept;
6. the claim is too close to an existing belief, or to one accepted earlier in the same
   reply: cosine similarity of the claims' embeddings >= `similar` (`--similar`), reported
   as a likely duplicate. Off when no embedder is given.

A premise is skipped at the first rule it breaks, with that rule's reason.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.forge.items import ProposedPremise
from engine.forge.prompt import CLAIM_RULE, EXAMPLE_ID, reply_format
from engine.model import ID_RE
from engine.sources.grounding import find_quote
from engine.stages.echo import ECHO_REASON, PromptEcho
from engine.stages.stage import Checked, Skip

ECHO = PromptEcho.of(reply_format(1), examples=(EXAMPLE_ID, CLAIM_RULE))

Vector = Sequence[float]


@dataclass(frozen=True)
class ForgeRules:
    max_claim_chars: int = 300
    similar: float = 0.92  # cosine; 1.0 or more turns the rule off


@dataclass(frozen=True)
class Ground:
    """The text a round's premises must quote, and where it stands."""

    path: str
    text: str
    first_line: int
    source_hash: str
    chunk: str = ""


def cosine(a: Vector, b: Vector) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


def check_premises(
    items: Sequence[ProposedPremise],
    ground_of: Callable[[ProposedPremise], Ground | str],
    existing: set[str],
    rules: ForgeRules = ForgeRules(),
    *,
    vectors: Callable[[Sequence[str]], list[Vector]] | None = None,
    nearest: Callable[[Vector], tuple[str, float] | None] | None = None,
) -> Checked[ProposedPremise]:
    """`ground_of` gives each premise the text it must quote (or a reason it has none);
    `vectors` embeds claims and `nearest` names the closest existing belief with its cosine
    (both None: rule 6 is off)."""
    out: Checked[ProposedPremise] = Checked()
    seen: dict[str, int] = {}
    passed: list[ProposedPremise] = []
    for p in items:
        reason, grounded = _first_rules(p, ground_of, existing, rules, seen)
        if reason is not None:
            out.skipped.append(Skip(p.id, reason, p.line))
        else:
            passed.append(grounded)
    if vectors is None or rules.similar >= 1.0 or not passed:
        out.valid = passed
        return out
    kept: list[tuple[ProposedPremise, Vector]] = []
    for p, v in zip(passed, vectors([p.claim for p in passed])):
        reason = _duplicate(p, v, kept, nearest, rules)
        if reason is None:
            kept.append((p, v))
            out.valid.append(p)
        else:
            out.skipped.append(Skip(p.id, reason, p.line))
    return out


def _first_rules(p: ProposedPremise, ground_of, existing: set[str], rules: ForgeRules,
                 seen: dict[str, int]) -> tuple[str | None, ProposedPremise]:
    if ECHO.echoed(p.id, p.claim):
        return ECHO_REASON, p
    if not ID_RE.fullmatch(p.id):
        return (f"invalid id {p.id!r}: ids are 1-200 characters of [a-z0-9._:-], starting "
                "with a letter or digit"), p
    if p.id in seen:
        where = f" at line {seen[p.id]}" if seen[p.id] else ""
        return f"duplicate id: already proposed{where} of this reply", p
    seen[p.id] = p.line
    if p.id in existing:
        return "already exists", p
    if not p.claim.strip():
        return "empty claim", p
    if len(p.claim) > rules.max_claim_chars:
        return (f"claim is {len(p.claim)} characters, far longer than one sentence "
                f"(at most {rules.max_claim_chars})"), p
    ground = ground_of(p)
    if isinstance(ground, str):
        return ground, p
    span = find_quote(p.quote, ground.text, ground.first_line)
    if span is None:
        last = ground.first_line + ground.text.count("\n")
        return (f"not grounded: the quote does not occur in {ground.path} lines "
                f"{ground.first_line}-{last}"), p
    return None, dataclasses.replace(p, source=ground.path, lines=span,
                                     source_hash=ground.source_hash,
                                     chunk=ground.chunk or p.chunk)


def _duplicate(p: ProposedPremise, v: Vector, kept: list[tuple[ProposedPremise, Vector]],
               nearest, rules: ForgeRules) -> str | None:
    best: tuple[float, str, str] | None = None
    for other, w in kept:
        c = cosine(v, w)
        if c >= rules.similar and (best is None or c > best[0]):
            best = (c, other.id, "proposed earlier in this reply")
    if nearest is not None:
        found = nearest(v)
        if found is not None and found[1] >= rules.similar and (best is None or found[1] > best[0]):
            best = (found[1], found[0], "existing belief")
    if best is None:
        return None
    return (f"likely duplicate of {best[2]} '{best[1]}' (cosine {best[0]:.2f} >= "
            f"{rules.similar:g}, --similar)")
