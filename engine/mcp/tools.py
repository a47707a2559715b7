"""The operations an agent calls, each one call of the service layer (engine/service/) the
command line makes too, returning its result's `as_dict()`: the JSON `--json` prints. Each is
a method declared with `@tool` (engine/mcp/declaration.py: its role, whether it only reads,
whether it answers under a visibility set, whether it needs the server's model); `TOOLS` at
the end is the one list of them. `eem mcp` publishes each as an MCP tool: the method's name
is the tool's name, its typed parameters after `ctx` the tool's input, and its docstring
the description a model reads to choose it.

Every tool takes the caller's Context first (engine/service/context.py: the store writing as
that client, the access tags it may see): the server builds one per call. Nothing here knows
MCP or Neo4j. Bad input raises the same InvalidInput / NotFound as on the command line,
before anything is written.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from engine import defaults
from engine.mcp.declaration import PROPOSE, READ, WRITE, ToolSpec, declared_tools, tool
from engine.errors import InvalidInput
from engine.model import Justification, Truth
from engine.service import history, keeping, network, proposals, reading
from engine.service.context import Context
from engine.service.keeping import Replacement
from engine.service.network import NewBelief

LIST_LIMIT = 200
RUNS_LIMIT = 20
REPORT_SUFFIX = ".json"
JSON = dict[str, object]
Ask = Callable[[Context, str], JSON]


def report_files(report_dir: Path, limit: int) -> list[JSON]:
    """The newest stage reports in `report_dir` (`<stage>-<UTC timestamp>.json`)."""
    try:
        files = [p for p in report_dir.iterdir() if p.suffix == REPORT_SUFFIX and p.is_file()]
    except OSError:
        return []
    files.sort(key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    return [{"path": str(p), "stage": p.stem.split("-", 1)[0]} for p in files[:limit]]


def _justifications(antecedents: Sequence[str] | None, unless: Sequence[str] | None,
                    any_mode: bool, kind: str, label: str) -> tuple[Justification, ...]:
    return network.justifications(antecedents or (), unless=unless or (), kind=kind,
                                  any_mode=any_mode, label=label)


def _positive(limit: int) -> int:
    if limit < 1:
        raise InvalidInput(f"limit takes a positive number, not {limit}", field="limit",
                           value=limit)
    return limit


class AgentTools:
    """The tools of one server: `report_dir`, where the stages write their reports (listed
    by stage_runs); `ask`, the server's model answering a question (None: no ask tool)."""

    def __init__(self, *, report_dir: Path, ask: Ask | None = None) -> None:
        self._report_dir = report_dir
        self._ask = ask

    # --- reading ---------------------------------------------------------------------
    @tool(READ)
    def status(self, ctx: Context, as_of: str = "") -> JSON:
        """Counts of the network: beliefs, IN, OUT, undetermined, premises, derived, nogoods,
        max depth, and the ids of undetermined beliefs. Call it first to see how big the
        network is and whether anything is undetermined. as_of (here and in show, explain,
        trace, list_beliefs): a seq, an ISO time or a release name, to read the memory as it
        was then. Example: status()."""
        return network.status(ctx, as_of or None).as_dict()

    @tool(READ, filtered=True)
    def show(self, ctx: Context, id: str, as_of: str = "") -> JSON:
        """One belief in full: text, truth (IN/OUT/UNDETERMINED), depth, whether retracted or
        asserted, source, metadata, its justifications (antecedents that must be IN, outlist
        that must be OUT) and the ids of beliefs that name it (dependents). Use it before
        changing a belief. Example: show(id="auth-uses-jwt")."""
        return reading.show(ctx, id, as_of or None).as_dict()

    @tool(READ, filtered=True)
    def explain(self, ctx: Context, id: str, as_of: str = "") -> JSON:
        """Why a belief is IN (the justification that holds, down to premises) or OUT (what
        fails in each justification). Use it to answer "why do we believe X?" or "why not?".
        Example: explain(id="auth-bottleneck")."""
        return reading.explain(ctx, id, as_of or None).as_dict()

    @tool(READ, filtered=True)
    def trace(self, ctx: Context, id: str, as_of: str = "") -> JSON:
        """The premises, user-asserted beliefs and not-yet-added ids a belief ultimately rests
        on, each with its truth. Use it to find which observations a conclusion depends on.
        Example: trace(id="auth-bottleneck")."""
        return reading.trace(ctx, id, as_of or None).as_dict()

    @tool(READ, filtered=True)
    def list_beliefs(self, ctx: Context, truth: str = "any", kind: str = "any",
                     limit: int = LIST_LIMIT, as_of: str = "") -> JSON:
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
        return reading.list_beliefs(ctx, reading.ListOptions(
            truth=truths[truth], premises=kinds[kind], limit=_positive(limit),
            as_of=as_of or None)).as_dict()

    @tool(READ, filtered=True)
    def search(self, ctx: Context, words: str, include_out: bool = False,
               semantic: bool = False, limit: int = defaults.SEARCH_LIMIT,
               depth: int = 0) -> JSON:
        """Find beliefs by words in their text or id (any word, stemmed: "deactivation"
        finds "auto-deactivated"; prefixes match), best first, each with truth, depth and
        how many beliefs rest on it directly. Only IN beliefs unless include_out=true.
        semantic=true also ranks by meaning (sentence embeddings stored on beliefs) and
        fuses both rankings. depth=N adds `neighbours`: the beliefs within N justification
        steps of the hits (what they rest on, what rests on them), with their distance. Use
        it before adding a belief, to find what exists.
        Example: search(words="cache stale reads", limit=5)."""
        return reading.search(ctx, reading.SearchOptions(
            words, include_out=include_out, semantic=semantic, limit=limit,
            depth=depth)).as_dict()

    @tool(READ)
    def query(self, ctx: Context, name: str,
              params: dict[str, str | int | float | bool] | None = None) -> JSON:
        """Run a read-only query of the pack by name with its parameters: why_in(id),
        premises(id), out_if_retracted(id), gated(), by_depth(min_depth), undetermined(),
        nogoods(), proposed_by(id), run_added(run_id), derive_runs(), neighbourhood(id,
        steps). The eem://query-pack resource lists each query's parameters and Cypher.
        Example: query(name="why_in", params={"id": "auth-bottleneck"})."""
        return reading.query(ctx, name, params or {}).as_dict()

    @tool(READ)
    def verify(self, ctx: Context) -> JSON:
        """Recompute every label and depth from scratch and compare with the graph: ok is
        true when they all agree, else the mismatches. Slow on big networks; use it after
        a suspected inconsistency. Example: verify()."""
        return network.verify(ctx).as_dict()

    @tool(READ)
    def what_if(self, ctx: Context, operation: str, id: str, new: str = "", text: str = ""
                ) -> JSON:
        """What retracting, asserting or superseding a belief would change (went_in,
        went_out), computed in a transaction that is rolled back: nothing is written.
        operation: "retract", "assert" or "supersede" (with new=an existing belief, or
        text=a rewording). Use it before a retract or supersede to see the cascade.
        Example: what_if(operation="retract", id="auth-uses-jwt");
        what_if(operation="supersede", id="auth-uses-jwt", text="Auth validates sessions")."""
        if operation == "supersede":
            return keeping.what_if_supersede(ctx, id, Replacement(new or None,
                                                                  text or None)).as_dict()
        if new or text:
            raise InvalidInput("new and text go with operation 'supersede'", field="operation",
                               value=operation)
        return network.what_if(ctx, operation, id).as_dict()

    @tool(READ)
    def stage_runs(self, ctx: Context, limit: int = RUNS_LIMIT) -> JSON:
        """Recent runs of the LLM stages (derive and the others), newest first: id, stage,
        model, started_at, params; and the newest report files in the report directory.
        The stages run long and call a model, so they are started from a shell, not here;
        use this to see what they did. Example: stage_runs(limit=5)."""
        return {**reading.stage_runs(ctx, _positive(limit)).as_dict(),
                "reports": report_files(self._report_dir, limit)}

    @tool(READ)
    def log(self, ctx: Context, since: str = "", id: str = "", op: str = "", actor: str = "",
            limit: int = defaults.LOG_LIMIT) -> JSON:
        """The change log, newest first: who changed what (op, args), why (reason), and the
        cascade (went_in, went_out, retracted_by_nogood ids). since: an ISO time, or a seq
        (entries after it); id: only entries that touched that belief.
        Example: log(since="2026-12-03", op="retract", limit=20)."""
        return history.log(ctx, history.LogOptions(
            since=since or None, ids=(id,) if id else (), op=op or None, actor=actor or None,
            limit=limit)).as_dict()

    @tool(READ)
    def diff(self, ctx: Context, first: str, second: str = "") -> JSON:
        """What differs between two points of the memory (a seq, an ISO time or a release
        name; second: default now): beliefs added, removed, reworded, re-justified,
        relabelled, retracted or restored, nogoods added and removed, each with the change
        that did it. Use it to see what a release or a session changed.
        Example: diff(first="v1.0")."""
        return history.diff(ctx, [first, *([second] if second else [])]).as_dict()

    @tool(READ)
    def changes_since(self, ctx: Context, seq: int = 0, limit: int = 1000) -> JSON:
        """Every change-log entry after seq, oldest first, with the ids it touched: call it
        at the start of a session with the last seq you saw (0 the first time) to catch up
        on what others changed; `last_seq` is the one to remember for next time.
        Example: changes_since(seq=1200)."""
        return history.changes_since(ctx, seq, limit).as_dict()

    @tool(READ, filtered=True)
    def blockers(self, ctx: Context, limit: int = defaults.BLOCKERS_LIMIT) -> JSON:
        """What holds conclusions OUT: groups of OUT conclusions whose justification holds
        but for IN beliefs in its outlist (closers), most conclusions first ("take bug-412
        OUT and these 7 come back"), and the retracted premises the most beliefs rest on,
        with their reasons. Use it to find what to fix first.
        Example: blockers(limit=10)."""
        return reading.blockers(ctx, limit).as_dict()

    @tool(READ, filtered=True)
    def context_for(self, ctx: Context, question: str,
                    budget: int = defaults.CONTEXT_BUDGET) -> JSON:
        """The beliefs that bear on a question, packed to `budget` tokens: the best search
        hits (OUT ones marked, with why they are OUT), what they rest on down to premises,
        and what rests on them. For an agent that answers itself: cite the ids it shows.
        Example: context_for(question="why is auth slow?", budget=2000)."""
        return reading.context_for(ctx, question, budget).as_dict()

    @tool(READ, filtered=True)
    def compact(self, ctx: Context, budget: int = defaults.COMPACT_BUDGET,
                topic: str = "") -> JSON:
        """A summary of the network in `budget` tokens, for the start of a session: nogoods,
        what went OUT recently and why, gated conclusions, the most load-bearing premises,
        the deepest conclusions, what review defeated; each line `id [label, depth, impact]:
        text`. topic: only beliefs matching these words. Example: compact(budget=800)."""
        from engine.reading.compact import CompactOptions

        return reading.compact(ctx, CompactOptions(budget=budget, topic=tuple(topic.split()))
                               ).as_dict()

    @tool(READ, read_only=False, filtered=True, needs_model=True)  # it records its run
    def ask(self, ctx: Context, question: str) -> JSON:
        """Answer a question from the network with a model: the answer, its citations (each
        checked: shown to the model, an OUT belief never as supports), and the gaps; status
        "insufficient" when the network does not say. Example: ask(question="why is auth
        slow?")."""
        if self._ask is None:
            raise InvalidInput("ask needs a model: start the server with --model",
                               field="model")
        return self._ask(ctx, question)

    # --- changing --------------------------------------------------------------------
    @tool(WRITE)
    def add(self, ctx: Context, id: str, text: str, antecedents: list[str] | None = None,
            unless: list[str] | None = None, any_mode: bool = False, kind: str = "SL",
            label: str = "", source: str = "", source_url: str = "", quote: str = "") -> JSON:
        """Add a belief. Without antecedents and unless it is a premise (an observed fact,
        IN). With antecedents it is derived: IN while all antecedents are IN and every
        unless id is OUT; any_mode=true makes one justification per antecedent (each enough
        alone). Ids: lower case [a-z0-9._:-]. source: a file under the memory's root (the
        one `init --root` recorded, else the server's folder), "PATH" or "PATH:A-B" (lines),
        read and hashed now; quote: words of those lines that
        state the belief (refused when they do not occur there). Returns what went IN and OUT.
        Example: add(id="auth-bottleneck", text="Auth is a bottleneck",
        antecedents=["auth-uses-jwt", "auth-sync-check"])."""
        return network.add(ctx, NewBelief(
            id, text, _justifications(antecedents, unless, any_mode, kind, label),
            source=source, quote=quote or None, source_url=source_url)).as_dict()

    @tool(WRITE)
    def add_justification(self, ctx: Context, id: str, antecedents: list[str] | None = None,
                          unless: list[str] | None = None, any_mode: bool = False,
                          kind: str = "SL", label: str = "") -> JSON:
        """Give an existing belief another justification (another reason it may hold); a
        premise becomes derived. Returns what went IN and OUT.
        Example: add_justification(id="auth-bottleneck", antecedents=["load-test-p99"],
        label="measured")."""
        return network.add_justification(
            ctx, id, _justifications(antecedents, unless, any_mode, kind, label)).as_dict()

    @tool(WRITE)
    def retract(self, ctx: Context, id: str, reason: str = "") -> JSON:
        """Pin a belief OUT (it no longer holds) until assert_belief; everything resting on
        it follows in the same transaction. Returns what went IN and OUT, and for
        each derived belief that went OUT what would bring it back (restore). Call what_if
        first when unsure. Example: retract(id="auth-uses-jwt", reason="moved to sessions")."""
        return network.retract(ctx, id, reason).as_dict()

    @tool(WRITE)
    def assert_belief(self, ctx: Context, id: str) -> JSON:
        """Undo a retraction; a derived belief with no valid support then holds as a
        user-asserted fact. Returns what went IN and OUT.
        Example: assert_belief(id="auth-uses-jwt")."""
        return network.assert_belief(ctx, id).as_dict()

    @tool(WRITE)
    def nogood(self, ctx: Context, ids: list[str], name: str = "") -> JSON:
        """Record that these beliefs must not all be IN (a contradiction). While they all
        are, the least entrenched assumption they rest on is retracted. Returns the nogood's
        id, what went IN and OUT and what it retracted. name: the nogood's id (default:
        nogood- and the sorted ids joined by -, with -2 for a repeat).
        Example: nogood(ids=["cache-is-coherent", "cache-serves-stale-reads"])."""
        return network.nogood(ctx, ids, name or None).as_dict()

    @tool(WRITE)
    def supersede(self, ctx: Context, old: str, new: str = "", text: str = "", new_id: str = "",
                  rewire: bool | None = None, reason: str = "") -> JSON:
        """Replace belief old by new (an existing belief), or reword it (text: creates
        new_id, default old-v2, with old's justifications, source and metadata, and moves
        old's dependents to it unless rewire=false). While the new one is IN the old one is
        OUT; undo with supersede_undo. Returns what went IN and OUT.
        Example: supersede(old="auth-uses-jwt", text="Auth validates JWTs and sessions",
        reason="sessions were added in v2")."""
        return keeping.supersede(ctx, old, Replacement(new or None, text or None, new_id or None,
                                                       None, rewire), reason).as_dict()

    @tool(WRITE)
    def supersede_undo(self, ctx: Context, old: str) -> JSON:
        """Undo the supersede of old exactly (edges moved back, a reworded successor
        removed). Example: supersede_undo(old="auth-uses-jwt")."""
        return keeping.undo_supersede(ctx, old).as_dict()

    @tool(WRITE)
    def challenge(self, ctx: Context, id: str, reason: str, justification: int = 0,
                  challenge_id: str = "") -> JSON:
        """Challenge a belief: a new premise challenge:<id> (or challenge_id; its text the
        reason) joins the outlist of every justification of id (or of justification number
        `justification`, 1-based), so id goes OUT unless another justification holds.
        Answer it with defend.
        Example: challenge(id="auth-bottleneck", reason="measured without the cache")."""
        return keeping.challenge(ctx, id, reason, justification or None,
                                 challenge_id or None).as_dict()

    @tool(WRITE)
    def defend(self, ctx: Context, id: str, reason: str) -> JSON:
        """Defend against a challenge, a review defeater (review:<belief>:j<n>) or a defeat's
        defeater (defeat:<belief>:j<n>): a premise defence:<id> gates it, so it goes OUT
        and its target comes back; retract the defence to reopen it.
        Example: defend(id="challenge:auth-bottleneck", reason="rerun with the cache")."""
        return keeping.defend(ctx, id, reason).as_dict()

    @tool(WRITE)
    def defeat(self, ctx: Context, id: str, justification: int, reason: str,
               type: str = "invalid-inference", defeater_id: str = "",
               scopes: dict[str, str] | None = None) -> JSON:
        """Defeat justification number `justification` (1-based) of a belief: a premise
        defeat:<id>:j<n> (or defeater_id; its text the reason) of a type (invalid-inference,
        over-generalizes, duplicate-of, superseded-by) joins that justification's outlist,
        so id goes OUT unless another justification holds. scopes: antecedent -> what it
        does and does not establish; each becomes a premise and the defeater is derived
        from them, so challenging one restores the justification. Undo: defend the
        defeater. Example: defeat(id="auth-bottleneck", justification=1,
        type="over-generalizes", reason="one slow endpoint is not the whole service")."""
        scoped, _ = keeping.scopes([f"{a}={t}" for a, t in (scopes or {}).items()])
        return keeping.defeat(ctx, id, justification, type, reason, defeater_id or None,
                              scoped).as_dict()

    @tool(WRITE)
    def remove_justification(self, ctx: Context, id: str, n: int) -> JSON:
        """Drop justification n (1-based, as show lists them) of a belief; never its last
        one (use convert_to_premise or retract). Example: remove_justification(id="b", n=2)."""
        return keeping.remove_justification(ctx, id, n).as_dict()

    @tool(WRITE)
    def convert_to_premise(self, ctx: Context, id: str) -> JSON:
        """Strip every justification of a belief so it holds as an observed premise (the
        justifications are kept in the change log). Example: convert_to_premise(id="b")."""
        return keeping.convert_to_premise(ctx, id).as_dict()

    @tool(WRITE)
    def set_metadata(self, ctx: Context, id: str, key: str,
                     value: str | int | float | bool | list | dict | None = None,
                     unset: bool = False) -> JSON:
        """Set (or with unset=true remove) one metadata key of a belief; value is any JSON
        value. beliefs_type (assumption, observation, fact, axiom, ...) changes how
        entrenched the belief is when a nogood must retract something, at once.
        Example: set_metadata(id="auth-uses-jwt", key="beliefs_type", value="observation")."""
        if unset:
            return keeping.unset_metadata(ctx, id, key).as_dict()
        return keeping.set_metadata(ctx, id, key, value).as_dict()

    @tool(WRITE)
    def rollback(self, ctx: Context, to: str, reason: str = "") -> JSON:
        """Set every definition back to what it was at a point (a seq, an ISO time or a
        release name) in ONE logged write; itself undone by rolling back to the seq before
        it. Returns what it restored and what went IN and OUT. Call diff first.
        Example: rollback(to="v1.0", reason="the import was wrong")."""
        return history.rollback(ctx, to, reason).as_dict()

    # --- proposals: an agent proposes, a person accepts ----------------------------------
    @tool(PROPOSE, read_only=True)
    def list_proposals(self, ctx: Context, pending: bool = False) -> JSON:
        """The proposals, oldest first (pending=true: only those waiting), each with its
        action, target, proposer, reason, status and stored impact.
        Example: list_proposals(pending=True)."""
        return proposals.list_proposals(ctx, pending=pending).as_dict()

    @tool(PROPOSE, read_only=True)
    def show_proposal(self, ctx: Context, id: str) -> JSON:
        """One proposal; while pending, also a what-if computed now (fresh_impact) beside
        the stored one and what changed since it was proposed (drift_now).
        Example: show_proposal(id="prop-3")."""
        return proposals.show_proposal(ctx, id).as_dict()

    @tool(PROPOSE)
    def propose_add(self, ctx: Context, id: str, text: str, reason: str,
                    antecedents: list[str] | None = None, unless: list[str] | None = None,
                    any_mode: bool = False, kind: str = "SL", label: str = "", source: str = "",
                    source_url: str = "", quote: str = "") -> JSON:
        """Propose adding a belief (arguments as add's) for a person to accept; nothing in the
        network changes. A source file is read and its quote grounded now, as add does;
        accepting pins the belief to the file as it was read. Returns the proposal: its id,
        status pending, what it depends on and its impact (what would go IN and OUT).
        Example: propose_add(id="cache-is-warm", text="The cache is warm after deploy",
        reason="seen in the deploy logs")."""
        return proposals.propose_add(ctx, NewBelief(
            id, text, _justifications(antecedents, unless, any_mode, kind, label),
            source=source, quote=quote or None, source_url=source_url), reason).as_dict()

    @tool(PROPOSE)
    def propose_add_justification(self, ctx: Context, id: str, reason: str,
                                  antecedents: list[str] | None = None,
                                  unless: list[str] | None = None, any_mode: bool = False,
                                  kind: str = "SL", label: str = "") -> JSON:
        """Propose another justification for a belief (arguments as add_justification's);
        nothing changes until a person accepts it. Example: propose_add_justification(
        id="auth-bottleneck", antecedents=["load-test-p99"], reason="the load test")."""
        return proposals.propose_add_justification(
            ctx, id, _justifications(antecedents, unless, any_mode, kind, label),
            reason).as_dict()

    @tool(PROPOSE)
    def propose_retract(self, ctx: Context, id: str, reason: str) -> JSON:
        """Propose retracting a belief; the proposal shows what would go OUT. Nothing
        changes until a person accepts it.
        Example: propose_retract(id="auth-uses-jwt", reason="moved to sessions")."""
        return proposals.propose_retract(ctx, id, reason).as_dict()

    @tool(PROPOSE)
    def propose_assert(self, ctx: Context, id: str, reason: str) -> JSON:
        """Propose asserting a belief (undo a retraction, or hold a derived one as a fact).
        Example: propose_assert(id="auth-uses-jwt", reason="sessions were rolled back")."""
        return proposals.propose_assert(ctx, id, reason).as_dict()

    @tool(PROPOSE)
    def propose_supersede(self, ctx: Context, old: str, reason: str, new: str = "",
                          text: str = "", new_id: str = "", rewire: bool | None = None) -> JSON:
        """Propose replacing old by new (an existing belief) or rewording it (text; new_id,
        rewire as supersede's). Example: propose_supersede(old="auth-uses-jwt",
        text="Auth validates JWTs and sessions", reason="sessions since v2")."""
        return proposals.propose_supersede(ctx, old, Replacement(
            new or None, text or None, new_id or None, None, rewire), reason).as_dict()

    @tool(PROPOSE)
    def propose_challenge(self, ctx: Context, id: str, reason: str, justification: int = 0,
                          challenge_id: str = "") -> JSON:
        """Propose challenging a belief (reason: the objection, the challenge's text;
        justification: one 1-based justification only; challenge_id: the challenge's id).
        Example: propose_challenge(id="auth-bottleneck", reason="measured without cache")."""
        return proposals.propose_challenge(ctx, id, reason, justification or None,
                                           challenge_id or None).as_dict()

    @tool(PROPOSE)
    def withdraw_proposal(self, ctx: Context, id: str) -> JSON:
        """Withdraw a pending proposal you made (only its proposer may).
        Example: withdraw_proposal(id="prop-3")."""
        return proposals.withdraw(ctx, id).as_dict()

    @tool(WRITE)
    def accept_proposal(self, ctx: Context, id: str, force: bool = False) -> JSON:
        """Apply a pending proposal in one transaction; refused, naming what changed, when
        its target or an id it names changed since (force=true applies anyway, recorded).
        Returns what went IN and OUT and the change-log seq. Example: accept_proposal(
        id="prop-3")."""
        return proposals.accept(ctx, id, force=force).as_dict()

    @tool(WRITE)
    def reject_proposal(self, ctx: Context, id: str, reason: str) -> JSON:
        """Reject a pending proposal, saying why.
        Example: reject_proposal(id="prop-3", reason="the benchmark ran without the cache")."""
        return proposals.reject(ctx, id, reason).as_dict()


# The one list of agent tools: each declared where it is defined (`@tool`), in the order the
# MCP server lists them. roles.py and the MCP server (engine/mcp/server.py) read it.
TOOLS: tuple[ToolSpec, ...] = declared_tools(AgentTools)
