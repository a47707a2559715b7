"""ContradictionsStage: the Stage protocol for pairs of beliefs that cannot both hold.

Candidates are pairs of IN beliefs close in meaning (dedup's neighbour search at a lower
threshold) or resting on a common antecedent (siblings of an antecedent named by at most
`max_siblings` beliefs, so a hub does not yield millions of pairs), minus the pairs already
judged on the same texts and those a nogood already covers. A round shows up to `batch`
pairs; with --auto a CONTRADICTION becomes a nogood over the pair, resolved at once, and a
COMPATIBLE pair is recorded so it is not asked again.
"""
from __future__ import annotations

from typing import Protocol

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from engine.contradictions.pairs import PAIRS, PairAnswer, ShownPair
from engine.embedding.cache import text_sha256
from engine.errors import InvalidInput
from engine.model import Change
from engine.agents.records import AgentTx
from engine.pairs.candidates import current_verdicts
from engine.pairs.nogood_pairs import ContradictionTx, has_nogood_over, record_contradiction
from engine.pairs.records import PairVerdict
from engine.pairs.source import CandidateSource, CandidateTx, stale_member
from engine.pairs.stage import GroupStage
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.stage import Action, AppliedEntry, Parsed, Stage
from engine.store import Store
from engine.tms.records import TmsTx

DEFAULT_THRESHOLD = 0.6  # cosine: lower than dedup's, contradicting claims share a subject
DEFAULT_BATCH = 20  # pairs per round
DEFAULT_MAX_SIBLINGS = 12


@dataclass(frozen=True)
class ContradictionOptions:
    batch: int = DEFAULT_BATCH
    max_siblings: int = DEFAULT_MAX_SIBLINGS
    siblings: bool = True
    domain: str = ""
    between: tuple[str, ...] = ()  # namespaces: only pairs across them (between.py)

    def check(self) -> "ContradictionOptions":
        if self.batch < 1:
            raise InvalidInput(f"--batch must be at least 1, not {self.batch}", field="batch")
        if self.max_siblings < 2:
            raise InvalidInput(f"--max-siblings must be at least 2, not {self.max_siblings}",
                               field="max_siblings")
        return self


class PairsReadTx(TmsTx, CandidateTx, AgentTx, Protocol):
    """What the candidate pairs are read through: by meaning (CandidateTx), by shared
    antecedents and the nogoods over them (TmsTx), across namespaces (AgentTx)."""


class ContradictionsStageTx(ContradictionTx, CandidateTx, AgentTx, ProvenanceTx, Protocol):
    """The store parts contradictions reads (a PairsReadTx) and writes (verdicts, nogoods,
    provenance)."""


@dataclass
class PairSource:
    """Candidate pairs by meaning (a CandidateSource) and by shared antecedents."""

    meaning: CandidateSource | None
    options: ContradictionOptions
    _siblings: dict[tuple[str, str], str] | None = field(default=None, init=False)

    def open_pairs(self, store: Store[PairsReadTx]) -> tuple[list[tuple[str, str, str]], dict[str,
                                                                                              str]]:
        """[(a, b, why)] not judged on the current texts nor covered by a nogood, closest
        first, and every IN belief's text sha256."""
        found: dict[tuple[str, str], str] = {}
        if self.meaning is not None:
            live, shas = self.meaning.open_pairs(store)
            for p in sorted(live, key=lambda p: (-p.score, p.a, p.b)):
                found[(p.a, p.b)] = f"close in meaning, cosine {p.score:.2f}"
        else:
            shas = {i: text_sha256(t) for i, t in store.read(lambda tx: tx.in_belief_texts())}
        if self.options.siblings:
            if self._siblings is None:
                groups = store.read(lambda tx: tx.sibling_groups(self.options.max_siblings))
                self._siblings = {}
                for g in groups:
                    for a, b in combinations(g, 2):
                        self._siblings.setdefault((a, b), "both rest on a common antecedent")
            for key, why in self._siblings.items():
                found.setdefault(key, why)
        judged = current_verdicts(store.read(lambda tx: tx.pair_verdicts("contradictions")),
                                  shas)
        covered = {tuple(sorted(n.members)) for n in store.read(lambda tx: tx.nogoods())
                   if len(n.members) == 2}
        pairs = [(a, b, why) for (a, b), why in found.items()
                 if a in shas and b in shas and (a, b) not in judged and (a, b) not in covered]
        if self.options.between:
            from engine.contradictions.between import across, side_finder

            pairs = across(pairs, self.options.between,
                           side_finder(store, self.options.between))
        return pairs, shas


class ContradictionsStage(GroupStage[ContradictionOptions, PairSource, ShownPair, PairAnswer,
                                     ContradictionsStageTx]):
    name = "contradictions"
    reply = PAIRS

    def due_groups(self, store: Store[ContradictionsStageTx], busy: frozenset[str]
                   ) -> tuple[tuple[ShownPair, ...], dict[str, object]]:
        # A pair with a belief in a round in flight waits: a nogood over them may take it OUT.
        pairs, shas = self.source.open_pairs(store)
        due = self.first_due(pairs, lambda p: (p[0], p[1]), busy)
        shown = tuple(ShownPair(k, a, b, shas[a], shas[b], why)
                      for k, (a, b, why) in enumerate(due, 1))
        return shown, {"pairs": len(shown), "candidates": len(pairs)}

    def fault(self, tx: ContradictionTx, item: PairAnswer) -> str:
        stale = stale_member(tx, (item.a, item.b), (item.sha_a, item.sha_b))
        if not stale and item.verdict == "CONTRADICTION" and has_nogood_over(tx, item.a, item.b):
            return "a nogood over the pair exists already"
        return stale

    def write(self, tx: ContradictionTx, valid: Sequence[PairAnswer], run: RunRecord,
              record: RoundRecord, at: str) -> tuple[list[AppliedEntry], Change]:
        change = Change()
        entries: list[AppliedEntry] = []
        for item in valid:
            a, b = sorted((item.a, item.b))
            sha = {item.a: item.sha_a, item.b: item.sha_b}
            tx.save_pair_verdicts([PairVerdict(self.name, a, b, sha[a], sha[b], item.verdict,
                                               run.id, record.round, item.comment)])
            if item.verdict == "CONTRADICTION":
                ident, step = record_contradiction(tx, a, b, stage=self.name, run_id=run.id,
                                                   round_n=record.round, at=at)
                change = change.merge(step)
                entries.append(AppliedEntry(ident, Action.NOGOOD, fields={"members": [a, b]}))
            else:
                entries.append(AppliedEntry(f"pair {item.pair}", Action.COMPATIBLE,
                                            fields={"members": [a, b]}))
        return entries, change

    def render_file(self, items: Sequence[PairAnswer], run: RunRecord, command: str) -> str:
        found = sum(i.verdict == "CONTRADICTION" for i in items)
        return ProposalsFile(
            self.name, "Proposed contradictions",
            f"{len(items)} pair verdict(s), {found} contradiction(s)",
            {"pairs": [i.as_dict() for i in items]},
            [[f"- pair {i.pair}: `{i.a}` and `{i.b}`: {i.verdict}" for i in items]],
        ).render(run, command)


_STAGE: type[Stage[PairAnswer, Parsed[PairAnswer], ContradictionsStageTx]] = ContradictionsStage
