"""Every kind of write the memory logs, drawn at random for history's property test
(tests/integration/test_history_property.py): the daily verbs, access tags and metadata,
summaries, defeats and their migration, namespaces and agents, imports and `import --sync`,
sources and forge, every stage's round (derive, review, repair, premise review, negatives,
dedup), proposals accepted, rejected and withdrawn, and history's own writes (revert,
rollback, release; the test prunes the log itself, once all is drawn).

`World` keeps what a write is drawn from (the beliefs, the namespaces, the source folder);
`draw_write` draws one, `World.apply` applies it, raising InvalidInput / NotFound (or
RevertConflict) when the engine refuses it. The stages talk to `StageModel`, which answers
each stage's prompt from what it shows.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from engine import tms
from engine.change_records import ChangeEntry
from engine.errors import InvalidInput
from engine.model import Belief, Justification, Nogood, Truth
from engine.tms.records import Network
from tests.forge_fakes import QuotingChatModel

IDS = [f"b{i}" for i in range(8)]
TAGS = ["hr", "finance"]
DOC = ("# Notes\nThe cache holds ten thousand entries.\nKeys rotate every hour.\n"
       "The queue keeps messages for a week.\n")
EDITED = DOC.replace("Keys rotate every hour.", "Keys rotate every day.")
SOURCE = "notes/a.md"

# Each kind of write, with the weight it is drawn with.
KINDS: dict[str, int] = {
    "add": 4, "add_tagged": 2, "add_namespaced": 2, "justify": 3, "retract": 3, "assert": 3,
    "nogood": 2, "supersede": 2, "reword": 2, "supersede_undo": 2, "challenge": 2,
    "defend": 1, "defeat": 2, "migrate_retractions": 1, "remove_justification": 1,
    "convert": 1, "set_metadata": 1, "unset_metadata": 1, "tag": 2, "summarize": 1,
    "merge": 1, "merge_undo": 1, "mark_duplicate": 1, "import": 1, "import_sync": 1,
    "import_agent": 1, "sync_agent": 1, "forge": 1, "edit_source": 1, "sources_stale": 1,
    "sources_hash": 1, "derive": 1, "review": 1, "repair": 1, "premise_review": 1,
    "negatives": 1, "dedup": 1, "propose_accept": 2, "propose_reject": 1,
    "propose_withdraw": 1, "revert": 2, "rollback": 1, "release": 1,
}
# `log --prune` is not drawn among them: which entries it cuts depends on their timestamps
# (two in one millisecond), so what follows would not replay the same; the test prunes once
# all is drawn.


@dataclass
class World:
    store: Any
    root: Path  # the folder the writes that read or write files use
    agents: int = 0
    made: int = 0
    # the points the test took an export at, within history; rollback and release draw them
    points: list[int] = field(default_factory=list)

    def entries(self) -> list:
        """The change log, oldest first (what revert and `log --prune` draw from)."""
        from engine.change_records import LogQuery
        from engine.memory import changelog

        return changelog.log(self.store, LogQuery(limit=500, oldest_first=True))

    def network(self) -> Network:
        return self.store.read(lambda tx: tx.read_network())

    def ours(self, network: Network) -> list[str]:
        return sorted(b for b in network.beliefs if b in IDS or b.startswith(("d", "s-")))

    def fresh(self, prefix: str) -> str:
        self.made += 1
        return f"{prefix}{self.made}"

    # --- applying ----------------------------------------------------------------------
    def apply(self, op: tuple) -> None:
        kind, target, extra = op
        getattr(self, f"_{kind}")(target, extra)

    def _add(self, target, extra):
        tms.add(self.store, target, f"Belief {target}.", extra)

    def _add_tagged(self, target, extra):
        tms.add(self.store, target, f"Belief {target}, tagged.", extra[0],
                metadata={"access_tags": list(extra[1])})

    def _add_namespaced(self, target, extra):
        from engine.agents.adding import add_in_namespace

        add_in_namespace(self.store, extra, target, f"Belief {target} of {extra}.")

    def _justify(self, target, extra):
        tms.add_justification(self.store, target, (extra,))

    def _retract(self, target, extra):
        tms.retract(self.store, target, "property test")

    def _assert(self, target, extra):
        tms.assert_belief(self.store, target)

    def _nogood(self, target, extra):
        tms.add_nogood(self.store, list(target))

    def _supersede(self, target, extra):
        from engine.memory import supersede

        supersede.supersede(self.store, target, extra[0], rewire=extra[1])

    def _reword(self, target, extra):
        from engine.memory import supersede

        supersede.supersede(self.store, target, text=f"{target}, reworded")

    def _supersede_undo(self, target, extra):
        from engine.memory import supersede

        supersede.undo_supersede(self.store, target)

    def _challenge(self, target, extra):
        from engine.memory import dialectic

        dialectic.challenge(self.store, target, "doubt", extra)

    def _defend(self, target, extra):
        from engine.memory import dialectic

        dialectic.defend(self.store, target, "answer")

    def _defeat(self, target, extra):
        from engine.memory import defeat

        defeat.defeat(self.store, target, extra, "over-generalizes", "too broad")

    def _migrate_retractions(self, target, extra):
        from engine.memory import defeat

        defeat.migrate_retractions(self.store, [target] if target else [])

    def _remove_justification(self, target, extra):
        from engine.memory import editing

        editing.remove_justification(self.store, target, extra)

    def _convert(self, target, extra):
        from engine.memory import editing

        editing.convert_to_premise(self.store, target)

    def _set_metadata(self, target, extra):
        from engine.memory import editing

        editing.set_metadata(self.store, target, extra[0], extra[1])

    def _unset_metadata(self, target, extra):
        from engine.memory import editing

        editing.unset_metadata(self.store, target, extra)

    def _tag(self, target, extra):
        from engine.memory import editing

        editing.set_metadata(self.store, target, "access_tags", list(extra))

    def _summarize(self, target, extra):
        from engine.memory import summaries

        summaries.summarize(self.store, self.fresh("s-"), "A summary.", list(extra))

    def _merge(self, target, extra):
        from engine.dedup.merge import merge_in

        if target == extra:
            raise InvalidInput("a belief is not its own duplicate")
        self.store.write(lambda tx: merge_in(tx, target, extra, run_id="history-test",
                                             round_n=1, at=tms.now()),
                         ChangeEntry("dedup-merge", {"merged": target}))

    def _merge_undo(self, target, extra):
        from engine.dedup.merge import undo

        undo(self.store, target)

    def _mark_duplicate(self, target, extra):
        from engine.memory import duplicates

        duplicates.mark_duplicate(self.store, target, extra)

    def _import(self, target, extra):
        """A file joining beliefs already here (created, then propagated)."""
        from engine import interchange

        first, second = f"{target}-a", f"{target}-b"
        beliefs = {first: Belief(first, "Imported premise."),
                   second: Belief(second, "Imported, from ours.",
                                  (Justification((first, extra[0])),))}
        stored = {first: Truth.OUT if extra[1] else Truth.IN, second: Truth.IN}
        interchange.import_network(self.store, Network(beliefs, [], {}, {}, [], []), stored)

    def _import_sync(self, target, extra):
        """`import --sync` of the graph's own export, edited: one belief reworded, one more
        added resting on it, one retracted in the file."""
        from adapters.formats import network_to_json, parse_network
        from engine.registry_sync import sync_network

        data = network_to_json(self.network())
        nodes = data["nodes"]
        if target not in nodes:
            raise InvalidInput(f"no belief {target} to edit in the file")
        nodes[target]["text"] = f"{target}, as the registry now says."
        nodes[self.fresh("b-sync")] = {"text": "Added in the registry.", "truth_value": "IN",
                                       "justifications": [{"type": "SL",
                                                           "antecedents": [target],
                                                           "outlist": [], "label": ""}]}
        if extra in nodes and extra != target:
            nodes[extra]["truth_value"] = "OUT"
        network, stored = parse_network(data)
        sync_network(self.store, network, stored, source="beliefs.md")

    def _agent_network(self, flags: list[bool]) -> tuple[Network, dict[str, Truth]]:
        beliefs = {"p0": Belief("p0", "Agent premise.")}
        stored = {"p0": Truth.IN}
        for k, out in enumerate(flags[1:], start=1):
            beliefs[f"p{k}"] = Belief(f"p{k}", f"Agent belief {k}.",
                                      (Justification((f"p{k - 1}",)),))
            stored[f"p{k}"] = Truth.OUT if out else Truth.IN
        nogoods = [Nogood("ng-a", ("p0", f"p{len(flags) - 1}"))] if flags[0] else []
        return Network(beliefs, nogoods, {}, {"title": "agent"}, [], []), stored

    def _import_agent(self, target, extra):
        from engine.agents.import_agent import import_agent

        import_agent(self.store, target, *self._agent_network(extra))
        self.agents += 1

    def _sync_agent(self, target, extra):
        from engine.agents.sync_agent import sync_agent

        sync_agent(self.store, target, *self._agent_network(extra))

    def _forge(self, target, extra):
        from tests.forge_run import run_forge

        source = self.root / SOURCE
        if not source.exists():
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(DOC, encoding="utf-8")
        run_forge(self.store, self.root, QuotingChatModel())

    def _edit_source(self, target, extra):
        """Not a write of the memory: the file changes under it (refused as nothing
        written, so the test checks that too)."""
        source = self.root / SOURCE
        if not source.exists():
            raise InvalidInput("no source to edit yet")
        source.write_text(EDITED if extra else DOC, encoding="utf-8")
        raise InvalidInput("the file changed, the memory did not")

    def _sources_stale(self, target, extra):
        from adapters.sources.reader import FileSourceReader
        from engine.sources.status import retract_stale_sourced

        retract_stale_sourced(self.store, FileSourceReader(self.root), None, at=tms.now(),
                              missing=True, yes=True)

    def _sources_hash(self, target, extra):
        """`sources hash`: a belief naming the file (no pin yet) is pinned late."""
        from adapters.sources.reader import FileSourceReader
        from engine.sources.pinning import SourceFiles, hash_late

        if not (self.root / SOURCE).exists():
            raise InvalidInput("no source to pin to yet")
        tms.add(self.store, self.fresh("b-src"), "The cache holds ten thousand entries.",
                source=SOURCE, metadata={"quote": "The cache holds ten thousand entries."})
        hash_late(self.store, SourceFiles(FileSourceReader(self.root), lambda p: p,
                                          str(self.root)), None, at=tms.now())

    def _run(self, stage) -> None:
        from engine.stages.contract import unconstrained
        from engine.stages.run import RunOptions, run_stage

        run_stage(self.store, stage, unconstrained(StageModel()),
                  RunOptions(model="fake", auto=True, max_rounds=1))

    def _derive(self, target, extra):
        from engine.derive.run import DeriveOptions, derive
        from tests.derive_fakes import (
            RecordingModelForRound,
            ScriptedChatModel,
            alphabetical,
            block,
            reply,
        )

        chat = ScriptedChatModel(script=[reply(block(target, sorted(set(extra))))])
        derive(self.store, RecordingModelForRound(chat), alphabetical(),
               DeriveOptions(model="scripted", max_rounds=1, auto=True))

    def _review(self, target, extra):
        from engine.review.stage import ReviewSettings, ReviewStage

        self._run(ReviewStage(ReviewSettings()))

    def _repair(self, target, extra):
        from engine.repair.stage import RepairSettings, RepairStage

        self._run(RepairStage(RepairSettings()))

    def _premise_review(self, target, extra):
        from adapters.sources.reader import FileSourceReader
        from engine.review_premises.stage import PremiseReviewStage, PremiseSettings

        self._run(PremiseReviewStage(FileSourceReader(self.root), PremiseSettings()))

    def _negatives(self, target, extra):
        from engine.negatives.stage import NegativeSettings, NegativesStage

        self._run(NegativesStage(NegativeSettings(every=True)))

    def _dedup(self, target, extra):
        """A dedup round's apply: the model found `target` a duplicate of `extra`."""
        from tests.dedup_fakes import RECORD, RUN, dedup_stage, verdict

        if target == extra:
            raise InvalidInput("a belief is not its own duplicate")
        stage = dedup_stage(None, by_id=True)
        items = [verdict(self.store, 1, "DUPLICATE", (extra, target), keep=extra)]
        self.store.write(lambda tx: stage.apply(tx, items, None, RUN, RECORD),
                         ChangeEntry("dedup", {"run": RUN.id, "round": 1}))

    def _proposal(self, verb: str, target: str, extra: Any) -> str:
        from engine.proposals import lifecycle

        args: dict[str, Any] = {
            "retract": {"id": target, "reason": "proposed"},
            "assert": {"id": target},
            "add-justification": {"id": target, "justifications": [
                {"antecedents": [extra], "outlist": []}]},
            "add": {"id": self.fresh("b-prop"), "text": "A proposed belief.",
                    "justifications": [{"antecedents": [target], "outlist": []}]},
            "challenge": {"id": target, "reason": "proposed doubt"},
            "supersede": {"old": target, "new": extra},
        }[verb]
        return lifecycle.propose(self.store, verb, args, "property test").proposal.id

    def _propose_accept(self, target, extra):
        from engine.proposals import lifecycle

        lifecycle.accept(self.store, self._proposal(extra[0], target, extra[1]))

    def _propose_reject(self, target, extra):
        from engine.proposals import lifecycle

        lifecycle.reject(self.store, self._proposal(extra[0], target, extra[1]), "no")

    def _propose_withdraw(self, target, extra):
        from engine.proposals import lifecycle

        lifecycle.withdraw(self.store, self._proposal(extra[0], target, extra[1]))

    def _revert(self, target, extra):
        from engine.memory import history

        history.revert(self.store, target, "property test")

    def _rollback(self, target, extra):
        from engine.memory import history

        history.rollback(self.store, str(target), "property test")

    def _release(self, target, extra):
        from engine.memory import history

        history.make_release(self.store, self.fresh("release-"), str(target))

    def _prune(self, target, extra):
        from engine.memory import changelog

        changelog.prune(self.store, target)


