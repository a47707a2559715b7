"""Review rounds with model calls in flight at once (`--parallel`), printed as JSON lines.

    .venv/bin/python scripts/bench/parallel_bench.py [--rounds 40] [--parallel 8]
                                                     [--seconds 1.0] [--budget 5]

A scripted critic that takes `--seconds` per call (it sleeps, then judges every
justification it is shown valid) reviews a network of `rounds x budget` derived beliefs,
all due at once, in exactly `--rounds` rounds (`--exhaust --max-rounds`), once at
--parallel 1 and once at --parallel N, each on a freshly loaded network on the real Neo4j,
with every round applied in its own write transaction as usual. Printed: both wall times,
the ratio, and whether both runs reviewed the same beliefs with the same totals.
Target (issue 25): 40 rounds of 1 s calls at --parallel 8 at least 6x faster than at 1.

Reads and writes stay one at a time (in the run's own thread; each round's write holds the
write lock), so the store's share of a round limits the speed-up: also printed are the
store seconds per round of the sequential run (its time less its calls, per round), to read
a loaded machine's figure against.

It WIPES the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from langchain_core.callbacks import CallbackManagerForLLMRun  # noqa: E402
from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from engine import tms  # noqa: E402
from engine.model import Belief, Justification  # noqa: E402
from engine.review.stage import ReviewSettings, ReviewStage  # noqa: E402
from engine.stages.calls import CallPolicy  # noqa: E402
from engine.stages.contract import unconstrained  # noqa: E402
from engine.stages.run import RunOptions, run_stage  # noqa: E402


class SlowCritic(BaseChatModel):
    """Every call takes `seconds`, then judges each justification shown valid."""

    seconds: float = 1.0

    @property
    def _llm_type(self) -> str:
        return "slow-critic"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        threading.Event().wait(self.seconds)
        prompt = str(messages[0].content)
        verdicts, current = [], None
        for line in prompt.splitlines():
            if line.startswith("### ") and " (depth " in line:
                current = line[4:].split(" (depth ")[0]
            elif line.startswith("Justification ") and current:
                verdicts.append({"id": current, "justification": int(line.split()[1]),
                                 "valid": True, "sufficient": True, "necessary": True,
                                 "unnecessary_antecedents": [], "mode": "ALL",
                                 "reason_type": "none", "missing_property": "",
                                 "comment": "follows"})
        text = json.dumps({"verdicts": verdicts})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def network(beliefs: int) -> list[Belief]:
    premises = [Belief(f"p{i}", f"Premise {i} was observed.") for i in range(beliefs + 1)]
    derived = [Belief(f"d{i}", f"Observations {i} and {i + 1} imply claim {i}.",
                      (Justification((f"p{i}", f"p{i + 1}"), ()),)) for i in range(beliefs)]
    return premises + derived


def fresh_store(driver, settings: Neo4jSettings, beliefs: int) -> Neo4jStore:
    with driver.session(database=settings.database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store = Neo4jStore(driver, settings.database, settings.uri)
    store.init_schema()
    store.write(lambda tx: tms.add_beliefs_in(tx, network(beliefs)))
    return store


def timed_run(store: Neo4jStore, args: argparse.Namespace, parallel: int) -> dict[str, Any]:
    options = RunOptions(model="slow-critic", exhaust=True, max_rounds=args.rounds,
                         calls=CallPolicy(timeout=60), parallel=parallel,
                         params={"parallel": parallel})
    stage = ReviewStage(ReviewSettings(budget=args.budget))
    model = unconstrained(SlowCritic(seconds=args.seconds))
    t0 = time.perf_counter()
    result = run_stage(store, stage, model, options)
    seconds = time.perf_counter() - t0
    totals = result.report.totals.to_json()
    totals.pop("seconds")
    return {"parallel": parallel, "seconds": round(seconds, 2), "status": result.status.value,
            "rounds": len(result.rounds), "stopped": result.stopped, "totals": totals,
            "reviewed": sorted(i for r in result.rounds for i in r.shown)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--parallel", type=int, default=8)
    p.add_argument("--seconds", type=float, default=1.0, help="per model call")
    p.add_argument("--budget", type=int, default=5, help="beliefs per round")
    args = p.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    try:
        runs = {}
        for parallel in (1, args.parallel):
            store = fresh_store(driver, settings, args.rounds * args.budget)
            runs[parallel] = timed_run(store, args, parallel)
            line = {k: v for k, v in runs[parallel].items() if k != "reviewed"}
            print(json.dumps({"bench": "parallel_review", **line}), flush=True)
    finally:
        driver.close()
    one, many = runs[1], runs[args.parallel]
    ratio = one["seconds"] / many["seconds"] if many["seconds"] else float("inf")
    same = one["reviewed"] == many["reviewed"] and one["totals"] == many["totals"]
    store_per_round = max(0.0, one["seconds"] / args.rounds - args.seconds)
    print(json.dumps({"bench": "parallel_review_ratio", "rounds": args.rounds,
                      "call_seconds": args.seconds, "parallel": args.parallel,
                      "seconds_parallel_1": one["seconds"],
                      f"seconds_parallel_{args.parallel}": many["seconds"],
                      "speedup": round(ratio, 2), "target": 6.0, "met": ratio >= 6.0,
                      "store_seconds_per_round": round(store_per_round, 3),
                      "same_result": same}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
