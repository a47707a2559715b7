"""The operations an agent calls, each a thin call of the library the CLI uses, returning
JSON-ready dicts (the same shapes as the CLI's --json). Each is a method declared with `@tool`
(engine/agents/declaration.py: its role, whether it only reads, whether it answers under a
visibility set); `TOOLS` at the end is the one list of them. `python -m engine.mcp` publishes
each as an MCP tool: the method's name is the tool's name, its typed parameters the tool's
input, and its docstring the description a model reads to choose it.

Nothing here knows MCP or Neo4j: the entry point (engine/cli/mcp.py) hands in the store, the
query pack, the embedding keeper (the shared model; engine/embedding/keeper.py), and the
report directory. Bad input raises the same
InvalidInput / NotFound as on the command line, before anything is written.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from engine import results, tms
from engine.agents.declaration import PROPOSE, READ, WRITE, ToolSpec, declared_tools, tool
from engine.change_records import LogQuery
from engine.embedding.keeper import EmbeddingKeeper
from engine.errors import InvalidInput
from engine.memory import changelog, defeat, dialectic, editing, supersede
from engine.model import Kind, Truth
from engine.proposals import lifecycle
from engine.proposals.actions import justification_args, pin_args
from engine.reading import blockers as blocking
from engine.reading import queries
from engine.reading import search as searching
from engine.reading.queries import PackQuery
from engine.sources.pinning import SourceFilesOf, add_sourced
from engine.store import Store
from engine.tms import explain as explaining
from engine.tms.records import BeliefFilter

T = TypeVar("T")
LIST_LIMIT = 200
RUNS_LIMIT = 20
REPORT_SUFFIX = ".json"


@dataclass(frozen=True)
class PackEntry:
    """A pack query with its Cypher text, for the query-pack resource."""

    query: PackQuery
    text: str


def pack_resource(entries: Sequence[PackEntry]) -> list[dict[str, Any]]:
    return [{**queries.pack_json([e.query])[0], "cypher": e.text} for e in entries]


def report_files(report_dir: Path, limit: int) -> list[dict[str, Any]]:
    """The newest stage reports in `report_dir` (`<stage>-<UTC timestamp>.json`)."""
    try:
        files = [p for p in report_dir.iterdir() if p.suffix == REPORT_SUFFIX and p.is_file()]
    except OSError:
        return []
    files.sort(key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    return [{"path": str(p), "stage": p.stem.split("-", 1)[0]} for p in files[:limit]]


def _justifications(antecedents: Sequence[str], unless: Sequence[str], any_mode: bool,
                    kind: str, label: str) -> tuple:
    try:
        kind_value = Kind(kind.upper())
    except ValueError:
        raise InvalidInput(f"kind takes 'SL' or 'CP', not {kind!r}", field="kind",
                           value=kind) from None
    return tms.make_justifications(list(antecedents), unless=list(unless), kind=kind_value,
                                   any_mode=any_mode, label=label)


class AgentTools:
    """One instance per server: the store is opened once and shared by every call."""

    def __init__(self, store: Store, pack: Sequence[PackQuery], *, report_dir: Path,
                 keeper: EmbeddingKeeper | None = None,
                 source_files: SourceFilesOf | None = None) -> None:
        self._store = store
        self._source_files = source_files  # where `add` reads a source: the memory's root
        self._pack = list(pack)
        self._report_dir = report_dir
        self._keeper = keeper  # the embeddings: ranking by meaning, kept after writes

    # --- reading ---------------------------------------------------------------------
    def _at(self, as_of: str) -> Store:
        """The store, or the store as of a point (a seq, an ISO time, a release name)."""
        if not as_of:
            return self._store
        from engine.memory.as_of import AsOfStore

        return AsOfStore(self._store, as_of)

    @tool(READ)
    def status(self, as_of: str = "") -> dict[str, Any]:
        """Counts of the network: beliefs, IN, OUT, undetermined, premises, derived, nogoods,
        max depth, and the ids of undetermined beliefs. Call it first to see how big the
        network is and whether anything is undetermined. as_of (here and in show, explain,
        trace, list_beliefs): a seq, an ISO time or a release name, to read the memory as it
        was then. Example: status()."""
        s = tms.status(self._at(as_of))
        return {**s.as_dict(), "undetermined_ids": list(s.undetermined_ids)}

    @tool(READ, filtered=True)
    def show(self, id: str, as_of: str = "") -> dict[str, Any]:
        """One belief in full: text, truth (IN/OUT/UNDETERMINED), depth, whether retracted or
        asserted, source, metadata, its justifications (antecedents that must be IN, outlist
        that must be OUT) and the ids of beliefs that name it (dependents). Use it before
        changing a belief. Example: show(id="auth-uses-jwt")."""
        return results.belief_record(*tms.show(self._at(as_of), id))

    @tool(READ, filtered=True)
    def explain(self, id: str, as_of: str = "") -> dict[str, Any]:
        """Why a belief is IN (the justification that holds, down to premises) or OUT (what
        fails in each justification). Use it to answer "why do we believe X?" or "why not?".
        Example: explain(id="auth-bottleneck")."""
        return explaining.explain(self._at(as_of), id).as_dict()

    @tool(READ, filtered=True)
    def trace(self, id: str, as_of: str = "") -> dict[str, Any]:
        """The premises, user-asserted beliefs and not-yet-added ids a belief ultimately rests
        on, each with its truth. Use it to find which observations a conclusion depends on.
        Example: trace(id="auth-bottleneck")."""
        return {"id": id, "rests_on": [e.__dict__ for e in
                                       explaining.trace(self._at(as_of), id)]}

    @tool(READ, filtered=True)
    def list_beliefs(self, truth: str = "any", kind: str = "any",
                     limit: int = LIST_LIMIT, as_of: str = "") -> dict[str, Any]:
        """Beliefs in id order, without justifications. truth: "any", "in" or "out" (OUT
        includes undetermined); kind: "any", "premises" or "derived"; at most `limit` rows
        (`total` says how many matched). Prefer search() to find beliefs by topic.
        Example: list_beliefs(truth="in", kind="derived", limit=50)."""
        truths = {"any": None, "in": Truth.IN, "out": Truth.OUT}
        kinds = {"any": None, "premises": True, "derived": False}
        if truth not in truths:
            raise InvalidInput(f"truth takes any, in or out, not {truth!r}", field="truth",
                               value=truth)
        if kind not in kinds:
            raise InvalidInput(f"kind takes any, premises or derived, not {kind!r}",
                               field="kind", value=kind)
        if limit < 1:
            raise InvalidInput(f"limit takes a positive number, not {limit}", field="limit",
                               value=limit)
        beliefs = tms.list_beliefs(self._at(as_of), BeliefFilter(truths[truth], kinds[kind]))
        return {"beliefs": [results.belief_row(b) for b in beliefs[:limit]],
                "total": len(beliefs), "truncated": len(beliefs) > limit}

    @tool(READ, filtered=True)
    def search(self, words: str, include_out: bool = False, semantic: bool = False,
               limit: int = searching.DEFAULT_LIMIT, depth: int = 0) -> dict[str, Any]:
        """Find beliefs by words in their text or id (any word, stemmed: "deactivation"
        finds "auto-deactivated"; prefixes match), best first, each with truth, depth and
        how many beliefs rest on it directly. Only IN beliefs unless include_out=true.
        semantic=true also ranks by meaning (sentence embeddings stored on beliefs) and
        fuses both rankings (the server computes missing embeddings; while many are, it
        says so). Beliefs near the best hits in the justification graph rank higher. depth=N
        adds `neighbours`: the beliefs within N justification
        steps of the hits (what they rest on, what rests on them), with their distance. Use
        it before adding a belief, to find what exists.
        Example: search(words="cache stale reads", limit=5)."""
        searching.check_depth(depth)
        hits = by_meaning(self._keeper, semantic, lambda embedder: searching.search(
            self._store, words, limit=limit, include_out=include_out, embedder=embedder))
        if not depth:
            return {"hits": [h.as_dict() for h in hits]}
        near = searching.neighbours(self._store, [h.belief.id for h in hits], depth,
                                    include_out)
        return {"hits": [h.as_dict() for h in hits], "neighbours": [n.as_dict() for n in near]}

    @tool(READ)
    def query(self, name: str, params: dict[str, str | int | float | bool] | None = None
              ) -> dict[str, Any]:
        """Run a read-only query of the pack by name with its parameters: why_in(id),
        premises(id), out_if_retracted(id), gated(), by_depth(min_depth), undetermined(),
        nogoods(), proposed_by(id), run_added(run_id), derive_runs(), neighbourhood(id,
        steps). The eem://query-pack resource lists each query's parameters and Cypher.
        Example: query(name="why_in", params={"id": "auth-bottleneck"})."""
        query = queries.find_query(self._pack, name)
        pairs = [f"{k}={_param_text(v)}" for k, v in (params or {}).items()]
        result = queries.run_query(self._store, query, queries.parse_params(query, pairs))
        return {"columns": list(result.columns), "rows": queries.json_rows(result)}

    @tool(READ)
    def verify(self) -> dict[str, Any]:
        """Recompute every label and depth from scratch and compare with the graph: ok is
        true when they all agree, else the mismatches. Slow on big networks; use it after
        a suspected inconsistency. Example: verify()."""
        problems = tms.verify(self._store)
        return results.verify_record(problems, tms.status(self._store).undetermined_ids)

    @tool(READ)
    def what_if(self, operation: str, id: str, new: str = "", text: str = "") -> dict[str, Any]:
        """What retracting, asserting or superseding a belief would change (went_in,
        went_out), computed in a transaction that is rolled back: nothing is written.
        operation: "retract", "assert" or "supersede" (with new=an existing belief, or
        text=a rewording). Use it before a retract or supersede to see the cascade.
        Example: what_if(operation="retract", id="auth-uses-jwt");
        what_if(operation="supersede", id="auth-uses-jwt", text="Auth validates sessions")."""
        if operation == "supersede":
            return supersede.what_if_supersede(self._store, id, new or None,
                                               text=text or None).as_dict()
        if new or text:
            raise InvalidInput("new and text go with operation 'supersede'", field="operation",
                               value=operation)
        return tms.what_if(self._store, operation, id).as_dict()

    @tool(READ)
    def stage_runs(self, limit: int = RUNS_LIMIT) -> dict[str, Any]:
        """Recent runs of the LLM stages (derive and the others), newest first: id, stage,
        model, started_at, params; and the newest report files in the report directory.
        The stages run long and call a model, so they are started from a shell, not here;
        use this to see what they did. Example: stage_runs(limit=5)."""
        if limit < 1:
            raise InvalidInput(f"limit takes a positive number, not {limit}", field="limit",
                               value=limit)
        runs = self._store.read(lambda tx: tx.recent_stage_runs(limit))
        return {"runs": [{"id": r.id, "stage": r.stage, "model": r.model,
                          "started_at": r.started_at, "params": dict(r.params)} for r in runs],
                "reports": report_files(self._report_dir, limit)}

    @tool(READ)
    def log(self, since: str = "", id: str = "", op: str = "", actor: str = "",
            limit: int = 50) -> dict[str, Any]:
        """The change log, newest first: who changed what (op, args), why (reason), and the
        cascade (went_in, went_out, retracted_by_nogood ids). since: an ISO time, or a seq
        (entries after it); id: only entries that touched that belief.
        Example: log(since="2026-12-03", op="retract", limit=20)."""
        at, after = changelog.since_to_query(since or None)
        entries = changelog.log(self._store, LogQuery(
            since=at, after=after, belief_id=id or None, op=op or None, actor=actor or None,
            limit=limit))
        return {"entries": [e.as_dict() for e in entries]}

    @tool(READ)
    def changes_since(self, seq: int = 0, limit: int = 1000) -> dict[str, Any]:
        """Every change-log entry after seq, oldest first, with the ids it touched: call it
        at the start of a session with the last seq you saw (0 the first time) to catch up
        on what others changed; `last_seq` is the one to remember for next time.
        Example: changes_since(seq=1200)."""
        entries = changelog.changes_since(self._store, seq, limit)
        return {"entries": [e.as_dict() for e in entries],
                "last_seq": entries[-1].seq if entries else seq}

    @tool(READ, filtered=True)
    def blockers(self, limit: int = blocking.DEFAULT_LIMIT) -> dict[str, Any]:
        """What holds conclusions OUT: groups of OUT conclusions whose justification holds
        but for IN beliefs in its outlist (closers), most conclusions first ("take bug-412
        OUT and these 7 come back"), and the retracted premises the most beliefs rest on,
        with their reasons. Use it to find what to fix first.
        Example: blockers(limit=10)."""
        return blocking.find_blockers(self._store, limit).as_dict()

    # --- changing --------------------------------------------------------------------
    @tool(WRITE)
    def add(self, id: str, text: str, antecedents: list[str] | None = None,
            unless: list[str] | None = None, any_mode: bool = False, kind: str = "SL",
            label: str = "", source: str = "", source_url: str = "", quote: str = ""
            ) -> dict[str, Any]:
        """Add a belief. Without antecedents and unless it is a premise (an observed fact,
        IN). With antecedents it is derived: IN while all antecedents are IN and every
        unless id is OUT; any_mode=true makes one justification per antecedent (each enough
        alone). Ids: lower case [a-z0-9._:-]. source: a file under the memory's root (the
        one `init --root` recorded, else the server's folder), "PATH" or "PATH:A-B" (lines),
        read and hashed now; quote: words of those lines that
        state the belief (refused when they do not occur there). Returns what went IN and OUT.
        Example: add(id="auth-bottleneck", text="Auth is a bottleneck",
        antecedents=["auth-uses-jwt", "auth-sync-check"])."""
        justifications = _justifications(antecedents or [], unless or [], any_mode, kind, label)
        if quote and not source:
            raise InvalidInput("quote goes with source", field="quote")
        if source and self._source_files is not None:
            files = self._source_files(self._store)
            return add_sourced(self._store, id, text, justifications, files.pin(source, quote),
                               root=files.root, source_url=source_url).as_dict()
        return tms.add(self._store, id, text, justifications, source=source,
                       source_url=source_url).as_dict()

    @tool(WRITE)
    def add_justification(self, id: str, antecedents: list[str] | None = None,
                          unless: list[str] | None = None, any_mode: bool = False,
                          kind: str = "SL", label: str = "") -> dict[str, Any]:
        """Give an existing belief another justification (another reason it may hold); a
        premise becomes derived. Returns what went IN and OUT.
        Example: add_justification(id="auth-bottleneck", antecedents=["load-test-p99"],
        label="measured")."""
        justifications = _justifications(antecedents or [], unless or [], any_mode, kind, label)
        return tms.add_justification(self._store, id, justifications).as_dict()

    @tool(WRITE)
    def retract(self, id: str, reason: str = "") -> dict[str, Any]:
        """Pin a belief OUT (it no longer holds) until assert_belief; everything resting on
        it follows in the same transaction. Returns what went IN and OUT. Call what_if
        first when unsure. Example: retract(id="auth-uses-jwt", reason="moved to sessions")."""
        return tms.retract(self._store, id, reason).as_dict()

    @tool(WRITE)
    def assert_belief(self, id: str) -> dict[str, Any]:
        """Undo a retraction; a derived belief with no valid support then holds as a
        user-asserted fact. Returns what went IN and OUT.
        Example: assert_belief(id="auth-uses-jwt")."""
        return tms.assert_belief(self._store, id).as_dict()

    @tool(WRITE)
    def nogood(self, ids: list[str], name: str = "") -> dict[str, Any]:
        """Record that these beliefs must not all be IN (a contradiction). While they all
        are, the least entrenched assumption they rest on is retracted. Returns the nogood's
        id, what went IN and OUT and what it retracted. name: the nogood's id (default:
        nogood- and the sorted ids joined by -, with -2 for a repeat).
        Example: nogood(ids=["cache-is-coherent", "cache-serves-stale-reads"])."""
        ident, change = tms.add_nogood_with_id(self._store, ids, name or None)
        return {"id": ident, **change.as_dict()}

    @tool(WRITE)
    def supersede(self, old: str, new: str = "", text: str = "", new_id: str = "",
                  rewire: bool | None = None, reason: str = "") -> dict[str, Any]:
        """Replace belief old by new (an existing belief), or reword it (text: creates
        new_id, default old-v2, with old's justifications, source and metadata, and moves
        old's dependents to it unless rewire=false). While the new one is IN the old one is
        OUT; undo with supersede_undo. Returns what went IN and OUT.
        Example: supersede(old="auth-uses-jwt", text="Auth validates JWTs and sessions",
        reason="sessions were added in v2")."""
        return supersede.supersede(self._store, old, new or None, text=text or None,
                                   new_id=new_id or None, rewire=rewire,
                                   reason=reason).as_dict()

    @tool(WRITE)
    def supersede_undo(self, old: str) -> dict[str, Any]:
        """Undo the supersede of old exactly (edges moved back, a reworded successor
        removed). Example: supersede_undo(old="auth-uses-jwt")."""
        return supersede.undo_supersede(self._store, old).as_dict()

    @tool(WRITE)
    def challenge(self, id: str, reason: str, justification: int = 0,
                  challenge_id: str = "") -> dict[str, Any]:
        """Challenge a belief: a new premise challenge:<id> (or challenge_id; its text the
        reason) joins the outlist of every justification of id (or of justification number
        `justification`, 1-based), so id goes OUT unless another justification holds.
        Answer it with defend.
        Example: challenge(id="auth-bottleneck", reason="measured without the cache")."""
        return dialectic.challenge(self._store, id, reason, justification or None,
                                   challenge_id or None).as_dict()

    @tool(WRITE)
    def defend(self, id: str, reason: str) -> dict[str, Any]:
        """Defend against a challenge, a review defeater (review:<belief>:j<n>) or a defeat's
        defeater (defeat:<belief>:j<n>): a premise defence:<id> gates it, so it goes OUT
        and its target comes back; retract the defence to reopen it.
        Example: defend(id="challenge:auth-bottleneck", reason="rerun with the cache")."""
        return dialectic.defend(self._store, id, reason).as_dict()

    @tool(WRITE)
    def defeat(self, id: str, justification: int, reason: str,
               type: str = "invalid-inference", defeater_id: str = "",
               scopes: dict[str, str] | None = None) -> dict[str, Any]:
        """Defeat justification number `justification` (1-based) of a belief: a premise
        defeat:<id>:j<n> (or defeater_id; its text the reason) of a type (invalid-inference,
        over-generalizes, duplicate-of, superseded-by) joins that justification's outlist,
        so id goes OUT unless another justification holds. scopes: antecedent -> what it
        does and does not establish; each becomes a premise and the defeater is derived
        from them, so challenging one restores the justification. Undo: defend the
        defeater. Example: defeat(id="auth-bottleneck", justification=1,
        type="over-generalizes", reason="one slow endpoint is not the whole service")."""
        found = [defeat.Scope(a, t) for a, t in (scopes or {}).items()]
        return defeat.defeat(self._store, id, justification, type, reason,
                             defeater_id or None, found).as_dict()

    @tool(WRITE)
    def remove_justification(self, id: str, n: int) -> dict[str, Any]:
        """Drop justification n (1-based, as show lists them) of a belief; never its last
        one (use convert_to_premise or retract). Example: remove_justification(id="b", n=2)."""
        return editing.remove_justification(self._store, id, n).as_dict()

    @tool(WRITE)
    def convert_to_premise(self, id: str) -> dict[str, Any]:
        """Strip every justification of a belief so it holds as an observed premise (the
        justifications are kept in the change log). Example: convert_to_premise(id="b")."""
        return editing.convert_to_premise(self._store, id).as_dict()

    @tool(WRITE)
    def set_metadata(self, id: str, key: str, value: str | int | float | bool | list | dict
                     | None = None, unset: bool = False) -> dict[str, Any]:
        """Set (or with unset=true remove) one metadata key of a belief; value is any JSON
        value. beliefs_type (assumption, observation, fact, axiom, ...) changes how
        entrenched the belief is when a nogood must retract something, at once.
        Example: set_metadata(id="auth-uses-jwt", key="beliefs_type", value="observation")."""
        if unset:
            return editing.unset_metadata(self._store, id, key).as_dict()
        return editing.set_metadata(self._store, id, key, value).as_dict()

    # --- resources ---------------------------------------------------------------------
    def belief_resource(self, id: str) -> str:
        """eem://belief/{id}: the belief as `show` gives it (JSON)."""
        return json.dumps(self.show(id), indent=2, ensure_ascii=False)

    def status_resource(self) -> str:
        return json.dumps(self.status(), indent=2)



def by_meaning(keeper: EmbeddingKeeper | None, semantic: bool, read: Callable[[Any], T]) -> T:
    """`read(embedder)`: by words alone (embedder None) unless `semantic`; by meaning as well
    through the server's keeper, which computes missing embeddings or says they are being
    computed (never a silent ranking by words)."""
    if not semantic:
        return read(None)
    if keeper is None:
        raise InvalidInput("semantic search is not available in this server", field="semantic")
    embedder = keeper.embedder()
    return keeper.by_meaning(lambda: read(embedder))


def _param_text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


# --- issue 21: reading the memory (compact, context_for, and ask with --model) ------------
class ReadingTools:
    """The reading tools: what an agent reads at the start of a session (compact), the
    material to answer a question itself (context_for), and, when the server was started
    with --model, an answer with checked citations (ask)."""

    def __init__(self, store: Store, *, ask: Callable[[str], dict[str, Any]] | None = None,
                 keeper: EmbeddingKeeper | None = None) -> None:
        self._store = store
        self._ask = ask
        self._keeper = keeper

    @tool(READ, filtered=True)
    def context_for(self, question: str, budget: int = 3000, semantic: bool = False
                    ) -> dict[str, Any]:
        """The beliefs that bear on a question, packed to `budget` tokens, most relevant
        first (search's ranking: words, meaning with semantic=true, nearness in the
        justification graph to the best matches); near duplicates on one line. Each line
        says why the belief holds (what it rests on) or why it is OUT. For an agent that
        answers itself: cite the ids it shows.
        Example: context_for(question="why is auth slow?", budget=2000, semantic=true)."""
        from engine.ask.retrieval import retrieve

        return by_meaning(self._keeper, semantic, lambda embedder: retrieve(
            self._store, question, budget=budget, embedder=embedder)).as_dict()

    @tool(READ, filtered=True)
    def compact(self, budget: int = 800, topic: str = "", semantic: bool = False
                ) -> dict[str, Any]:
        """A summary of the network in `budget` tokens, for the start of a session: nogoods,
        what went OUT recently and why, gated conclusions, the most load-bearing premises,
        the deepest conclusions, what review defeated; each line `id [label, depth, impact]:
        text`. topic: only the beliefs that bear on these words, as search ranks them (by
        meaning too with semantic=true). Example: compact(budget=800)."""
        from engine.reading.compact import CompactOptions
        from engine.reading.compact import compact as summarize_network

        options = CompactOptions(budget=budget, topic=tuple(topic.split()) if topic else ())
        if semantic and not options.topic:
            raise InvalidInput("semantic goes with topic", field="semantic")
        return by_meaning(self._keeper, semantic, lambda embedder: summarize_network(
            self._store, options, embedder=embedder)).as_dict()

    @tool(READ, read_only=False, filtered=True, needs_model=True)  # it records its run
    def ask(self, question: str) -> dict[str, Any]:
        """Answer a question from the network with a model: the answer, its citations (each
        checked: shown to the model, an OUT belief never as supports), and the gaps; status
        "insufficient" when the network does not say. Example: ask(question="why is auth
        slow?")."""
        if self._ask is None:
            raise InvalidInput("ask needs a model: start the server with --model",
                               field="model")
        return self._ask(question)

    def compact_resource(self) -> str:
        return self.compact()["text"]


# --- issue 23: proposals (an agent proposes, a person accepts) ------------------------------
class ProposalTools:
    """The proposal tools: an agent queues a write for a person instead of making it. The
    proposer and the acceptor are the calling client (the change log's actor), never an
    argument. list_proposals and show_proposal read; the propose_* tools and
    withdraw_proposal queue or withdraw (the network does not change, so a proposer may);
    accept_proposal and reject_proposal apply or refuse one (writes)."""

    def __init__(self, store: Store, *, source_files: SourceFilesOf | None = None) -> None:
        self._store = store
        self._source_files = source_files  # where a proposed add's source is read, as add's

    def _propose(self, action: str, args: dict[str, Any], reason: str) -> dict[str, Any]:
        return lifecycle.propose(self._store, action, args, reason).as_dict()

    @staticmethod
    def _justifications(antecedents: Sequence[str], unless: Sequence[str], any_mode: bool,
                        kind: str, label: str) -> list[dict[str, Any]]:
        return [justification_args(j)
                for j in _justifications(antecedents, unless, any_mode, kind, label)]

    @tool(PROPOSE, read_only=True)
    def list_proposals(self, pending: bool = False) -> dict[str, Any]:
        """The proposals, oldest first (pending=true: only those waiting), each with its
        action, target, proposer, reason, status and stored impact.
        Example: list_proposals(pending=True)."""
        return {"proposals": [p.as_dict()
                              for p in lifecycle.list_proposals(self._store, pending)]}

    @tool(PROPOSE, read_only=True)
    def show_proposal(self, id: str) -> dict[str, Any]:
        """One proposal; while pending, also a what-if computed now (fresh_impact) beside
        the stored one and what changed since it was proposed (drift_now).
        Example: show_proposal(id="prop-3")."""
        return lifecycle.show_proposal(self._store, id).as_dict()

    @tool(PROPOSE)
    def propose_add(self, id: str, text: str, reason: str, antecedents: list[str] | None = None,
                    unless: list[str] | None = None, any_mode: bool = False, kind: str = "SL",
                    label: str = "", source: str = "", source_url: str = "", quote: str = ""
                    ) -> dict[str, Any]:
        """Propose adding a belief (arguments as add's) for a person to accept; nothing in the
        network changes. A source file is read and its quote grounded now, as add does;
        accepting pins the belief to the file as it was read. Returns the proposal: its id,
        status pending, what it depends on and its impact (what would go IN and OUT).
        Example: propose_add(id="cache-is-warm", text="The cache is warm after deploy",
        reason="seen in the deploy logs")."""
        if quote and not source:
            raise InvalidInput("quote goes with source", field="quote")
        args: dict[str, Any] = {
            "id": id, "text": text, "source": source, "source_url": source_url,
            "justifications": self._justifications(antecedents or [], unless or [], any_mode,
                                                   kind, label)}
        if source and self._source_files is not None:
            claim = self._source_files(self._store).pin(source, quote)
            args.update(source=claim.path, pin=pin_args(claim))
        return self._propose("add", args, reason)

    @tool(PROPOSE)
    def propose_add_justification(self, id: str, reason: str,
                                  antecedents: list[str] | None = None,
                                  unless: list[str] | None = None, any_mode: bool = False,
                                  kind: str = "SL", label: str = "") -> dict[str, Any]:
        """Propose another justification for a belief (arguments as add_justification's);
        nothing changes until a person accepts it. Example: propose_add_justification(
        id="auth-bottleneck", antecedents=["load-test-p99"], reason="the load test")."""
        return self._propose("add-justification", {
            "id": id, "justifications": self._justifications(antecedents or [], unless or [],
                                                             any_mode, kind, label)}, reason)

    @tool(PROPOSE)
    def propose_retract(self, id: str, reason: str) -> dict[str, Any]:
        """Propose retracting a belief; the proposal shows what would go OUT. Nothing
        changes until a person accepts it.
        Example: propose_retract(id="auth-uses-jwt", reason="moved to sessions")."""
        return self._propose("retract", {"id": id, "reason": reason}, reason)

    @tool(PROPOSE)
    def propose_assert(self, id: str, reason: str) -> dict[str, Any]:
        """Propose asserting a belief (undo a retraction, or hold a derived one as a fact).
        Example: propose_assert(id="auth-uses-jwt", reason="sessions were rolled back")."""
        return self._propose("assert", {"id": id}, reason)

    @tool(PROPOSE)
    def propose_supersede(self, old: str, reason: str, new: str = "", text: str = "",
                          new_id: str = "", rewire: bool | None = None) -> dict[str, Any]:
        """Propose replacing old by new (an existing belief) or rewording it (text; new_id,
        rewire as supersede's). Example: propose_supersede(old="auth-uses-jwt",
        text="Auth validates JWTs and sessions", reason="sessions since v2")."""
        return self._propose("supersede", {
            "old": old, "new": new or None, "text": text or None, "new_id": new_id or None,
            "justifications": None, "rewire": rewire, "reason": reason}, reason)

    @tool(PROPOSE)
    def propose_challenge(self, id: str, reason: str, justification: int = 0,
                          challenge_id: str = "") -> dict[str, Any]:
        """Propose challenging a belief (reason: the objection, the challenge's text;
        justification: one 1-based justification only; challenge_id: the challenge's id).
        Example: propose_challenge(id="auth-bottleneck", reason="measured without cache")."""
        return self._propose("challenge", {"id": id, "reason": reason,
                                           "justification": justification or None,
                                           **({"challenge_id": challenge_id}
                                              if challenge_id else {})}, reason)

    @tool(PROPOSE)
    def withdraw_proposal(self, id: str) -> dict[str, Any]:
        """Withdraw a pending proposal you made (only its proposer may).
        Example: withdraw_proposal(id="prop-3")."""
        return lifecycle.withdraw(self._store, id).as_dict()

    @tool(WRITE)
    def accept_proposal(self, id: str, force: bool = False) -> dict[str, Any]:
        """Apply a pending proposal in one transaction; refused, naming what changed, when
        its target or an id it names changed since (force=true applies anyway, recorded).
        Returns what went IN and OUT and the change-log seq. Example: accept_proposal(
        id="prop-3")."""
        return lifecycle.accept(self._store, id, force).as_dict()

    @tool(WRITE)
    def reject_proposal(self, id: str, reason: str) -> dict[str, Any]:
        """Reject a pending proposal, saying why.
        Example: reject_proposal(id="prop-3", reason="the benchmark ran without the cache")."""
        return lifecycle.reject(self._store, id, reason).as_dict()


# The one list of agent tools: each declared where it is defined (`@tool`), in the order the
# MCP server lists them. roles.py and engine/cli/mcp.py read it.
TOOLS: tuple[ToolSpec, ...] = (declared_tools(AgentTools) + declared_tools(ReadingTools)
                               + declared_tools(ProposalTools))