# --- drawing ---------------------------------------------------------------------------
@st.composite
def justification(draw, owner: str, pool: list[str]) -> Justification:
    others = [i for i in pool if i != owner] or [owner + "-x"]
    antecedents = draw(st.lists(st.sampled_from(others), max_size=2, unique=True))
    outlist = draw(st.lists(st.sampled_from(others), max_size=1, unique=True))
    if not antecedents and not outlist:
        antecedents = [draw(st.sampled_from(others))]
    return Justification(tuple(antecedents), tuple(outlist))


# A kind whose precondition the memory lacks gives way to the write that makes it hold.
NEEDS = {"add_namespaced": "import_agent", "sync_agent": "import_agent",
         "sources_hash": "forge", "edit_source": "forge", "sources_stale": "forge",
         "premise_review": "forge", "supersede_undo": "supersede", "merge_undo": "merge",
         "defend": "challenge", "repair": "review", "migrate_retractions": "retract"}


def _holds(kind: str, world: World, network: Network, namespaces: list[str]) -> bool:
    beliefs = network.beliefs
    if kind in ("add_namespaced", "sync_agent"):
        return bool(namespaces)
    if kind in ("sources_hash", "edit_source", "sources_stale", "premise_review"):
        return (world.root / SOURCE).exists()
    if kind == "supersede_undo":
        return bool(network.supersessions)
    if kind == "merge_undo":
        return any(b.retract_reason.startswith("duplicate of") for b in beliefs.values())
    if kind == "defend":
        return any(b.startswith(("challenge:", "defeat:", "review:")) for b in beliefs)
    if kind == "repair":
        return any(b.startswith(("review:", "defeat:", "challenge:")) for b in beliefs)
    if kind == "migrate_retractions":
        return any(b.retracted for b in beliefs.values())
    return True


