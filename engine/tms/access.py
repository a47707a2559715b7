"""Access tags: who may see a belief. Pure Python, no I/O.

A belief's own tags are its metadata `access_tags` (a list; `add --access-tags finance,hr`,
`set-metadata ID access_tags '["hr"]'`). Its effective tags are its own and those of
everything its current support rests on, so a conclusion drawn from an HR document is HR:

- an IN belief rests on the antecedents of each of its justifications that holds now (a
  user-asserted belief with none holding rests on nothing but itself);
- a belief that is not IN rests on the antecedents of all its justifications: it says what
  they would give, so it keeps their tags while OUT;
- outlist members are never support (a belief holds by their absence).

Effective tags are the least fixpoint of that union (a cycle of support shares its tags).
Tags never change labels: engine/tms/semantics.py ignores them. The store keeps effective tags
on each belief, recomputed by the same write transaction that changes the support
(engine/tms/propagate.retag, over the region whose labels propagation decides); verify compares
them with `effective_tags` over the whole network.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TypedDict

from engine.errors import InvalidInput
from engine.model import Belief, Truth

TAGS_KEY = "access_tags"
_TAG = re.compile(r"[a-z0-9][a-z0-9._:-]{0,63}")


def parse_tags(value: object, *, field: str = TAGS_KEY) -> tuple[str, ...]:
    """Tags from `finance,hr` or a JSON list; sorted, distinct; InvalidInput otherwise."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InvalidInput(f"{field} takes a list of tags, not {value!r}", field=field,
                           value=value)
    tags = set()
    for item in items:
        tag = item.strip() if isinstance(item, str) else item
        if tag == "":
            continue
        if not isinstance(tag, str) or not _TAG.fullmatch(tag):
            raise InvalidInput(f"access tag {tag!r} must be lower case [a-z0-9._:-]",
                               field=field, value=tag)
        tags.add(tag)
    return tuple(sorted(tags))


def own_tags(metadata: Mapping[str, object]) -> frozenset[str]:
    raw = metadata.get(TAGS_KEY)
    if not isinstance(raw, (list, tuple)):
        return frozenset()
    return frozenset(t for t in raw if isinstance(t, str) and t)


@dataclasses.dataclass(frozen=True, slots=True)
class TagBelief:
    """One belief as tag propagation needs it: its own tags, whether it is IN, and per
    justification (antecedent keys, outlist keys)."""

    own: frozenset[str]
    is_in: bool
    justifications: tuple[tuple[Sequence[str], Sequence[str]], ...]


def support(b: TagBelief, is_in: Mapping[str, bool]) -> list[str]:
    """The keys `b` rests on now (see the module's rules); a key absent from `is_in` is OUT."""
    if not b.is_in:
        return [a for ants, _ in b.justifications for a in ants]
    return [a for ants, outs in b.justifications
            if all(is_in.get(x, False) for x in ants)
            and not any(is_in.get(o, False) for o in outs)
            for a in ants]


def propagate_tags(region: Mapping[str, TagBelief], outside: Mapping[str, frozenset[str]],
                   outside_in: Mapping[str, bool]) -> dict[str, frozenset[str]]:
    """The effective tags of every region member, given the settled effective tags (and
    IN-ness, for deciding which justifications hold) of what lies outside the region."""
    is_in: dict[str, bool] = {**outside_in, **{k: b.is_in for k, b in region.items()}}
    rests_on = {k: support(b, is_in) for k, b in region.items()}
    dependents: dict[str, list[str]] = {k: [] for k in region}
    for k, keys in rests_on.items():
        for a in keys:
            if a in dependents:
                dependents[a].append(k)
    tags = {k: b.own.union(*(outside.get(a, frozenset()) for a in rests_on[k]
                             if a not in region))
            for k, b in region.items()}
    work = [k for k in region if tags[k]]
    while work:  # a worklist to the least fixpoint: tags only grow, each at most once per tag
        a = work.pop()
        for k in dependents[a]:
            if not tags[a] <= tags[k]:
                tags[k] = tags[k] | tags[a]
                work.append(k)
    return tags


def effective_tags(beliefs: Mapping[str, Belief], truth: Mapping[str, Truth]
                   ) -> dict[str, frozenset[str]]:
    """Effective tags of a whole network from scratch (verify, import): `truth` its labels."""
    region = {bid: TagBelief(own_tags(b.metadata), truth.get(bid) == Truth.IN,
                             tuple((j.antecedents, j.outlist) for j in b.justifications))
              for bid, b in beliefs.items()}
    return propagate_tags(region, {}, {})


class TagSourceJson(TypedDict):
    tag: str
    origin: str
    via: list[str]


@dataclasses.dataclass(frozen=True)
class TagSource:
    """Where one of a belief's effective tags comes from: `via`, the path of support from
    the belief down to `origin`, the belief that carries the tag as its own."""

    tag: str
    origin: str
    via: tuple[str, ...]

    def as_dict(self) -> TagSourceJson:
        return {"tag": self.tag, "origin": self.origin, "via": list(self.via)}


def tag_sources(start: str, beliefs: Mapping[str, Belief], truth: Mapping[str, Truth]
                ) -> list[TagSource]:
    """For each effective tag of `start`, the nearest belief that carries it as its own and
    the support path to it (breadth first over current support), sorted by tag."""
    is_in = {bid: t == Truth.IN for bid, t in truth.items()}
    paths: dict[str, tuple[str, ...]] = {start: (start,)}
    frontier = [start]
    found: dict[str, TagSource] = {}
    while frontier:
        following = []
        for bid in frontier:
            b = beliefs.get(bid)
            if b is None:
                continue
            for tag in sorted(own_tags(b.metadata)):
                found.setdefault(tag, TagSource(tag, bid, paths[bid]))
            node = TagBelief(frozenset(), is_in.get(bid, False),
                             tuple((j.antecedents, j.outlist) for j in b.justifications))
            for a in support(node, is_in):
                if a not in paths:
                    paths[a] = (*paths[bid], a)
                    following.append(a)
        frontier = following
    return [found[t] for t in sorted(found)]


def visible(tags: Iterable[str], visible_to: frozenset[str] | None) -> bool:
    """A client with visibility set `visible_to` (None: all) may see a belief with these
    effective tags when every one of them is in its set; untagged beliefs are visible to all."""
    return visible_to is None or set(tags) <= visible_to
