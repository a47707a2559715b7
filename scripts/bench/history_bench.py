"""Going back (issue 37): what before-images cost a write, and how fast the past is read,
compared and restored; printed as JSON lines, then a table.

    .venv/bin/python scripts/bench/history_bench.py [--size 10000] [--changes 1000]
                                                    [--repeat 15] [--notify 5]

1. `retract_single_dependent`: on the N+N synthetic network, a single-dependent retract
   through the store, and through one whose transactions keep no before-images (the code
   before them), in alternated pairs: the median of the pairs' differences.
2. `import`: an N-belief import, with and without before-images, alternated.
3. After `--changes` logged writes (retract / assert of single-dependent premises, and a
   reword now and then): `export --as-of` the point that many changes back (the rebuild and
   the JSON), `diff` between two points that many changes apart, `rollback` of that many
   changes, and the rollback rolled back.
4. `notify`: an MCP server over stdio (the SDK's client) subscribed to eem://belief/{id};
   this process (another than the server) writes; the seconds from the commit to the
   resource-updated event, median of `--notify`.
Targets: at most 2 ms and 15% added; export --as-of 1,000 back at 10k+10k under 2 s, diff
under 1 s, rollback of 1,000 under 5 s; a notification under 1 s. It empties the database at
NEO4J_URI.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import neo4j
from synthetic import generate, single_dependent_premise

from adapters.cypher_files import cypher
from adapters.formats import dump_network, parse_network
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore, Neo4jTx
from engine import interchange, tms
from engine.change_records import ChangeEntry
from engine.memory import history, supersede
from engine.memory.changelog import now_utc

RESULTS: list[dict] = []


class ImagelessTx(Neo4jTx):
    """A transaction that keeps no before-images: the write paths as they were before them."""

    def _run(self, name, **params):
        return list(self._tx.run(cypher(name), params))

    def _single(self, name, **params):
        return self._tx.run(cypher(name), params).single()


class ImagelessStore(Neo4jStore):
    """The store without before-images, to measure what they add. Its entries keep none, so
    history begins after its last write: never use it for real writes."""

    def write(self, work, entry=None):
        tag = self._lock.new_tag()
        said = entry or ChangeEntry("write")

        @neo4j.unit_of_work(metadata={"eem_write": tag})
        def locked(tx):
            seq = self._lock.take(tx, tag)
            view = ImagelessTx(tx)
            view.change_log.actor = said.actor or self._actor
            view.change_log.seq = seq
            result = work(view)
            view.append_change(seq, now_utc(), said)
            return result

        with self._session(neo4j.WRITE_ACCESS) as session:
            return self._guard(lambda: session.execute_write(locked))


def emit(**fields) -> None:
    RESULTS.append(fields)
    print(json.dumps(fields), flush=True)


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def wipe(driver, database: str, store: Neo4jStore) -> None:
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()


def load(data: dict, store: Neo4jStore) -> float:
    network, stored = parse_network(data)
    seconds, _ = timed(lambda: interchange.import_network(store, network, stored))
    return seconds


def write_cost(size: int, repeat: int, kept: Neo4jStore, bare: Neo4jStore, driver,
               database: str) -> dict:
    data = generate(size)
    wipe(driver, database, kept)
    load(data, kept)
    premise = single_dependent_premise(data)
    pairs = []
    for k in range(repeat):
        order = [(kept, True), (bare, False)] if k % 2 == 0 else [(bare, False), (kept, True)]
        got = {}
        for store, with_images in order:
            seconds, _ = timed(lambda store=store: tms.retract(store, premise))
            got[with_images] = seconds
            tms.assert_belief(store, premise)
        pairs.append((got[True], got[False]))
    emit(workload="retract_single_dependent", size=2 * size, repeat=repeat,
         with_images_ms=round(statistics.median(p[0] for p in pairs) * 1000, 2),
         without_ms=round(statistics.median(p[1] for p in pairs) * 1000, 2),
         added_ms=round(statistics.median(p[0] - p[1] for p in pairs) * 1000, 2))
    return data


def import_cost(size: int, repeat: int, kept: Neo4jStore, bare: Neo4jStore, driver,
                database: str) -> None:
    data = generate(size // 2)  # N beliefs: N/2 premises and N/2 derived
    samples: dict[bool, list[float]] = {True: [], False: []}
    for k in range(repeat):
        for store, with_images in ((kept, True), (bare, False))[::1 if k % 2 == 0 else -1]:
            wipe(driver, database, kept)
            samples[with_images].append(load(data, store))
    with_, without = (statistics.median(samples[True]), statistics.median(samples[False]))
    emit(workload="import", beliefs=len(data["nodes"]), repeat=repeat,
         with_images_s=round(with_, 3), without_s=round(without, 3),
         added_pct=round(100 * (with_ - without) / without, 1))


def going_back(size: int, changes: int, store: Neo4jStore, driver, database: str) -> None:
    data = generate(size)
    wipe(driver, database, store)
    load(data, store)
    users: dict[str, int] = {}
    for node in data["nodes"].values():
        for j in node["justifications"]:
            for a in j["antecedents"]:
                users[a] = users.get(a, 0) + 1
    premises = [p for p in sorted(data["nodes"]) if p.startswith("p-") and users.get(p) == 1]
    start_point = history.last_seq(store)
    start = time.perf_counter()
    for k in range(changes):
        p = premises[(k // 2) % len(premises)]
        if k % 50 == 49:
            supersede.supersede(store, p, text=f"{p}, reworded {k}", rewire=False)
        elif k % 2 == 0:
            tms.retract(store, p, "bench")
        else:
            tms.assert_belief(store, p)
    emit(workload="changes_written", size=2 * size, changes=changes,
         seconds=round(time.perf_counter() - start, 1))
    now = history.last_seq(store)
    values = [timed(lambda: dump_network(history.network_as_of(store, str(start_point))))[0]
              for _ in range(3)]
    plain = [timed(lambda: dump_network(interchange.export_network(store)))[0]
             for _ in range(3)]
    emit(workload="export_as_of", size=2 * size, changes_back=now - start_point,
         median_s=round(statistics.median(values), 3), min_s=round(min(values), 3),
         export_now_median_s=round(statistics.median(plain), 3))
    values = [timed(lambda: history.diff_points(store, str(start_point), str(now)))[0]
              for _ in range(3)]
    rows = len(history.diff_points(store, str(start_point), str(now)).beliefs)
    emit(workload="diff", size=2 * size, changes_apart=now - start_point, rows=rows,
         median_s=round(statistics.median(values), 3), min_s=round(min(values), 3))
    seconds, restored = timed(lambda: history.rollback(store, str(start_point), "bench"))
    emit(workload="rollback", size=2 * size, changes=now - start_point,
         beliefs=len(restored.units.get("belief", [])), seconds=round(seconds, 3))
    seconds, _ = timed(lambda: history.rollback(store, str(now), "bench: back again"))
    emit(workload="rollback_of_the_rollback", size=2 * size, seconds=round(seconds, 3))


def notify_latency(count: int, store: Neo4jStore, settings: Neo4jSettings) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    tms.add(store, "watched", "A belief a client subscribes to.")
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password or "", "NEO4J_DATABASE": settings.database,
           "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "engine.mcp"], env=env,
                                   cwd=str(ROOT))

    async def go() -> list[float]:
        seen = []
        async with Client(params) as client:
            async with client.listen(resource_subscriptions=["eem://belief/watched"]) as sub:
                await asyncio.sleep(1.0)
                for k in range(count):
                    write = tms.retract if k % 2 == 0 else tms.assert_belief
                    await asyncio.to_thread(write, store, "watched")
                    committed = time.perf_counter()
                    await asyncio.wait_for(sub.__anext__(), timeout=30)
                    seen.append(time.perf_counter() - committed)
        return seen

    seen = asyncio.run(go())
    emit(workload="notify", repeat=count, median_s=round(statistics.median(seen), 3),
         max_s=round(max(seen), 3))


def table() -> None:
    print("\n| workload | figures |\n|---|---|")
    for r in RESULTS:
        figures = ", ".join(f"{k} {v}" for k, v in r.items() if k != "workload")
        print(f"| {r['workload']} | {figures} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000, help="N of the N+N network")
    parser.add_argument("--changes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--import-repeat", type=int, default=3)
    parser.add_argument("--notify", type=int, default=5)
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    kept = Neo4jStore(driver, settings.database, settings.uri, actor="bench")
    bare = ImagelessStore(driver, settings.database, settings.uri, actor="bench")
    try:
        print(json.dumps({"load": os.getloadavg()}), flush=True)
        write_cost(args.size, args.repeat, kept, bare, driver, settings.database)
        import_cost(args.size, args.import_repeat, kept, bare, driver, settings.database)
        going_back(args.size, args.changes, kept, driver, settings.database)
        if args.notify:
            notify_latency(args.notify, kept, settings)
        table()
    finally:
        driver.close()


if __name__ == "__main__":
    main()