@st.composite
def draw_write(draw, world: World, network: Network) -> tuple:
    """One write, drawn from the memory as `network` holds it."""
    beliefs = network.beliefs
    existing = world.ours(network)
    kinds = sorted(KINDS) if len(existing) >= 2 else ["add", "add_tagged", "forge"]
    kind = draw(st.sampled_from([k for k in kinds for _ in range(KINDS[k])]))
    namespaces = sorted({b.split(":", 1)[0] for b in beliefs if ":" in b
                         and b.split(":", 1)[0].startswith("agent")})
    while not _holds(kind, world, network, namespaces):
        kind = NEEDS[kind]
    fresh = [i for i in IDS if i not in beliefs]
    if kind in ("add", "add_tagged") and fresh:
        bid = draw(st.sampled_from(fresh))
        js = tuple(draw(justification(bid, IDS)) for _ in range(draw(st.integers(0, 2))))
        if kind == "add_tagged":
            return (kind, bid, (js, tuple(draw(st.lists(st.sampled_from(TAGS), min_size=1,
                                                        max_size=2, unique=True)))))
        return ("add", bid, js)
    if kind in ("add", "add_tagged", "forge") and len(existing) < 2:
        return ("forge", None, None)
    if kind in ("add", "add_tagged"):  # every id taken
        kind = "retract"
    target = draw(st.sampled_from(existing))
    other = draw(st.sampled_from([b for b in existing if b != target]))
    if kind == "add_namespaced":
        return (kind, f"n{world.made}", draw(st.sampled_from(namespaces or ["agent-none"])))
    if kind == "justify":
        return (kind, target, draw(justification(target, existing)))
    if kind == "nogood":
        return (kind, tuple(draw(st.lists(st.sampled_from(existing), min_size=2, max_size=3,
                                          unique=True))), None)
    if kind == "supersede":
        return (kind, target, (other, draw(st.booleans())))
    if kind == "supersede_undo":
        superseded = sorted(r.old for r in network.supersessions)
        return (kind, draw(st.sampled_from(superseded)) if superseded else target, None)
    if kind == "defend":
        gates = sorted(b for b in beliefs if b.startswith(("challenge:", "defeat:", "review:")))
        return (kind, draw(st.sampled_from(gates)) if gates else target, None)
    if kind == "challenge":
        return (kind, target, draw(st.sampled_from([None, 1])))
    if kind in ("remove_justification", "defeat"):
        return (kind, target, draw(st.integers(1, 2)))
    if kind == "migrate_retractions":
        retracted = sorted(b for b in existing if beliefs[b].retracted)
        return (kind, draw(st.sampled_from(retracted)) if retracted else None, None)
    if kind in ("merge", "mark_duplicate", "dedup"):
        return (kind, target, other)
    if kind == "merge_undo":
        merged = sorted(b for b, x in beliefs.items()
                        if x.retract_reason.startswith("duplicate of"))
        return (kind, draw(st.sampled_from(merged)) if merged else target, None)
    if kind == "set_metadata":
        return (kind, target, (draw(st.sampled_from(["topic", "owner", "beliefs_type"])),
                               draw(st.sampled_from(["a", "assumption", 3]))))
    if kind == "unset_metadata":
        keys = sorted(beliefs[target].metadata) or ["topic"]
        return (kind, target, draw(st.sampled_from(keys)))
    if kind == "tag":
        return (kind, target, tuple(draw(st.lists(st.sampled_from(TAGS), max_size=2,
                                                  unique=True))))
    if kind == "summarize":
        return (kind, None, tuple(draw(st.lists(st.sampled_from(existing), min_size=2,
                                                max_size=3, unique=True))))
    if kind == "import":
        return (kind, world.fresh("imp"), (target, draw(st.booleans())))
    if kind == "import_sync":
        return (kind, target, other)
    if kind == "import_agent":
        return (kind, f"agent{world.agents}", draw(st.lists(st.booleans(), min_size=2,
                                                             max_size=3)))
    if kind == "sync_agent":
        return (kind, draw(st.sampled_from(namespaces or ["agent-none"])),
                draw(st.lists(st.booleans(), min_size=2, max_size=3)))
    if kind == "edit_source":
        return (kind, None, draw(st.booleans()))
    if kind == "derive":
        return (kind, draw(st.sampled_from([f"d{i}" for i in range(4)])), (target, other))
    if kind in ("propose_accept", "propose_reject", "propose_withdraw"):
        verb = draw(st.sampled_from(["retract", "assert", "add-justification", "add",
                                     "challenge", "supersede"]))
        return (kind, target, (verb, other))
    if kind == "revert":
        seqs = [e.seq for e in world.entries()]
        return (kind, draw(st.sampled_from(seqs[-4:])) if seqs else 1, None)
    if kind in ("rollback", "release"):
        return (kind, draw(st.sampled_from(world.points)) if world.points else 0, None)
    return (kind, target, None)


