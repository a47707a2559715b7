"""Dedup's items: one verdict per cluster, and how a reply (or a proposals file) is read into
them.

A cluster's answer is `{"cluster": n, "verdict": "SAME"|"DIFFERENT"|"CONTRADICTION",
"keep": id, "same": [ids], "contradicts": [[id, id], ...], "comment": "..."}`. Every fault is
a diagnostic naming the cluster: no JSON at all, an item that is not an object, no or an
unknown cluster number, a cluster answered twice, no verdict or an unknown one, an id that is
not a member of the cluster, a SAME naming fewer than two members, a CONTRADICTION naming no
pair (of a cluster of more than two), and every shown cluster left without a usable answer.
Any of them asks for the one retry; what is still unanswered after it stays undecided. A
missing or broken verdict is never read as DIFFERENT.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.results import JsonValue
from engine.stages.replies import Diagnostic, ReplyShape, combine_by_key, find_items, number
from engine.stages.stage import Parsed

VERDICTS = ("SAME", "DIFFERENT", "CONTRADICTION")
REPLY_KEY = "verdicts"
SHAPE = ReplyShape(REPLY_KEY, ("cluster", "verdict"))
MAX_COMMENT = 500


@dataclass(frozen=True)
class ShownCluster:
    n: int  # 1-based, as the prompt numbers it
    members: tuple[str, ...]
    shas: tuple[str, ...]  # sha256 of each member's text as shown
    score: float = 0.0


@dataclass(frozen=True)
class ClusterVerdict:
    cluster: int
    verdict: str
    members: tuple[str, ...]
    shas: tuple[str, ...]
    keep: str = ""  # as the model named it ("" when it did not)
    same: tuple[str, ...] = ()  # the members stating the kept claim (SAME)
    contradicts: tuple[tuple[str, str], ...] = ()
    comment: str = ""

    @property
    def key(self) -> str:
        return f"cluster {self.cluster}"

    def as_dict(self) -> dict[str, object]:
        return {"cluster": self.cluster, "verdict": self.verdict, "keep": self.keep,
                "same": list(self.same), "contradicts": [list(p) for p in self.contradicts],
                "comment": self.comment, "members": list(self.members),
                "shas": list(self.shas)}


@dataclass
class _Reading:
    items: dict[int, ClusterVerdict] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    bad: set[int] = field(default_factory=set)  # clusters with a faulty answer


def parse_verdicts(reply: str, shown: Sequence[ShownCluster] | None) -> Parsed[ClusterVerdict]:
    """A reply against the clusters shown; or, with `shown` None, a proposals file whose items
    carry their own members and shas."""
    found = find_items(reply, SHAPE)
    reading = _Reading(diagnostics=[Diagnostic(p) for p in found.problems])
    if found.items is None:
        reading.diagnostics.append(Diagnostic("no JSON object or list in the reply"))
    by_n = {c.n: c for c in shown} if shown is not None else None
    for k, item in enumerate(found.items or [], 1):
        _read_item(reading, k, item.value, by_n)
    for n in reading.bad:
        reading.items.pop(n, None)
    if by_n is not None:
        for n in sorted(set(by_n) - set(reading.items) - reading.bad):
            reading.diagnostics.append(Diagnostic(f"cluster {n}: no answer"))
    items = [reading.items[n] for n in sorted(reading.items)]
    return Parsed(items=items, diagnostics=reading.diagnostics,
                  needs_retry=bool(reading.diagnostics))


def _read_item(reading: _Reading, k: int, obj: JsonValue,
               by_n: Mapping[int, ShownCluster] | None) -> None:
    def fault(reason: str, n: int | None = None) -> None:
        reading.diagnostics.append(Diagnostic(reason))
        if n is not None:
            reading.bad.add(n)

    if not isinstance(obj, dict):
        return fault(f"item {k} is not an object")
    n = number(obj.get("cluster"))
    if n is None:
        return fault(f"item {k} has no cluster number")
    if by_n is not None and n not in by_n:
        return fault(f"item {k}: cluster {n} was not shown")
    if n in reading.items or n in reading.bad:
        return fault(f"cluster {n} is answered twice", n)
    verdict = obj.get("verdict")
    if not isinstance(verdict, str) or not verdict.strip():
        return fault(f"cluster {n}: no verdict", n)
    verdict = verdict.strip().upper().replace("_CLAIMS", "").replace("_CLAIM", "")
    if verdict not in VERDICTS:
        return fault(f"cluster {n}: unknown verdict {obj.get('verdict')!r} "
                     f"(one of {', '.join(VERDICTS)})", n)
    if by_n is not None:
        members, shas = by_n[n].members, by_n[n].shas
    else:
        members, shas = _strings(obj.get("members")) or (), _strings(obj.get("shas")) or ()
        if len(members) < 2 or len(shas) != len(members):
            return fault(f"cluster {n}: the file gives no members with their text hashes", n)
    keep = obj.get("keep") or ""
    same = _strings(obj.get("same"))
    raw_pairs = obj.get("contradicts") or []
    if not isinstance(keep, str) or not isinstance(raw_pairs, list) or same is None:
        return fault(f"cluster {n}: keep must be an id, same a list of ids, contradicts a "
                     "list of [id, id] pairs", n)
    pairs: list[tuple[str, str]] = []
    for p in raw_pairs:
        ids = [x for x in p if isinstance(x, str)] if isinstance(p, list) else []
        if not (isinstance(p, list) and len(p) == 2 == len(ids) and ids[0] != ids[1]):
            return fault(f"cluster {n}: contradicts holds {p!r}, not a pair of two ids", n)
        pairs.append((min(ids), max(ids)))
    named = ([keep] if keep else []) + list(same) + [x for p in pairs for x in p]
    unknown = sorted({x for x in named if x not in members})
    if unknown:
        return fault(f"cluster {n}: unknown id {', '.join(f'`{u}`' for u in unknown)} "
                     "(not a member of the cluster)", n)
    if verdict == "SAME":
        same = tuple(dict.fromkeys(([keep] if keep else []) + list(same))) or members
        if len(same) < 2:
            return fault(f"cluster {n}: SAME names fewer than two members", n)
    if verdict == "CONTRADICTION" and not pairs:
        if len(members) != 2:
            return fault(f"cluster {n}: CONTRADICTION names no pair in contradicts", n)
        pairs = [(members[0], members[1])]
    comment = obj.get("comment")
    reading.items[n] = ClusterVerdict(
        cluster=n, verdict=verdict, members=tuple(members), shas=tuple(shas), keep=keep,
        same=tuple(same) if verdict == "SAME" else (),
        contradicts=tuple(dict.fromkeys(pairs)),
        comment=comment[:MAX_COMMENT] if isinstance(comment, str) else "")


def _strings(value: object) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return tuple(value)
    return None


def combine_verdicts(first: Parsed[ClusterVerdict], second: Parsed[ClusterVerdict]
                     ) -> Parsed[ClusterVerdict]:
    return combine_by_key(first, second, lambda v: v.cluster)
