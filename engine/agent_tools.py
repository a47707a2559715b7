"""The operations an agent calls, each a thin call of the library the CLI uses, returning
JSON-ready dicts (the same shapes as the CLI's --json). `python -m engine.mcp` publishes every
public method of `AgentTools` as an MCP tool: the method's name is the tool's name, its typed
parameters the tool's input, and its docstring the description a model reads to choose it.

Nothing here knows MCP or Neo4j: the entry point (engine/cli/mcp.py) hands in the store, the
query pack, a way to build the embedder, and the report directory. Bad input raises the same
InvalidInput / NotFound as on the command line, before anything is written.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import blockers as blocking
from engine import explain as explaining
from engine import queries, results, tms
from engine import search as searching
from engine.errors import InvalidInput
from engine.model import Kind, Truth
from engine.queries import PackQuery
from engine.store import BeliefFilter, Store

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
                 make_embedder: Callable[[], Any] | None = None) -> None:
        self._store = store
        self._pack = list(pack)
        self._report_dir = report_dir
        self._make_embedder = make_embedder
        self._embedder: Any = None
        self._embedder_lock = threading.Lock()

    # --- reading ---------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """Counts of the network: beliefs, IN, OUT, undetermined, premises, derived, nogoods,
        max depth, and the ids of undetermined beliefs. Call it first to see how big the
        network is and whether anything is undetermined. Example: status()."""
        s = tms.status(self._store)
        return {**s.as_dict(), "undetermined_ids": list(s.undetermined_ids)}

    def show(self, id: str) -> dict[str, Any]:
        """One belief in full: text, truth (IN/OUT/UNDETERMINED), depth, whether retracted or
        asserted, source, metadata, its justifications (antecedents that must be IN, outlist
        that must be OUT) and the ids of beliefs that name it (dependents). Use it before
        changing a belief. Example: show(id="auth-uses-jwt")."""
        return results.belief_record(*tms.show(self._store, id))

    def explain(self, id: str) -> dict[str, Any]:
        """Why a belief is IN (the justification that holds, down to premises) or OUT (what
        fails in each justification). Use it to answer "why do we believe X?" or "why not?".
        Example: explain(id="auth-bottleneck")."""
        return explaining.explain(self._store, id).as_dict()

    def trace(self, id: str) -> dict[str, Any]:
        """The premises, user-asserted beliefs and not-yet-added ids a belief ultimately rests
        on, each with its truth. Use it to find which observations a conclusion depends on.
        Example: trace(id="auth-bottleneck")."""
        return {"id": id, "rests_on": [e.__dict__ for e in explaining.trace(self._store, id)]}

    def list_beliefs(self, truth: str = "any", kind: str = "any",
                     limit: int = LIST_LIMIT) -> dict[str, Any]:
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
        beliefs = tms.list_beliefs(self._store, BeliefFilter(truths[truth], kinds[kind]))
        return {"beliefs": [results.belief_row(b) for b in beliefs[:limit]],
                "total": len(beliefs), "truncated": len(beliefs) > limit}

    def search(self, words: str, include_out: bool = False, semantic: bool = False,
               limit: int = searching.DEFAULT_LIMIT) -> dict[str, Any]:
        """Find beliefs by words in their text or id (any word; prefixes match), best first,
        each with truth, depth and how many beliefs rest on it directly. Only IN beliefs
        unless include_out=true. semantic=true also ranks by meaning (sentence embeddings
        stored on beliefs) and fuses both rankings. Use it before adding a belief, to find
        what exists. Example: search(words="cache stale reads", limit=5)."""
        embedder = self._embedder_or_none() if semantic else None
        hits = searching.search(self._store, words, limit=limit, include_out=include_out,
                                embedder=embedder)
        return {"hits": [h.as_dict() for h in hits]}

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

    def verify(self) -> dict[str, Any]:
        """Recompute every label and depth from scratch and compare with the graph: ok is
        true when they all agree, else the mismatches. Slow on big networks; use it after
        a suspected inconsistency. Example: verify()."""
        problems = tms.verify(self._store)
        return results.verify_record(problems, tms.status(self._store).undetermined_ids)

    def what_if(self, operation: str, id: str) -> dict[str, Any]:
        """What retracting or asserting a belief would change (went_in, went_out), computed
        in a transaction that is rolled back: nothing is written. operation: "retract" or
        "assert". Use it before a retract to see the cascade.
        Example: what_if(operation="retract", id="auth-uses-jwt")."""
        return tms.what_if(self._store, operation, id).as_dict()

    def blockers(self, limit: int = blocking.DEFAULT_LIMIT) -> dict[str, Any]:
        """What holds conclusions OUT: groups of OUT conclusions whose justification holds
        but for IN beliefs in its outlist (closers), most conclusions first ("take bug-412
        OUT and these 7 come back"), and the retracted premises the most beliefs rest on,
        with their reasons. Use it to find what to fix first.
        Example: blockers(limit=10)."""
        return blocking.find_blockers(self._store, limit).as_dict()

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

    # --- changing --------------------------------------------------------------------
    def add(self, id: str, text: str, antecedents: list[str] | None = None,
            unless: list[str] | None = None, any_mode: bool = False, kind: str = "SL",
            label: str = "", source: str = "", source_url: str = "") -> dict[str, Any]:
        """Add a belief. Without antecedents and unless it is a premise (an observed fact,
        IN). With antecedents it is derived: IN while all antecedents are IN and every
        unless id is OUT; any_mode=true makes one justification per antecedent (each enough
        alone). Ids: lower case [a-z0-9._:-]. Returns what went IN and OUT.
        Example: add(id="auth-bottleneck", text="Auth is a bottleneck",
        antecedents=["auth-uses-jwt", "auth-sync-check"])."""
        justifications = _justifications(antecedents or [], unless or [], any_mode, kind, label)
        return tms.add(self._store, id, text, justifications, source=source,
                       source_url=source_url).as_dict()

    def add_justification(self, id: str, antecedents: list[str] | None = None,
                          unless: list[str] | None = None, any_mode: bool = False,
                          kind: str = "SL", label: str = "") -> dict[str, Any]:
        """Give an existing belief another justification (another reason it may hold); a
        premise becomes derived. Returns what went IN and OUT.
        Example: add_justification(id="auth-bottleneck", antecedents=["load-test-p99"],
        label="measured")."""
        justifications = _justifications(antecedents or [], unless or [], any_mode, kind, label)
        return tms.add_justification(self._store, id, justifications).as_dict()

    def retract(self, id: str, reason: str = "") -> dict[str, Any]:
        """Pin a belief OUT (it no longer holds) until assert_belief; everything resting on
        it follows in the same transaction. Returns what went IN and OUT. Call what_if
        first when unsure. Example: retract(id="auth-uses-jwt", reason="moved to sessions")."""
        return tms.retract(self._store, id, reason).as_dict()

    def assert_belief(self, id: str) -> dict[str, Any]:
        """Undo a retraction; a derived belief with no valid support then holds as a
        user-asserted fact. Returns what went IN and OUT.
        Example: assert_belief(id="auth-uses-jwt")."""
        return tms.assert_belief(self._store, id).as_dict()

    def nogood(self, ids: list[str], name: str = "") -> dict[str, Any]:
        """Record that these beliefs must not all be IN (a contradiction). While they all
        are, the least entrenched assumption they rest on is retracted. Returns what went
        IN and OUT and what the nogood retracted.
        Example: nogood(ids=["cache-is-coherent", "cache-serves-stale-reads"])."""
        return tms.add_nogood(self._store, ids, name or None).as_dict()

    # --- resources ---------------------------------------------------------------------
    def status_resource(self) -> str:
        return json.dumps(self.status(), indent=2)

    def _embedder_or_none(self) -> Any:
        if self._make_embedder is None:
            raise InvalidInput("semantic search is not available in this server",
                               field="semantic")
        with self._embedder_lock:  # built once; its model is not safe to encode on two threads
            if self._embedder is None:
                self._embedder = _LockedEmbedder(self._make_embedder())
            return self._embedder


class _LockedEmbedder:
    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self.model_name = embedder.model_name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            return self._embedder.embed(texts)


def _param_text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


TOOL_NAMES = ("status", "show", "explain", "trace", "list_beliefs", "search", "query",
              "verify", "what_if", "stage_runs", "add", "add_justification", "retract",
              "assert_belief", "nogood", "blockers")
READ_ONLY = frozenset(TOOL_NAMES[:10]) | {"blockers"}


def tool_methods(tools: AgentTools) -> Mapping[str, Callable[..., dict[str, Any]]]:
    return {name: getattr(tools, name) for name in TOOL_NAMES}