# --- the model every stage talks to ----------------------------------------------------
_REVIEWED = re.compile(r"^### (\S+) \(depth", re.MULTILINE)
_JUSTIFICATION = re.compile(r"^Justification (\d+) ", re.MULTILINE)
_DEFEATED = re.compile(r"^### (\S+) justification (\d+) ", re.MULTILINE)
_CLASSIFY = re.compile(r"^- `([^`]+)`: ", re.MULTILINE)
_PREMISE = re.compile(r"^### (\S+)\nClaim: (.*)$", re.MULTILINE)


class StageModel(QuotingChatModel):
    """Answers what each stage shows: forge as QuotingChatModel (a premise per line); review
    finds the first justification shown invalid and the rest valid; repair softens the first
    defeated justification and abandons the rest; premise review calls the first premise
    misread and confirms the rest by quoting their claim; negatives calls the first belief a
    bug and the rest not negative."""

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        prompt = str(messages[0].content)
        if "## Source" in prompt and "## Already drawn" in prompt:
            return super()._generate(messages, stop, run_manager, **kwargs)
        if "## Beliefs to review" in prompt:
            text = json.dumps({"verdicts": _review(prompt.split("## Beliefs to review", 1)[1])})
        elif "## Defeated justifications" in prompt:
            shown = _DEFEATED.findall(prompt)
            text = json.dumps({"repairs": [
                {"id": b, "justification": int(n), "action": "soften" if k == 0 else "abandon",
                 "bridges": [], "text": f"A narrower claim of {b}." if k == 0 else "",
                 "comment": "so"} for k, (b, n) in enumerate(shown)]})
        elif "## Premises to check" in prompt:
            text = json.dumps({"verdicts": [
                {"id": p, "verdict": "misread" if k == 0 else "confirmed",
                 "kind": "misread" if k == 0 else "", "quote": "" if k == 0 else claim,
                 "narrower": "", "comment": "so"}
                for k, (p, claim) in enumerate(_PREMISE.findall(prompt))]})
        elif "## Beliefs to classify" in prompt:
            shown = _CLASSIFY.findall(prompt.split("## Beliefs to classify", 1)[1])
            text = json.dumps({"verdicts": [
                {"id": b, "negative": k == 0, "kind": "bug" if k == 0 else "",
                 "comment": "so"} for k, b in enumerate(shown)]})
        else:
            text = "NO PROPOSALS"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def _review(section: str) -> list[dict]:
    verdicts = []
    for block in section.split("\n### ")[1:]:
        (bid,) = _REVIEWED.findall("### " + block)[:1]
        for n in _JUSTIFICATION.findall(block):
            valid = bool(verdicts)
            verdicts.append({"id": bid, "justification": int(n), "valid": valid,
                             "sufficient": True, "necessary": True,
                             "unnecessary_antecedents": [], "mode": "ALL",
                             "reason_type": "none" if valid else "missing-bridge",
                             "missing_property": "" if valid else "a step",
                             "comment": "so"})
    return verdicts


