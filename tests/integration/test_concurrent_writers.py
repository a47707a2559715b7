"""Several writers at once, as threads and as separate processes, doing random add / retract /
assert / add-justification / nogood / supersede / reword / undo / challenge / defend /
remove-justification / set-metadata on one shared network with ALL, ANY, outlists, a loop
through outlists and a positive cycle: every operation commits or fails with one clear line,
at the end the labels are the well-founded model (verify is clean), and the change log has
exactly one entry per committed write, numbered without gaps or repeats."""
from __future__ import annotations

import multiprocessing
import random
import threading

import pytest

from engine import tms
from engine.change_records import LogQuery
from engine.errors import EngineError, InvalidInput, NotFound
from engine.memory import changelog, dialectic, editing, supersede

pytestmark = pytest.mark.neo4j

J = tms.make_justifications
WRITERS = 4
THREAD_OPS = 30  # per thread writer
PROCESS_OPS = 25  # per process writer: 220 operations in all
BASE_IDS = ["p1", "p2", "p3", "p4", "p5", "p6", "all", "any", "gate", "top", "cyc-a", "cyc-b",
            "odd-x", "odd-y"]


def shared_network(store) -> None:
    for i in range(1, 7):
        tms.add(store, f"p{i}", f"premise {i}")
    tms.add(store, "all", "p1 and p2", J(["p1", "p2"]))
    tms.add(store, "any", "p3 or p4", J(["p3", "p4"], any_mode=True))
    tms.add(store, "gate", "p5 unless p6", J(["p5"], unless=["p6"]))
    tms.add(store, "top", "all and any", J(["all", "any"]))
    tms.add(store, "cyc-a", "from p1, or from cyc-b", J(["p1"]))
    tms.add(store, "cyc-b", "from cyc-a", J(["cyc-a"]))
    tms.add_justification(store, "cyc-a", J(["cyc-b"]))  # a positive cycle, held up by p1
    tms.add(store, "odd-x", "unless odd-y", J([], unless=["odd-y"]))
    tms.add(store, "odd-y", "unless odd-x", J([], unless=["odd-x"]))
    assert tms.verify(store) == []


def random_justification(rng: random.Random, known: list[str], own: str) -> tuple:
    pool = [k for k in known if k != own]
    antecedents = rng.sample(pool, k=min(len(pool), rng.randint(1, 3)))
    unless = rng.sample(pool, k=1) if rng.random() < 0.3 else []
    unless = [u for u in unless if u not in antecedents]
    if rng.random() < 0.1:
        antecedents.append(f"later-{rng.randint(0, 5)}")  # a forward reference
    return J(antecedents, unless=unless, any_mode=rng.random() < 0.3)


def run_writer(store, writer: int, ops: int, seed: int) -> list[tuple[str, str, str]]:
    """Random operations; returns (operation, target, outcome) for each, where outcome is
    'ok' or the error's one line. Anything that is not an EngineError propagates."""
    rng = random.Random(seed)
    known = list(BASE_IDS)
    outcomes = []
    for k in range(ops):
        roll = rng.random()
        target = rng.choice(known)
        other = rng.choice([b for b in known if b != target])
        try:
            if roll < 0.25:
                new = f"w{writer}-{k}"
                target = new
                tms.add(store, new, f"belief {new}", random_justification(rng, known, new))
                known.append(new)
            elif roll < 0.45:
                tms.retract(store, target, reason=f"writer {writer}")
            elif roll < 0.62:
                tms.assert_belief(store, target)
            elif roll < 0.72:
                tms.add_justification(store, target, random_justification(rng, known, target))
            elif roll < 0.76:
                tms.add_nogood(store, [target, other], f"ng-w{writer}-{k}")
            else:
                outcome = run_memory_verb(store, rng, roll, target, other, f"w{writer}-{k}")
                outcomes.append((f"{roll:.2f}", target, outcome))
                continue
            outcomes.append((f"{roll:.2f}", target, "ok"))
        except EngineError as e:
            outcomes.append((f"{roll:.2f}", target, str(e)))
    return outcomes


def run_memory_verb(store, rng: random.Random, roll: float, target: str, other: str,
                    fresh: str) -> str:
    """One of the daily verbs; 'ok', or 'refused: ...' for input the graph's state made bad
    at that moment (superseded already, no such challenge, the last justification)."""
    try:
        if roll < 0.80:
            supersede.supersede(store, target, other, rewire=rng.random() < 0.5)
        elif roll < 0.84:
            supersede.supersede(store, target, text=f"{target} reworded", new_id=f"{fresh}-v")
        elif roll < 0.88:
            supersede.undo_supersede(store, target)
        elif roll < 0.92:
            dialectic.challenge(store, target, "doubt", rng.choice([None, 1]))
        elif roll < 0.95:
            dialectic.defend(store, f"challenge:{target}", "answer")
        elif roll < 0.98:
            editing.remove_justification(store, target, 1)
        else:
            editing.set_metadata(store, target, "beliefs_type",
                                 rng.choice(["assumption", "observation", "axiom"]))
        return "ok"
    except (InvalidInput, NotFound) as e:
        return f"refused: {e}"


def last_seq(store) -> int:
    return changelog.log(store, LogQuery(limit=1))[0].seq


def check_outcomes(store, results: list[list[tuple[str, str, str]]], start: int) -> None:
    everything = [o for r in results for o in r]
    failed = [o for o in everything if o[2] != "ok"]
    for _, _, message in failed:
        assert message and "\n" not in message
    # nothing here is bad input but a daily verb the state refused: a failure would be a lock
    # or store problem
    assert [o for o in failed if not o[2].startswith("refused: ")] == []
    entries = changelog.changes_since(store, start, limit=10_000)
    seqs = [e.seq for e in entries]
    assert seqs == list(range(start + 1, start + 1 + len(seqs)))  # no gaps, no repeats
    assert len(entries) == len(everything) - len(failed)  # one per committed write, no more
    added = {target for r in results for op, target, outcome in r
             if outcome == "ok" and target.startswith("w") and "-" in target}
    assert added <= set(tms.show_many(store, sorted(added)))
    assert tms.verify(store) == []


def test_thread_writers_keep_the_well_founded_model(store):
    shared_network(store)
    start = last_seq(store)
    results: list[list] = [[] for _ in range(WRITERS)]
    crashes: list[BaseException] = []
    barrier = threading.Barrier(WRITERS)

    def writer(w: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[w] = run_writer(store, w, THREAD_OPS, seed=100 + w)
        except BaseException as e:
            crashes.append(e)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not crashes, crashes
    assert sum(len(r) for r in results) == WRITERS * THREAD_OPS
    check_outcomes(store, results, start)


def process_writer(settings, writer: int, ops: int, seed: int, barrier) -> list:
    """One writer in a process of its own, with its own driver."""
    from adapters.neo4j.connection import connect
    from adapters.neo4j.store import Neo4jStore

    driver = connect(settings)
    try:
        barrier.wait(timeout=60)
        return run_writer(Neo4jStore(driver, settings.database, settings.uri), writer, ops, seed)
    finally:
        driver.close()


def test_process_writers_keep_the_well_founded_model(store, neo4j_settings):
    shared_network(store)
    start = last_seq(store)
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(WRITERS) as pool:
        barrier = manager.Barrier(WRITERS)
        pending = [pool.apply_async(process_writer,
                                    (neo4j_settings, w, PROCESS_OPS, 200 + w, barrier))
                   for w in range(WRITERS)]
        results = [p.get(timeout=300) for p in pending]
    assert sum(len(r) for r in results) == WRITERS * PROCESS_OPS
    check_outcomes(store, results, start)

