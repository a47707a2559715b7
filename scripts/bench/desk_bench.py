"""Benchmark of the review desk (`eem ui`, engine/desk/): the server's time to render the queue
of 200 open proposals (100 agents' proposals and a derive file of 100) and a belief's page,
over the synthetic network of N premises and N derived beliefs, in-process (Starlette's test
client: the request through the token check, the service reads and the template, no browser)
against the Neo4j at NEO4J_URI (password from NEO4J_PASSWORD or the local server's
.neo4j/password).

    .venv/bin/python scripts/bench/desk_bench.py              # 10k+10k, 200 proposals
    .venv/bin/python scripts/bench/desk_bench.py --size 2000 --proposals 50

It EMPTIES the database. Target: each page under 300 ms at 10k+10k. Prints one JSON line per
measurement: the median and the best of --repeat requests (after one warm-up request, which
plans the queries). What a page reads after it is drawn is measured apart: a row's what-if
(read as the row comes into view) and a belief's explain tree and trace (`?part=why`: a
belief of the top layer rests on some 3000 beliefs upstream).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import HUB, derived_id, generate, premise_id

from adapters.cypher_files import cypher
from adapters.formats import parse_network
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import interchange
from engine.derive.options import DeriveOptions
from engine.derive.proposals import Proposal, ProposalKind
from engine.derive.stage import DeriveStage
from engine.service import proposals as proposing
from engine.service.context import Context
from engine.service.network import NewBelief, justifications
from engine.stages.provenance import RunRecord

TOKEN = "desk-bench-token-0123456789"
TARGET_S = 0.300


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(get, path: str, repeat: int) -> tuple[float, float, int]:
    first = get(path)  # warm-up: query plans
    assert first.status_code == 200, (path, first.status_code, first.text[:300])
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        r = get(path)
        times.append(time.perf_counter() - start)
        assert r.status_code == 200, (path, r.status_code)
    return round(statistics.median(times), 3), round(min(times), 3), len(first.content)


def load(store, driver, settings, size: int) -> float:
    with driver.session(database=settings.database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()
    network, stored = parse_network(generate(size))
    start = time.perf_counter()
    interchange.import_network(store, network, stored)
    return round(time.perf_counter() - start, 1)


def propose(store, folder: Path, size: int, count: int) -> None:
    """count // 2 agents' proposals (new derived beliefs, by a bot) and a derive file of the
    rest, each over two premises."""
    bot = Context(store).acting_as("bench-bot")
    agents = count // 2
    for i in range(agents):
        a, b = premise_id(i % (size - 1)), premise_id((i * 7 + 3) % (size - 1))
        proposing.propose_add(bot, NewBelief(f"agent-claim-{i:04d}",
                                             f"A claim an agent proposes from {a} and {b}.",
                                             justifications([a, b])), "bench")
    items = [Proposal(ProposalKind.DERIVE, f"derived-claim-{i:04d}",
                      f"A claim a derive run proposes, number {i}.",
                      (premise_id(i % (size - 1)), premise_id((i * 11 + 5) % (size - 1))),
                      label="bench") for i in range(count - agents)]
    run = RunRecord("20260101T000000Z-bench0", "scripted", "2026-01-01T00:00:00+00:00",
                    stage="derive")
    (folder / "proposed-derivations.md").write_text(DeriveStage(None, DeriveOptions())
                                                    .render_file(items, run, "eem derive "
                                                                 "accept proposed-"
                                                                 "derivations.md"),
                                                    encoding="utf-8")


def measure(store, folder: Path, size: int, count: int, repeat: int) -> None:
    from starlette.testclient import TestClient

    from engine.desk.app import Desk, build_app
    from engine.desk.guard import Gate
    from engine.desk.queue import Sources
    from engine.desk.stage_files import StageTools
    from engine.mcp.tokens import TokenTable

    network = f"synthetic {size}+{size}"
    desk = Desk(Context(store, "bench-person", folder=folder),
                Sources((folder,), StageTools(lambda: None)), "bench-person",
                Gate(TokenTable(TOKEN, folder / "mcp-tokens.json"), 80, {"testserver"}))
    with TestClient(build_app(desk), base_url="http://testserver") as client:
        client.cookies.set(desk.gate.cookie, TOKEN)
        page = client.get("/queue").text
        rows = page.count('class="row')
        assert rows >= count, f"the queue shows {rows} rows, not {count}"
        for name, path in (("queue", "/queue"), ("queue_rows", "/queue/rows")):
            median, best, size_b = timed(client.get, path, repeat)
            emit(bench=f"desk_{name}", network=network, proposals=count, median_s=median,
                 best_s=best, bytes=size_b, under_target=median < TARGET_S)
        for key in ("agent:" + _first_agent(store), "file:"):
            if key == "file:":
                key = _first_file_key(page)
            median, best, _ = timed(client.get, f"/queue/detail?key={quote(key)}", repeat)
            emit(bench="desk_row_what_if", network=network, key=key, median_s=median,
                 best_s=best)
        top = derived_id(10, 0)
        for bid, what in ((top, "a derived belief of the top layer (depth 10)"),
                          (derived_id(1, 0), "a derived belief of layer 1"),
                          (HUB, "the hub premise (about 75% of the derived rest on it)")):
            median, best, size_b = timed(client.get, f"/belief/{quote(bid)}", repeat)
            emit(bench="desk_belief_page", network=network, belief=bid, what=what,
                 median_s=median, best_s=best, bytes=size_b, under_target=median < TARGET_S)
            median, best, size_b = timed(client.get, f"/belief/{quote(bid)}?part=why", repeat)
            emit(bench="desk_belief_why", network=network, belief=bid, median_s=median,
                 best_s=best, bytes=size_b)


def _first_agent(store) -> str:
    return proposing.list_proposals(Context(store), pending=True).proposals[0].id


def _first_file_key(page: str) -> str:
    import re

    found = re.search(r'data-key="([^"]*derived-claim-0000)"', page)
    assert found, "no derive file row"
    return found.group(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--proposals", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        seconds = load(store, driver, settings, args.size)
        emit(bench="setup", network=f"synthetic {args.size}+{args.size}", import_s=seconds,
             load=os.getloadavg()[0])
        with tempfile.TemporaryDirectory(prefix="desk-bench-") as tmp:
            propose(store, Path(tmp), args.size, args.proposals)
            measure(store, Path(tmp), args.size, args.proposals, args.repeat)
        emit(bench="done", load=os.getloadavg()[0])
    finally:
        store.close()


if __name__ == "__main__":
    main()