def every_kind_of_write() -> list[tuple]:
    """Each kind of write at least once, in an order where each finds what it needs (revert,
    rollback and release get their point from the test)."""
    j = Justification
    return [
        ("add", "b0", ()), ("add", "b1", ()), ("add", "b2", (j(("b0",)),)),
        ("add_tagged", "b3", ((j(("b2",), ("b1",)),), ("hr",))),
        ("justify", "b2", j(("b1",))), ("retract", "b1", None), ("assert", "b1", None),
        ("add", "b4", ()), ("supersede", "b4", ("b1", False)), ("supersede_undo", "b4", None),
        ("reword", "b2", None), ("challenge", "b3", None), ("defend", "challenge:b3", None),
        ("defeat", "b3", 1), ("retract", "b4", None), ("migrate_retractions", "b4", None),
        ("add", "b5", (j(("b0",)), j(("b1",)))), ("remove_justification", "b5", 2),
        ("convert", "b5", None), ("set_metadata", "b0", ("topic", "a")),
        ("unset_metadata", "b0", "topic"), ("tag", "b1", ("finance",)),
        ("summarize", None, ("b0", "b1")), ("add", "b6", ()), ("merge", "b6", "b0"),
        ("merge_undo", "b6", None), ("mark_duplicate", "b6", "b1"),
        ("import", "imp1", ("b1", False)), ("import_sync", "b1", "b5"),
        ("import_agent", "agent0", [True, False, False]),
        ("sync_agent", "agent0", [False, True]), ("add_namespaced", "n1", "agent0"),
        ("forge", None, None), ("sources_hash", None, None), ("premise_review", None, None),
        ("edit_source", None, True), ("sources_stale", None, None),
        ("add", "a1", ()), ("add", "a2", ()), ("derive", "d0", ("a1", "a2")),
        ("review", None, None), ("repair", None, None),
        ("negatives", None, None), ("add", "b7", ()), ("dedup", "b7", "b0"),
        ("propose_accept", "b1", ("add", "b0")), ("propose_accept", "b0", ("challenge", "b1")),
        ("propose_accept", "b5", ("supersede", "b0")),
        ("propose_reject", "b1", ("retract", "b0")),
        ("propose_withdraw", "b0", ("add-justification", "b1")),
        ("nogood", ("b0", "b1"), None),
        ("revert", None, None), ("rollback", None, None), ("release", None, None),
    ]
